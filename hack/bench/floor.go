package main

import (
	"cmp"
	"context"
	"fmt"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/webapp-operator/webapp-operator/api/v1beta1"
	"github.com/webapp-operator/webapp-operator/internal/resources"
	"github.com/webapp-operator/webapp-operator/internal/served"
	"github.com/webapp-operator/webapp-operator/internal/status"
)

// floor times what the ceiling does plus the requests the operator's behaviour cannot do without,
// sent by the harness with no operator running: it creates each WebApp, applies the children the
// operator renders for it (owned by it, as the operator's are), and once its Deployment is
// Available writes the status the operator would (status.Compute) in one patch and records one
// event, as the operator does when a WebApp first becomes Ready. It times the WebApps until Ready,
// as a run does. It reads nothing back, decides nothing and waits for no reconcile: it is the best
// any operator that keeps the Ready condition and its event could do on this control plane, so the
// operator's create total over it is what the operator itself costs, and the floor over the ceiling
// is what those requests cost.
func (h *harness) floor(ctx context.Context, n int) (phase, error) {
	ks := keys(n)
	step("[floor] create %d WebApps and their children from the harness, with their status and event", n)
	created := sync.Map{} // key -> *v1beta1.WebApp, as its create returned it
	inf, err := h.cache.GetInformer(ctx, &appsv1.Deployment{})
	if err != nil {
		return phase{}, err
	}
	available := make(chan *appsv1.Deployment, n) // buffered for every key: onDone never blocks
	deployments := newTracker(ks, deploymentAvailable)
	deployments.onDone = func(o client.Object) { available <- o.(*appsv1.Deployment) }
	stop, err := deployments.watch(inf)
	if err != nil {
		return phase{}, err
	}
	defer stop()
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex
	var writeErr error // the first error of a status writer, which fails the wait below
	var writers sync.WaitGroup
	for range h.opts.Workers {
		writers.Go(func() {
			for {
				select {
				case <-wctx.Done():
					return
				case d := <-available:
					app, ok := created.Load(d.Namespace + "/" + d.Name)
					err := fmt.Errorf("deployment %s/%s is Available before its WebApp was created", d.Namespace, d.Name)
					if ok {
						err = h.markReady(wctx, app.(*v1beta1.WebApp), d)
					}
					if err != nil {
						mu.Lock()
						writeErr = cmp.Or(writeErr, err)
						mu.Unlock()
						return
					}
				}
			}
		})
	}
	check := func() error {
		mu.Lock()
		defer mu.Unlock()
		return cmp.Or(writeErr, h.cluster.Check())
	}
	lat, total, err := h.timed(ctx, &v1beta1.WebApp{}, ks, webAppReady(imageV1), check,
		func(ctx context.Context, key string) error { return h.createWithChildren(ctx, key, &created) })
	cancel()
	writers.Wait()
	if err != nil {
		return phase{}, fmt.Errorf("floor: %w", err)
	}
	step("[floor]    all Ready in %s; cleaning up", total.Round(time.Millisecond))
	start := time.Now()
	err = h.deleteWebApps(ctx, ks)
	if err == nil {
		_, err = h.waitGone(ctx, start, h.cluster.Check)
	}
	return phase{Total: total, Latency: lat}, err
}

// createWithChildren creates the WebApp of key as a run does, stores it in created (before its
// Deployment exists, so before it can be Available), and applies what the operator would render for
// it, owner reference included.
func (h *harness) createWithChildren(ctx context.Context, key string, created *sync.Map) error {
	ns, name := splitKey(key)
	app := &v1beta1.WebApp{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: webAppSpec(name, 1, nil)}
	if err := retry(ctx, func() error { return h.cl.Create(ctx, app) }); err != nil {
		return err
	}
	created.Store(key, app.DeepCopy()) // the status writer changes its copy while this goroutine applies
	hub, err := toHub(app)
	if err != nil {
		return err
	}
	for _, child := range resources.All {
		desired, err := child.Desired(hub)
		if err != nil {
			return err
		}
		if desired == nil {
			continue
		}
		if err := retry(ctx, func() error {
			return h.cl.Apply(ctx, desired, client.FieldOwner("bench-floor"), client.ForceOwnership)
		}); err != nil {
			return err
		}
	}
	return nil
}

// toHub is app as the operator reads it (served.Decode).
func toHub(app *v1beta1.WebApp) (*v1beta1.WebApp, error) {
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(app)
	if err != nil {
		return nil, err
	}
	return served.Decode(obj)
}

// markReady writes the status the operator computes for app once d is Available, and its event.
func (h *harness) markReady(ctx context.Context, app *v1beta1.WebApp, d *appsv1.Deployment) error {
	hub, err := toHub(app) // the form the operator reads it in
	if err != nil {
		return err
	}
	obs := status.Observation{Selector: resources.Selector(hub), URL: resources.URL(hub), Deployment: d}
	for _, child := range resources.All {
		if desired, err := child.Desired(hub); err != nil || desired == nil {
			continue
		}
		live := child.New()
		if child.Kind() == resources.Deployment.Kind() {
			live = d
		} else if err := h.cached(ctx, client.ObjectKeyFromObject(app), live); err != nil {
			return err
		}
		obs.Children = append(obs.Children, child.Health(hub, live))
	}
	now := metav1.Now()
	hub.Status = status.Compute(hub, obs, now)
	ready := meta.FindStatusCondition(hub.Status.Conditions, v1beta1.ConditionReady)
	if ready == nil || ready.Status != metav1.ConditionTrue {
		return fmt.Errorf("floor: the status of %s/%s is not Ready: %+v", app.Namespace, app.Name, ready)
	}
	before := app.DeepCopy()
	app.Status = hub.Status
	if err := retry(ctx, func() error { return h.cl.Status().Patch(ctx, app, client.MergeFrom(before)) }); err != nil {
		return err
	}
	ev := &eventsv1.Event{
		ObjectMeta: metav1.ObjectMeta{Namespace: app.Namespace, Name: fmt.Sprintf("%s.%x", app.Name, now.UnixNano())},
		EventTime:  metav1.NewMicroTime(now.Time), Type: corev1.EventTypeNormal, Reason: ready.Reason,
		Note: ready.Message, Action: "Reconcile", ReportingController: "bench-floor", ReportingInstance: "bench-floor",
		Regarding: corev1.ObjectReference{APIVersion: v1beta1.GroupVersion.String(), Kind: "WebApp",
			Namespace: app.Namespace, Name: app.Name, UID: app.UID},
	}
	return retry(ctx, func() error { return h.cl.Create(ctx, ev) })
}

// cached waits until the harness's cache holds key (the apply has been answered, so it will) and
// reads it into obj.
func (h *harness) cached(ctx context.Context, key client.ObjectKey, obj client.Object) error {
	return wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, h.opts.Timeout, true,
		func(ctx context.Context) (bool, error) {
			err := h.cache.Get(ctx, key, obj)
			return err == nil, client.IgnoreNotFound(err)
		})
}
