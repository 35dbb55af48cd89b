package main

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/webapp-operator/webapp-operator/api/v1beta1"
	"github.com/webapp-operator/webapp-operator/internal/operator"
	"github.com/webapp-operator/webapp-operator/internal/resources"
)

// harness drives the cluster: a fast client for creating objects, and a cache of the WebApps
// and their children to time them by watching.
type harness struct {
	opts    options
	cluster *cluster
	cl      client.Client
	cache   cache.Cache
	// probeReplicas is the probe WebApp's spec.replicas (probe.go).
	probeReplicas int32
}

// benchNamespaces hold the WebApps, round-robin; otherNamespaces hold the unrelated objects.
var (
	benchNamespaces = []string{"bench-0", "bench-1", "bench-2", "bench-3"}
	otherNamespaces = []string{"other-0", "other-1", "other-2", "other-3"}
)

func newHarness(ctx context.Context, opts options, c *cluster) (*harness, error) {
	cfg := rest.CopyConfig(c.Config)
	cfg.QPS, cfg.Burst = 5000, 10000
	cl, err := client.New(cfg, client.Options{Scheme: operator.Scheme})
	if err != nil {
		return nil, err
	}
	ours := labels.SelectorFromSet(labels.Set{resources.LabelManagedBy: resources.ManagedBy})
	ca, err := cache.New(cfg, cache.Options{Scheme: operator.Scheme, ByObject: map[client.Object]cache.ByObject{
		&appsv1.Deployment{}:    {Label: ours},
		&corev1.Service{}:       {Label: ours},
		&corev1.Pod{}:           {Label: labels.SelectorFromSet(labels.Set{resources.LabelName: resources.AppName})},
		&networkingv1.Ingress{}: {Label: ours},
	}})
	if err != nil {
		return nil, err
	}
	for _, obj := range []client.Object{&v1beta1.WebApp{}, &appsv1.Deployment{}, &corev1.Service{}, &corev1.Pod{}} {
		if _, err := ca.GetInformer(ctx, obj); err != nil {
			return nil, err
		}
	}
	h := &harness{opts: opts, cluster: c, cl: cl, cache: ca}
	if err := h.playIngressController(ctx); err != nil {
		return nil, err
	}
	if c.gatewayAPI {
		if err := h.playGatewayController(ctx); err != nil {
			return nil, err
		}
	}
	go func() { _ = ca.Start(ctx) }()
	if !ca.WaitForCacheSync(ctx) {
		return nil, fmt.Errorf("the harness's cache did not sync")
	}
	for _, ns := range append(append([]string{probeNamespace}, benchNamespaces...), otherNamespaces...) {
		if err := cl.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// keys are the namespace/name of the n WebApps (or ceiling objects).
func keys(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s/app-%05d", benchNamespaces[i%len(benchNamespaces)], i)
	}
	return out
}

func splitKey(key string) (string, string) {
	for i := range key {
		if key[i] == '/' {
			return key[:i], key[i+1:]
		}
	}
	return "", key
}

// parallel runs fn for 0..n-1 on workers goroutines and returns the first error.
func parallel(ctx context.Context, workers, n int, fn func(ctx context.Context, i int) error) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for i := range n {
		if ctx.Err() != nil {
			break
		}
		g.Go(func() error { return fn(ctx, i) })
	}
	return g.Wait()
}

// retry retries fn on errors that a loaded API server may return under a burst.
func retry(ctx context.Context, fn func() error) error {
	var err error
	for attempt := range 6 {
		if err = fn(); err == nil || !transient(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(attempt+1) * 200 * time.Millisecond):
		}
	}
	return err
}

func transient(err error) bool {
	return apierrors.IsTooManyRequests(err) || apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err) ||
		apierrors.IsInternalError(err) || apierrors.IsServiceUnavailable(err)
}

// deleteWebApps deletes the WebApps of ks; the garbage collector then deletes their children.
func (h *harness) deleteWebApps(ctx context.Context, ks []string) error {
	return parallel(ctx, h.opts.Workers, len(ks), func(ctx context.Context, i int) error {
		ns, name := splitKey(ks[i])
		app := &v1beta1.WebApp{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
		return client.IgnoreNotFound(retry(ctx, func() error { return h.cl.Delete(ctx, app) }))
	})
}

// leftovers counts the bench WebApps and every object the operator's children consist of.
func (h *harness) leftovers(ctx context.Context) (int, error) {
	total := 0
	for _, list := range []client.ObjectList{
		&v1beta1.WebAppList{}, &appsv1.DeploymentList{}, &corev1.ServiceList{}, &corev1.PodList{},
	} {
		if err := h.cache.List(ctx, list); err != nil {
			return 0, err
		}
		total += meta.LenList(list)
	}
	return total, nil
}

// waitGone waits until nothing of the benchmark's WebApps is left, and returns how long it took
// from start.
func (h *harness) waitGone(ctx context.Context, start time.Time, check func() error) (time.Duration, error) {
	deadline := time.Now().Add(h.opts.Timeout)
	for {
		n, err := h.leftovers(ctx)
		if err != nil {
			return 0, err
		}
		if n == 0 {
			return time.Since(start), nil
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("timed out after %s: %d objects left", h.opts.Timeout, n)
		}
		if err := check(); err != nil {
			return 0, err
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}
