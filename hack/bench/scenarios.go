package main

import (
	"cmp"
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/webapp-operator/webapp-operator/api/v1beta1"
	"github.com/webapp-operator/webapp-operator/internal/resources"
)

const (
	imageV1 = "registry.invalid/bench/app:v1"
	imageV2 = "registry.invalid/bench/app:v2"
)

// runSpec is one row of the matrix.
type runSpec struct {
	N, Concurrency, QPS, Burst, Unrelated int
	// Replicas of each WebApp (0 counts as 1), and the optional children it has.
	Replicas int
	Features featureSet
}

func (s runSpec) String() string {
	return fmt.Sprintf("N=%d concurrency=%d qps=%d burst=%d unrelated=%d replicas=%d features=%s", s.N, s.Concurrency,
		s.QPS, s.Burst, s.Unrelated, s.replicas(), s.Features)
}

func (s runSpec) replicas() int32 { return int32(max(s.Replicas, 1)) }

// phase is what one scenario measured.
type phase struct {
	Total      time.Duration
	Latency    latency // per object; Count 0 where not measured
	Requests   map[string]float64
	Reconciles float64
	CPU        time.Duration
	RSS, HWM   uint64
	Elapsed    time.Duration      // wall time of the measurement window
	ByReason   map[string]float64 // the operator's requests by code path (the API server's audit log)
	// Probe is the operator's requests about the probe's WebApp (probe.go) by code path, left out of
	// Requests and ByReason; Edits times the probe's edits made during the scenario, and EditSteps
	// splits them into their steps (editsteps.go).
	Probe     map[string]float64
	Edits     latency
	EditSteps editSteps
}

func measure(before, after snapshot) phase {
	return phase{
		Requests:   delta(before.requests, after.requests),
		Reconciles: after.reconciles - before.reconciles,
		CPU:        after.proc.CPU - before.proc.CPU,
		RSS:        after.proc.RSS,
		HWM:        after.proc.HWM,
		Elapsed:    after.at.Sub(before.at),
	}
}

// writes counts the operator's write requests in the window, the probe's included: while nothing
// changes, the probe's WebApp must cost no write either.
func (p phase) writes() float64 { return writes(p.Requests) + writes(byMethod(p.Probe)) }

// measure is measure() with the audit log's breakdown of the same window. The operator's requests
// about the probe's WebApp (probe.go) are counted apart, in Probe, and left out of Requests too, so
// that the per-WebApp figures are the N WebApps' alone.
func (h *harness) measure(before, after snapshot) (phase, error) {
	p := measure(before, after)
	var err error
	p.ByReason, p.Probe, err = h.cluster.audit.between(before.at, after.at)
	if len(p.Probe) > 0 {
		p.Requests = delta(byMethod(p.Probe), p.Requests)
	}
	return p, err
}

// runResult is one row's measurements.
type runResult struct {
	Spec                                          runSpec
	Create, Steady, Resync, Update, Scale, Delete phase
	// Scaled: the run has a scale scenario (its WebApps have no autoscaler, which would own the replicas).
	Scaled bool
	// LiveHeap is the operator's live heap after the steady window (liveHeap), 0 when unread.
	LiveHeap              uint64
	LoadBefore, LoadAfter string
	Wall                  time.Duration
	Err                   error
}

// webAppReady: the WebApp runs image and is Ready for its generation; with an autoscaler, the
// autoscaler has also reported whether it can scale (the WebApp's Autoscaling condition is no longer
// Unknown), which the HPA controller does within moments of its creation: without waiting for it, that
// status write would land in the steady state.
func webAppReady(image string) func(client.Object) bool {
	return func(o client.Object) bool {
		app := o.(*v1beta1.WebApp)
		if app.Spec.Container.Image != image || app.Status.ObservedGeneration != app.Generation {
			return false
		}
		c := meta.FindStatusCondition(app.Status.Conditions, v1beta1.ConditionReady)
		if c == nil || c.Status != metav1.ConditionTrue || c.ObservedGeneration != app.Generation {
			return false
		}
		if app.Spec.Scaling.Autoscaler == nil {
			return true
		}
		a := meta.FindStatusCondition(app.Status.Conditions, v1beta1.ConditionAutoscaling)
		return a != nil && a.Status != metav1.ConditionUnknown && a.ObservedGeneration == app.Generation
	}
}

// webAppScaled: the WebApp asks for replicas and is Ready for its generation, with that many replicas
// ready and available.
func webAppScaled(replicas int32) func(client.Object) bool {
	return func(o client.Object) bool {
		app := o.(*v1beta1.WebApp)
		if ptr.Deref(app.Spec.Replicas, 1) != replicas || app.Status.ObservedGeneration != app.Generation ||
			app.Status.AvailableReplicas != replicas || app.Status.ReadyReplicas != replicas {
			return false
		}
		c := meta.FindStatusCondition(app.Status.Conditions, v1beta1.ConditionReady)
		return c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == app.Generation
	}
}

// deploymentScaled: the Deployment asks for replicas and has them all available.
func deploymentScaled(replicas int32) func(client.Object) bool {
	return func(o client.Object) bool {
		return ptr.Deref(o.(*appsv1.Deployment).Spec.Replicas, 1) == replicas && deploymentAvailable(o)
	}
}

func deploymentAvailable(o client.Object) bool {
	d := o.(*appsv1.Deployment)
	want := ptr.Deref(d.Spec.Replicas, 1)
	s := d.Status
	return s.ObservedGeneration == d.Generation && s.Replicas == want && s.UpdatedReplicas == want &&
		s.AvailableReplicas == want && s.ReadyReplicas == want
}

// run measures scenarios 1-5 for one spec, with the operator as a separate process.
func (h *harness) run(ctx context.Context, spec runSpec, tag string) (res runResult) {
	res.Spec = spec
	res.LoadBefore = loadAverage()
	began := time.Now()
	defer func() {
		res.LoadAfter = loadAverage()
		res.Wall = time.Since(began)
	}()
	settings := operatorSettings{Concurrency: spec.Concurrency, QPS: spec.QPS, Burst: spec.Burst,
		MemoryLimit: h.opts.MemoryLimit}
	op, err := startOperator(ctx, h.opts.Manager, h.cluster.Kubeconfig, h.opts.StateDir, operatorName(tag, 1), settings)
	if err != nil {
		res.Err = err
		return res
	}
	defer func() { op.Stop() }()
	check := func() error {
		if err := h.cluster.Check(); err != nil {
			return err
		}
		_, err := op.Exited()
		return err
	}
	ks := keys(spec.N)
	fail := func(scenario string, err error) runResult {
		res.Err = fmt.Errorf("%s: %w", scenario, err)
		return res
	}

	// The probe's WebApp, before anything is counted: its requests are counted apart anyway.
	if h.opts.Probe > 0 {
		if err := h.createProbe(ctx, check); err != nil {
			return fail("probe", err)
		}
		if _, err := op.settle(ctx, h.opts.Timeout, check); err != nil {
			return fail("probe", err)
		}
	}

	// 1. create every WebApp, until every one is Ready.
	step("[%s] 1. create %d WebApps", tag, spec.N)
	before, err := op.snapshot()
	if err != nil {
		return fail("create", err)
	}
	create := func(ctx context.Context, key string) error {
		ns, name := splitKey(key)
		app := &v1beta1.WebApp{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: webAppSpec(name, spec.replicas(), spec.Features)}
		return retry(ctx, func() error { return h.cl.Create(ctx, app) })
	}
	var after snapshot
	if res.Create, after, err = h.webAppPhase(ctx, op, before, ks, webAppReady(imageV1), true, check, create); err != nil {
		return fail("create", err)
	}
	step("[%s]    all Ready in %s", tag, res.Create.Total.Round(time.Millisecond))

	// 2a. steady state: nothing changes, so the operator must not write.
	step("[%s] 2. steady state for %s", tag, h.opts.Steady)
	if err := sleepChecked(ctx, h.opts.Steady, check); err != nil {
		return fail("steady", err)
	}
	steadyEnd, err := op.snapshot()
	if err != nil {
		return fail("steady", err)
	}
	if res.Steady, err = h.measure(after, steadyEnd); err != nil {
		return fail("steady", err)
	}
	res.Steady.Total = res.Steady.Elapsed
	// After the steady window, not before: the profile's garbage collection would count as the
	// steady state's CPU. Nothing changed in the window, so the cache holds what create left.
	if path := heapProfile(h.opts.StateDir, tag, "after-steady"); op.saveHeap(path) == nil {
		step("[%s]    heap profile after create and steady state: %s", tag, path)
		if res.LiveHeap, err = op.liveHeap(); err == nil {
			step("[%s]    live heap: %s, %s per WebApp", tag, heapMiB(res.LiveHeap), perWebApp(res.LiveHeap, spec.N))
		}
	}

	// 2b. forced resync: a restarted operator reconciles every WebApp from scratch.
	step("[%s]    forced resync: restarting the operator", tag)
	op.Stop()
	op, err = startOperator(ctx, h.opts.Manager, h.cluster.Kubeconfig, h.opts.StateDir, operatorName(tag, 2),
		settings)
	if err != nil {
		return fail("resync", err)
	}
	var resynced snapshot
	drained := func(context.Context) (bool, error) {
		if err := check(); err != nil {
			return false, err
		}
		s, err := op.snapshot()
		if err != nil {
			return false, nil
		}
		resynced = s
		return s.reconciles >= float64(spec.N) && s.depth == 0, nil
	}
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, h.opts.Timeout, true, drained)
	if err != nil {
		return fail("resync", err)
	}
	resyncTime := resynced.at.Sub(op.started)
	// Count what the restarted operator sends until it is idle, so a late write is not missed.
	if resynced, err = op.settle(ctx, h.opts.Timeout, check); err != nil {
		return fail("resync", err)
	}
	if res.Resync, err = h.measure(zeroSnapshot(op.started), resynced); err != nil {
		return fail("resync", err)
	}
	res.Resync.Total = resyncTime
	step("[%s]    %d reconciles in %s, %v writes in steady state and resync", tag, int(res.Resync.Reconciles),
		res.Resync.Total.Round(time.Millisecond), res.Steady.writes()+res.Resync.writes())

	// 3. change the image of every WebApp, until every one rolled and is Ready again.
	step("[%s] 3. change the image of %d WebApps", tag, spec.N)
	patch := client.RawPatch(types.MergePatchType, fmt.Appendf(nil, `{"spec":{"container":{"image":%q}}}`, imageV2))
	change := func(ctx context.Context, key string) error {
		ns, name := splitKey(key)
		app := &v1beta1.WebApp{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
		return retry(ctx, func() error { return h.cl.Patch(ctx, app, patch) })
	}
	var updated snapshot
	if res.Update, updated, err = h.webAppPhase(ctx, op, resynced, ks, webAppReady(imageV2), true, check,
		change); err != nil {
		return fail("image change", err)
	}
	step("[%s]    all rolled and Ready in %s", tag, res.Update.Total.Round(time.Millisecond))

	// 4. scale every WebApp up by one replica, until every one is Ready with them available.
	if res.Scaled = !spec.Features.has("hpa"); res.Scaled {
		step("[%s] 4. scale %d WebApps to %d replicas", tag, spec.N, spec.replicas()+1)
		if res.Scale, updated, err = h.scalePhase(ctx, op, updated, ks, spec.replicas()+1, check); err != nil {
			return fail("scale", err)
		}
		step("[%s]    all scaled and Ready in %s", tag, res.Scale.Total.Round(time.Millisecond))
	}

	// 5. delete every WebApp, until no child (Deployment, Service, pod) is left.
	step("[%s] 5. delete %d WebApps", tag, spec.N)
	start := time.Now()
	if h.opts.Probe > 0 {
		ks = append(ks, probeKey)
	}
	err = h.deleteWebApps(ctx, ks)
	if err != nil {
		return fail("delete", err)
	}
	total, err := h.waitGone(ctx, start, check)
	if err != nil {
		return fail("delete", err)
	}
	deleted, err := op.settle(ctx, h.opts.Timeout, check)
	if err != nil {
		return fail("delete", err)
	}
	if res.Delete, err = h.measure(updated, deleted); err != nil {
		return fail("delete", err)
	}
	res.Delete.Total = total
	step("[%s]    nothing left after %s", tag, total.Round(time.Millisecond))
	return res
}

// webAppPhase acts on every WebApp and times it until each satisfies done; it counts the operator's
// work from before until the operator is idle again, which it returns. With probe (and the probe
// on: probe.go), the probe edits its WebApp from the first action until every WebApp is done.
func (h *harness) webAppPhase(ctx context.Context, op *operatorProc, before snapshot, ks []string,
	done func(client.Object) bool, probe bool, check func() error, act func(context.Context, string) error,
) (phase, snapshot, error) {
	stopProbe := func() ([]editTimes, int32, error) { return nil, h.probeReplicas, nil }
	if probe && h.opts.Probe > 0 {
		var err error
		if stopProbe, err = h.startProbe(ctx, h.opts.Probe, h.probeReplicas); err != nil {
			return phase{}, snapshot{}, err
		}
	}
	lat, total, err := h.timed(ctx, &v1beta1.WebApp{}, ks, done, check, act)
	edits, replicas, probeErr := stopProbe()
	h.probeReplicas = replicas
	if err = cmp.Or(err, probeErr); err != nil {
		return phase{}, snapshot{}, err
	}
	after, err := op.settle(ctx, h.opts.Timeout, check)
	if err != nil {
		return phase{}, snapshot{}, err
	}
	p, err := h.measure(before, after)
	if err != nil {
		return phase{}, snapshot{}, err
	}
	p.Latency, p.Total, p.Edits = lat, total, summarize(editLatencies(edits))
	if len(edits) > 0 {
		applies, err := h.cluster.audit.probeApplies(edits[0].sent, edits[len(edits)-1].seen)
		if err != nil {
			return phase{}, snapshot{}, err
		}
		p.EditSteps = splitEdits(edits, applies)
	}
	return p, after, nil
}

// scalePhase sets every WebApp's spec.replicas to replicas, until each is Ready for its new
// generation with that many replicas available. The probe stays off: the scale is measured alone.
func (h *harness) scalePhase(ctx context.Context, op *operatorProc, before snapshot, ks []string, replicas int32,
	check func() error) (phase, snapshot, error) {
	patch := client.RawPatch(types.MergePatchType, fmt.Appendf(nil, `{"spec":{"replicas":%d}}`, replicas))
	scale := func(ctx context.Context, key string) error {
		ns, name := splitKey(key)
		app := &v1beta1.WebApp{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
		return retry(ctx, func() error { return h.cl.Patch(ctx, app, patch) })
	}
	return h.webAppPhase(ctx, op, before, ks, webAppScaled(replicas), false, check, scale)
}

// timed acts on every key with the harness's workers and waits until the informer of obj saw
// every key satisfy pred.
func (h *harness) timed(ctx context.Context, obj client.Object, ks []string, pred func(client.Object) bool,
	check func() error, act func(context.Context, string) error) (latency, time.Duration, error) {
	inf, err := h.cache.GetInformer(ctx, obj)
	if err != nil {
		return latency{}, 0, err
	}
	tr := newTracker(ks, pred)
	stop, err := tr.watch(inf)
	if err != nil {
		return latency{}, 0, err
	}
	defer stop()
	err = parallel(ctx, h.opts.Workers, len(ks), func(ctx context.Context, i int) error {
		tr.begin(ks[i])
		return act(ctx, ks[i])
	})
	if err == nil {
		err = tr.wait(ctx, h.opts.Timeout, check)
	}
	lat, total := tr.result()
	return lat, total, err
}

// ceiling creates the same Deployments and Services the operator would, straight from the
// harness's client with no operator running, and times them until every Deployment is Available:
// what the control plane, the scheduler and kwok can do at best. It then scales every Deployment to
// 2 replicas, one patch each, and times that until each has both available: the scale ceiling.
func (h *harness) ceiling(ctx context.Context, n int) (create, scale phase, err error) {
	ks := keys(n)
	step("[ceiling] create %d Deployments and Services directly", n)
	create.Latency, create.Total, err = h.timed(ctx, &appsv1.Deployment{}, ks, deploymentAvailable, h.cluster.Check,
		h.applyCeiling)
	if err != nil {
		return create, scale, fmt.Errorf("ceiling: %w", err)
	}
	step("[ceiling]    all Available in %s; scaling them to 2 replicas", create.Total.Round(time.Millisecond))
	patch := client.RawPatch(types.MergePatchType, []byte(`{"spec":{"replicas":2}}`))
	scale.Latency, scale.Total, err = h.timed(ctx, &appsv1.Deployment{}, ks, deploymentScaled(2), h.cluster.Check,
		func(ctx context.Context, key string) error {
			ns, name := splitKey(key)
			d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
			return retry(ctx, func() error { return h.cl.Patch(ctx, d, patch) })
		})
	if err != nil {
		return create, scale, fmt.Errorf("scale ceiling: %w", err)
	}
	step("[ceiling]    all scaled in %s; cleaning up", scale.Total.Round(time.Millisecond))
	start := time.Now()
	err = parallel(ctx, h.opts.Workers, len(ks), func(ctx context.Context, i int) error {
		ns, name := splitKey(ks[i])
		for _, child := range resources.All {
			obj := child.New()
			obj.SetNamespace(ns)
			obj.SetName(name)
			// a cluster without the Gateway API or the Prometheus Operator has no HTTPRoutes or ServiceMonitors to delete
			if err := retry(ctx, func() error { return h.cl.Delete(ctx, obj) }); err != nil && !apierrors.IsNotFound(err) &&
				!meta.IsNoMatchError(err) {
				return err
			}
		}
		return nil
	})
	if err == nil {
		_, err = h.waitGone(ctx, start, h.cluster.Check)
	}
	return create, scale, err
}

// applyCeiling applies the children the operator would render for the WebApp of key, with one
// replica and no owner.
func (h *harness) applyCeiling(ctx context.Context, key string) error {
	ns, name := splitKey(key)
	app := &v1beta1.WebApp{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: v1beta1.WebAppSpec{Container: v1beta1.AppContainer{Image: imageV1}, Replicas: ptr.To[int32](1)}}
	for _, child := range resources.All {
		obj, err := ceilingObject(child, app)
		if err != nil || obj == nil {
			return err
		}
		if err := retry(ctx, func() error {
			return h.cl.Apply(ctx, obj, client.FieldOwner("bench-ceiling"), client.ForceOwnership)
		}); err != nil {
			return err
		}
	}
	return nil
}

// ceilingObject is the object the operator would apply for child, without the owner reference (no
// WebApp exists to own it); nil when the WebApp wants none.
func ceilingObject(child resources.Child, app *v1beta1.WebApp) (runtime.ApplyConfiguration, error) {
	hub, err := toHub(app)
	if err != nil {
		return nil, err
	}
	desired, err := child.Desired(hub)
	if err != nil || desired == nil {
		return nil, err
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(desired)
	if err != nil {
		return nil, err
	}
	obj := &unstructured.Unstructured{Object: u}
	obj.SetOwnerReferences(nil)
	return client.ApplyConfigurationFromUnstructured(obj), nil
}

func sleepChecked(ctx context.Context, d time.Duration, check func() error) error {
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		if err := check(); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(min(time.Second, time.Until(end))):
		}
	}
	return nil
}
