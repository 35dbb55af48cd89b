package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/webapp-operator/webapp-operator/api/v1beta1"
)

// The probe measures what one user waits for while the operator is busy with many others: with N
// WebApps being created or changed, one more WebApp is edited at a steady pace, and each edit is
// timed until its Deployment carries it. The edit toggles spec.replicas between 1 and 2: it renders
// a different Deployment without a rollout, so the probe adds little load. Edits never overlap (the
// next waits for the last to land), so each one's Deployment is told from the one before.
//
// The probe's WebApp lives in a namespace of its own, so that the audit log tells the operator's
// requests about it from those about the N WebApps (auditRecord.probe): they are counted apart and
// left out of every per-WebApp figure.

const (
	probeNamespace = "bench-probe"
	probeName      = "probe"
)

// probeKey is the probe WebApp's namespace/name.
var probeKey = probeNamespace + "/" + probeName

// probe edits the probe WebApp every interval until stopped, and times each edit.
type probe struct {
	h        *harness
	interval time.Duration
	replicas int32 // what the last edit set

	mu     sync.Mutex
	want   int32         // the replicas the pending edit waits for (1 or 2); 0: none pending
	landed chan struct{} // closed when the pending edit's Deployment is seen
	seen   time.Time     // when it was seen
	edits  []editTimes
}

// startProbe edits the probe WebApp every interval from now until the returned function is called;
// that function waits for the last edit to land and returns the edits' times. replicas is the probe
// WebApp's current spec.replicas.
func (h *harness) startProbe(ctx context.Context, interval time.Duration, replicas int32,
) (stop func() ([]editTimes, int32, error), err error) {
	inf, err := h.cache.GetInformer(ctx, &appsv1.Deployment{})
	if err != nil {
		return nil, err
	}
	p := &probe{h: h, interval: interval, replicas: replicas}
	reg, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    p.observe,
		UpdateFunc: func(_, obj any) { p.observe(obj) },
	})
	if err != nil {
		return nil, err
	}
	pctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- p.loop(pctx, ctx) }()
	return func() ([]editTimes, int32, error) {
		cancel()
		err := <-done
		_ = inf.RemoveEventHandler(reg)
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.edits, p.replicas, err
	}, nil
}

// loop edits until pctx ends; the edit in flight then still lands, under ctx.
func (p *probe) loop(pctx, ctx context.Context) error {
	for pctx.Err() == nil {
		next := time.Now().Add(p.interval)
		if err := p.edit(ctx); err != nil {
			return err
		}
		select {
		case <-pctx.Done():
		case <-time.After(time.Until(next)):
		}
	}
	return nil
}

// edit toggles the probe's replicas and waits until its Deployment carries them.
func (p *probe) edit(ctx context.Context) error {
	target := toggled(p.replicas)
	landed := make(chan struct{})
	p.mu.Lock()
	p.want, p.landed = target, landed
	p.mu.Unlock()
	start := time.Now()
	patch := client.RawPatch(types.MergePatchType, fmt.Appendf(nil, `{"spec":{"replicas":%d}}`, target))
	app := probeApp()
	if err := retry(ctx, func() error { return p.h.cl.Patch(ctx, app, patch) }); err != nil {
		return fmt.Errorf("probe: %w", err)
	}
	patched := time.Now()
	select {
	case <-landed:
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(p.h.opts.Timeout):
		return fmt.Errorf("probe: its Deployment did not get %d replicas within %s", target, p.h.opts.Timeout)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.edits = append(p.edits, editTimes{sent: start, patched: patched, seen: p.seen})
	p.replicas = target
	return nil
}

// toggled is the replicas an edit sets after replicas: 2 after 1, 1 after 2. Never 0, which would
// scale the probe away; whatever else replicas is, 2, which differs from it.
func toggled(replicas int32) int32 {
	if replicas == 2 {
		return 1
	}
	return 2
}

// observe notes the time and closes the pending edit's channel when the probe's Deployment carries
// its replicas.
func (p *probe) observe(obj any) {
	d, ok := obj.(*appsv1.Deployment)
	if !ok || d.Namespace != probeNamespace || d.Name != probeName {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.want != 0 && ptr.Deref(d.Spec.Replicas, 1) == p.want {
		p.want, p.seen = 0, time.Now()
		close(p.landed)
	}
}

// probeApp is the probe WebApp's identity, for patching and deleting it.
func probeApp() *v1beta1.WebApp {
	return &v1beta1.WebApp{ObjectMeta: metav1.ObjectMeta{Namespace: probeNamespace, Name: probeName}}
}

// createProbe creates the probe WebApp with one replica and waits until it is Ready.
func (h *harness) createProbe(ctx context.Context, check func() error) error {
	app := probeApp()
	app.Spec = webAppSpec(probeName, 1, nil)
	_, _, err := h.timed(ctx, &v1beta1.WebApp{}, []string{probeKey}, webAppReady(imageV1), check,
		func(ctx context.Context, _ string) error {
			return retry(ctx, func() error { return h.cl.Create(ctx, app) })
		})
	if err != nil {
		return fmt.Errorf("probe: %w", err)
	}
	h.probeReplicas = 1
	return nil
}

// editLatencies are the edits' times from sent to seen.
func editLatencies(edits []editTimes) []time.Duration {
	out := make([]time.Duration, len(edits))
	for i, e := range edits {
		out[i] = e.seen.Sub(e.sent)
	}
	return out
}
