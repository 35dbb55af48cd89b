package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// tracker records, for each expected object, when the harness acted on it and when the
// harness's informer first saw it satisfy pred. Watching (not polling) keeps the harness's own
// load on the API server small and the timestamps sharp.
type tracker struct {
	mu   sync.Mutex
	pred func(client.Object) bool
	// onDone, if set, is called with each object when it first satisfies pred, under the lock.
	onDone      func(client.Object)
	start, done map[string]time.Time
	all         chan struct{}
}

func newTracker(keys []string, pred func(client.Object) bool) *tracker {
	t := &tracker{pred: pred, start: map[string]time.Time{}, done: map[string]time.Time{}, all: make(chan struct{})}
	for _, k := range keys {
		t.start[k] = time.Time{}
	}
	return t
}

// begin marks the moment the harness acts on key.
func (t *tracker) begin(key string) {
	t.mu.Lock()
	t.start[key] = time.Now()
	t.mu.Unlock()
}

func (t *tracker) observe(obj any) {
	o, ok := obj.(client.Object)
	if !ok {
		return
	}
	key := o.GetNamespace() + "/" + o.GetName()
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, want := t.start[key]; !want {
		return
	}
	if _, seen := t.done[key]; seen || !t.pred(o) {
		return
	}
	t.done[key] = time.Now()
	if t.onDone != nil {
		t.onDone(o)
	}
	if len(t.done) == len(t.start) {
		close(t.all)
	}
}

// watch feeds the tracker from inf until the returned function is called.
func (t *tracker) watch(inf cache.Informer) (func(), error) {
	reg, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    t.observe,
		UpdateFunc: func(_, obj any) { t.observe(obj) },
	})
	if err != nil {
		return nil, err
	}
	return func() { _ = inf.RemoveEventHandler(reg) }, nil
}

// wait blocks until every object satisfied pred, the timeout passed, or check failed.
func (t *tracker) wait(ctx context.Context, timeout time.Duration, check func() error) error {
	deadline := time.After(timeout)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-t.all:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline:
			t.mu.Lock()
			defer t.mu.Unlock()
			return fmt.Errorf("timed out after %s: %d of %d done", timeout, len(t.done), len(t.start))
		case <-tick.C:
			if err := check(); err != nil {
				return err
			}
		}
	}
}

// result is the per-object latencies and the span from the first action to the last completion.
func (t *tracker) result() (latency, time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var ds []time.Duration
	var first, last time.Time
	for k, s := range t.start {
		if first.IsZero() || s.Before(first) {
			first = s
		}
		if d, ok := t.done[k]; ok {
			ds = append(ds, d.Sub(s))
			if d.After(last) {
				last = d
			}
		}
	}
	return summarize(ds), last.Sub(first)
}
