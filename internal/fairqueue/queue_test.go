package fairqueue

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

func req(ns, name string) reconcile.Request {
	return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}}
}

func newQueue(t *testing.T) *Queue {
	t.Helper()
	q := New("", workqueue.NewTypedItemExponentialFailureRateLimiter[reconcile.Request](time.Millisecond, time.Second)).(*Queue)
	t.Cleanup(q.ShutDown)
	return q
}

// drain gets every queued item, in order, marking each done.
func drain(q *Queue) []string {
	var got []string
	for q.Len() > 0 {
		item, _ := q.Get()
		q.Done(item)
		got = append(got, item.Namespace+"/"+item.Name)
	}
	return got
}

var low = handler.LowPriority

func TestOrder(t *testing.T) {
	type add struct {
		ns, name string
		priority *int
	}
	for _, tc := range []struct {
		name string
		adds []add
		want []string
	}{{
		name: "namespaces in turn, each first in first out",
		adds: []add{{"a", "1", nil}, {"a", "2", nil}, {"a", "3", nil}, {"b", "1", nil}, {"c", "1", nil}, {"b", "2", nil}},
		want: []string{"a/1", "b/1", "c/1", "a/2", "b/2", "a/3"},
	}, {
		name: "an item added twice is queued once, where it was",
		adds: []add{{"a", "1", nil}, {"a", "2", nil}, {"a", "1", nil}},
		want: []string{"a/1", "a/2"},
	}, {
		name: "a restart's list comes after every change",
		adds: []add{{"a", "1", &low}, {"a", "2", &low}, {"b", "1", &low}, {"a", "3", nil}},
		want: []string{"a/3", "a/1", "b/1", "a/2"},
	}, {
		name: "a listed item that changes is served with the changes",
		adds: []add{{"a", "1", &low}, {"a", "2", &low}, {"a", "2", nil}},
		want: []string{"a/2", "a/1"},
	}, {
		name: "a changed item stays first when a resync repeats it",
		adds: []add{{"a", "1", nil}, {"a", "2", &low}, {"a", "1", &low}},
		want: []string{"a/1", "a/2"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			q := newQueue(t)
			for _, a := range tc.adds {
				q.AddWithOpts(priorityqueue.AddOpts{Priority: a.priority}, req(a.ns, a.name))
			}
			if got := drain(q); fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("served %v, want %v", got, tc.want)
			}
		})
	}
}

// TestLoneEditPassesABacklog is the reason for the queue: a thousand WebApps changed in four
// namespaces, then one edit in a fifth, which is served in the first round, not after the thousand.
func TestLoneEditPassesABacklog(t *testing.T) {
	q := newQueue(t)
	for i := range 1000 {
		q.Add(req(fmt.Sprintf("bulk-%d", i%4), fmt.Sprint(i)))
	}
	q.Add(req("probe", "edited"))
	for served := 1; ; served++ {
		item, _ := q.Get()
		q.Done(item)
		if item.Namespace == "probe" {
			if served > 5 {
				t.Fatalf("the edit was served %dth, want within the first round of 5 namespaces", served)
			}
			return
		}
	}
}

// An item added while it is processed is served again once it is done, in its band.
func TestAddWhileProcessing(t *testing.T) {
	q := newQueue(t)
	q.Add(req("a", "1"))
	item, _ := q.Get()
	q.AddWithOpts(priorityqueue.AddOpts{Priority: &low}, item)
	q.Add(req("a", "2"))
	if q.Len() != 1 {
		t.Fatalf("queued %d items while a/1 is processed, want 1 (a/2)", q.Len())
	}
	q.Done(item)
	if got := drain(q); fmt.Sprint(got) != "[a/2 a/1]" {
		t.Errorf("served %v, want [a/2 a/1]", got)
	}
}

// Delayed and rate-limited adds arrive when due, in the first band.
func TestDelayedAdds(t *testing.T) {
	q := newQueue(t)
	q.AddWithOpts(priorityqueue.AddOpts{After: 20 * time.Millisecond, Priority: &low}, req("a", "later"))
	q.AddWithOpts(priorityqueue.AddOpts{RateLimited: true}, req("a", "retried"))
	q.AddWithOpts(priorityqueue.AddOpts{Priority: &low}, req("b", "listed"))
	time.Sleep(100 * time.Millisecond)
	if got := drain(q); fmt.Sprint(got) != "[a/retried a/later b/listed]" {
		t.Errorf("served %v, want [a/retried a/later b/listed]", got)
	}
	if n := q.NumRequeues(req("a", "retried")); n != 1 {
		t.Errorf("NumRequeues = %d, want 1", n)
	}
}

// A drained queue lets go of its backlog's maps (Go's maps keep their buckets when emptied): its
// index of queued items is a new map, and it serves on.
func TestDrainedQueueShrinks(t *testing.T) {
	q := newQueue(t)
	for i := range 1000 {
		q.Add(req(fmt.Sprintf("ns-%d", i%4), fmt.Sprint(i)))
	}
	grown := reflect.ValueOf(q.order.in).UnsafePointer()
	drain(q)
	if reflect.ValueOf(q.order.in).UnsafePointer() == grown {
		t.Error("the drained order keeps the map its backlog grew")
	}
	if n := len(q.order.in) + len(q.order.rounds[first].turn) + len(q.order.rounds[first].queues); n != 0 {
		t.Fatalf("a drained order holds %d entries", n)
	}
	q.Add(req("a", "1"))
	if got := drain(q); fmt.Sprint(got) != "[a/1]" {
		t.Errorf("served %v after draining, want [a/1]", got)
	}
}
