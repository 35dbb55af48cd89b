package fairqueue

import (
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Queue is client-go's rate-limiting work queue over the fair order. It has controller-runtime's
// priority queue interface, so that controller-runtime's event handlers tell it which events come
// from a restart's list or an unchanged resync (a negative priority: the later band).
//
// Only an immediate add chooses a band. A delayed add (a retry, a recheck) is pushed when it is due,
// in the band its item's last immediate add chose, or the first.
type Queue struct {
	workqueue.TypedRateLimitingInterface[reconcile.Request]
	order   *order
	limiter workqueue.TypedRateLimiter[reconcile.Request]
}

var _ priorityqueue.PriorityQueue[reconcile.Request] = &Queue{}

// New is a controller.Options.NewQueue. The queue's metrics are client-go's work queue metrics
// under name (workqueue_depth and the rest, as controller-runtime registers them).
func New(name string, limiter workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
	o := newOrder()
	q := workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[reconcile.Request]{Name: name, Queue: o})
	delaying := workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[reconcile.Request]{
		Name: name, Queue: q})
	return &Queue{
		TypedRateLimitingInterface: workqueue.NewTypedRateLimitingQueueWithConfig(limiter,
			workqueue.TypedRateLimitingQueueConfig[reconcile.Request]{Name: name, DelayingQueue: delaying}),
		order:   o,
		limiter: limiter,
	}
}

// AddWithOpts adds items now, after o.After, or after the rate limiter's delay (the shorter of the
// two when both are asked for, as controller-runtime's priority queue does).
func (q *Queue) AddWithOpts(o priorityqueue.AddOpts, items ...reconcile.Request) {
	for _, item := range items {
		after := o.After
		if o.RateLimited {
			if d := q.limiter.When(item); after <= 0 || d < after {
				after = d
			}
		}
		if after > 0 {
			q.AddAfter(item, after)
			continue
		}
		b := first
		if o.Priority != nil && *o.Priority < 0 {
			b = later
		}
		q.order.note(item, b)
		q.TypedRateLimitingInterface.Add(item)
	}
}

// Add adds item now, in the first band.
func (q *Queue) Add(item reconcile.Request) {
	q.AddWithOpts(priorityqueue.AddOpts{}, item)
}

// GetWithPriority is Get. The priority it returns is 0: a requeue is a delayed add, which chooses
// no band.
func (q *Queue) GetWithPriority() (reconcile.Request, int, bool) {
	item, shutdown := q.Get()
	return item, 0, shutdown
}
