// Package fairqueue is the controller's work queue. It serves the namespaces that have work in turn,
// so that a namespace where many WebApps change at once (a mass image change, a GitOps sync, a bulk
// create) does not hold back a lone edit in another: the edit waits for one WebApp of each busy
// namespace, not for all of them. Namespaces are the tenants here, as they are for RBAC and quotas.
//
// Within a namespace the order is first in, first out. Two bands keep controller-runtime's
// priorities: what a restart lists and what a resync repeats unchanged come after every real change.
package fairqueue

import (
	"maps"
	"slices"
	"sync"

	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// band is where an item is served: first, or after every item of the first band.
type band int

const (
	first band = iota
	later
	bands
)

// order is the workqueue.Queue under client-go's work queue, which deduplicates items, holds back
// an item while it is processed, and calls Push, Touch, Pop and Len under its own lock.
type order struct {
	// mu guards next, which Add's callers write outside the work queue's lock.
	mu sync.Mutex
	// next is the band an item goes in when it is pushed or touched: the first band of its immediate
	// adds since it was last popped (absent: first).
	next map[reconcile.Request]band

	rounds [bands]rounds
	// in is the band each queued item is in.
	in map[reconcile.Request]band
}

func newOrder() *order {
	o := &order{next: map[reconcile.Request]band{}, in: map[reconcile.Request]band{}}
	for b := range o.rounds {
		o.rounds[b].queues = map[string][]reconcile.Request{}
	}
	return o
}

// note records that item is to be served in b, unless an earlier add asked for an earlier band.
func (o *order) note(item reconcile.Request, b band) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if cur, ok := o.next[item]; !ok || b < cur {
		o.next[item] = b
	}
}

func (o *order) bandOf(item reconcile.Request) band {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.next[item]
}

// Push queues a new item in its band.
func (o *order) Push(item reconcile.Request) {
	b := o.bandOf(item)
	o.rounds[b].push(item)
	o.in[item] = b
}

// Touch moves an item that is queued already to an earlier band, when an add asked for it: a
// WebApp that a restart listed and that then changes is served with the changes.
func (o *order) Touch(item reconcile.Request) {
	cur, queued := o.in[item]
	if b := o.bandOf(item); queued && b < cur {
		o.rounds[cur].remove(item)
		o.rounds[b].push(item)
		o.in[item] = b
	}
}

// Pop takes the next item of the first band that has one.
func (o *order) Pop() reconcile.Request {
	for b := range o.rounds {
		if o.rounds[b].len > 0 {
			item := o.rounds[b].pop()
			delete(o.in, item)
			o.mu.Lock()
			delete(o.next, item)
			o.mu.Unlock()
			if o.Len() == 0 {
				o.shrink()
			}
			return item
		}
	}
	return reconcile.Request{} // the work queue pops only when Len is above 0
}

// shrink lets go of what a backlog grew: Go's maps keep their buckets when emptied, and a turn its
// array. Called when nothing is queued, so only next, the adds of items in process, is kept.
func (o *order) shrink() {
	o.in = map[reconcile.Request]band{}
	for b := range o.rounds {
		o.rounds[b] = rounds{queues: map[string][]reconcile.Request{}}
	}
	o.mu.Lock()
	o.next = maps.Clone(o.next)
	o.mu.Unlock()
}

// Len is the number of queued items.
func (o *order) Len() int {
	n := 0
	for b := range o.rounds {
		n += o.rounds[b].len
	}
	return n
}

// rounds is one band: a queue per namespace, and the namespaces with queued items in the order they
// are served. A namespace served goes to the back of the turn while it has items.
type rounds struct {
	queues map[string][]reconcile.Request
	turn   []string
	len    int
}

func (r *rounds) push(item reconcile.Request) {
	q := r.queues[item.Namespace]
	if len(q) == 0 {
		r.turn = append(r.turn, item.Namespace)
	}
	r.queues[item.Namespace] = append(q, item)
	r.len++
}

func (r *rounds) pop() reconcile.Request {
	ns := r.turn[0]
	r.turn[0] = ""
	r.turn = r.turn[1:]
	q := r.queues[ns]
	item := q[0]
	q[0] = reconcile.Request{} // the array outlives the slice: drop the popped item's strings
	if len(q) == 1 {
		delete(r.queues, ns)
	} else {
		r.queues[ns] = q[1:]
		r.turn = append(r.turn, ns)
	}
	r.len--
	return item
}

// remove takes a queued item out of the band (rare: a restart's item that changed).
func (r *rounds) remove(item reconcile.Request) {
	q := r.queues[item.Namespace]
	i := slices.Index(q, item)
	if i < 0 {
		return
	}
	r.len--
	if len(q) == 1 {
		delete(r.queues, item.Namespace)
		r.turn = slices.DeleteFunc(r.turn, func(ns string) bool { return ns == item.Namespace })
		return
	}
	r.queues[item.Namespace] = slices.Delete(q, i, i+1)
}
