package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/webapp-operator/webapp-operator/internal/resources"
)

// The bench's cluster runs no ingress controller and no Gateway API implementation, and a WebApp with
// an Ingress or an HTTPRoute is Ready only once they report on it. The harness plays both, as the
// controllers of a real cluster do: it gives every Ingress of the operator's an address, and accepts
// every HTTPRoute for its current generation, through the status subresource. Its requests are the
// harness's, not the operator's, so they count in none of the operator's figures.

const (
	benchIngressIP       = "192.0.2.10" // TEST-NET-1: documentation only, never routed
	benchGatewayCtrlName = "bench.webapp-operator.io/gateway"
)

// statusPlayer writes a status on the objects of one informer that need one.
type statusPlayer struct {
	name  string
	queue workqueue.TypedInterface[types.NamespacedName]
	// needs reports whether obj still lacks the status, and write gives it.
	needs func(obj any) bool
	write func(ctx context.Context, key types.NamespacedName) error
}

func (p *statusPlayer) start(ctx context.Context, inf cache.Informer, workers int) error {
	enqueue := func(obj any) {
		if o, ok := obj.(client.Object); ok && p.needs(obj) {
			p.queue.Add(client.ObjectKeyFromObject(o))
		}
	}
	if _, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, obj any) { enqueue(obj) },
	}); err != nil {
		return err
	}
	go func() {
		<-ctx.Done()
		p.queue.ShutDown()
	}()
	for range workers {
		go func() {
			for {
				key, quit := p.queue.Get()
				if quit {
					return
				}
				if err := retry(ctx, func() error { return p.write(ctx, key) }); err != nil &&
					!apierrors.IsNotFound(err) && ctx.Err() == nil {
					step("[%s] status of %s: %v (retrying)", p.name, key, err)
					time.AfterFunc(time.Second, func() { p.queue.Add(key) })
				}
				p.queue.Done(key)
			}
		}()
	}
	return nil
}

// playIngressController gives every Ingress without an address the bench's address.
func (h *harness) playIngressController(ctx context.Context) error {
	inf, err := h.cache.GetInformer(ctx, &networkingv1.Ingress{})
	if err != nil {
		return err
	}
	patch := client.RawPatch(types.MergePatchType,
		fmt.Appendf(nil, `{"status":{"loadBalancer":{"ingress":[{"ip":%q}]}}}`, benchIngressIP))
	p := &statusPlayer{name: "ingress controller", queue: workqueue.NewTyped[types.NamespacedName](),
		needs: func(obj any) bool {
			ing, ok := obj.(*networkingv1.Ingress)
			return ok && len(ing.Status.LoadBalancer.Ingress) == 0
		},
		write: func(ctx context.Context, key types.NamespacedName) error {
			ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}}
			return h.cl.Status().Patch(ctx, ing, patch)
		},
	}
	return p.start(ctx, inf, 4)
}

// playGatewayController accepts every HTTPRoute that names the bench's Gateway, for its generation.
func (h *harness) playGatewayController(ctx context.Context) error {
	inf, err := h.cache.GetInformer(ctx, newRoute())
	if err != nil {
		return err
	}
	p := &statusPlayer{name: "gateway controller", queue: workqueue.NewTyped[types.NamespacedName](),
		needs: func(obj any) bool {
			u, ok := obj.(*unstructured.Unstructured)
			return ok && !routeAccepted(u)
		},
		write: func(ctx context.Context, key types.NamespacedName) error {
			u := newRoute()
			if err := h.cl.Get(ctx, key, u); err != nil {
				return err
			}
			if routeAccepted(u) {
				return nil
			}
			return h.cl.Status().Patch(ctx, u, client.RawPatch(types.MergePatchType, routeStatusPatch(u.GetGeneration())))
		},
	}
	return p.start(ctx, inf, 4)
}

func newRoute() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(resources.HTTPRouteGVK)
	return u
}

// routeAccepted: the bench's Gateway reported the route Accepted for its current generation.
func routeAccepted(u *unstructured.Unstructured) bool {
	parents, _, _ := unstructured.NestedSlice(u.Object, "status", "parents")
	for _, p := range parents {
		ps, _ := p.(map[string]any)
		conds, _, _ := unstructured.NestedSlice(ps, "conditions")
		for _, c := range conds {
			cm, _ := c.(map[string]any)
			gen, _, _ := unstructured.NestedInt64(cm, "observedGeneration")
			if cm["type"] == "Accepted" && cm["status"] == "True" && gen == u.GetGeneration() {
				return true
			}
		}
	}
	return false
}

// routeStatusPatch is the status a Gateway's controller writes on a route it accepts at generation gen.
func routeStatusPatch(gen int64) []byte {
	now := metav1.Now().UTC().Format(time.RFC3339)
	cond := func(t, reason string) map[string]any {
		return map[string]any{"type": t, "status": "True", "reason": reason, "message": "accepted by the bench",
			"observedGeneration": gen, "lastTransitionTime": now}
	}
	data, _ := json.Marshal(map[string]any{"status": map[string]any{"parents": []any{map[string]any{
		"parentRef":      map[string]any{"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": benchGateway},
		"controllerName": benchGatewayCtrlName,
		"conditions":     []any{cond("Accepted", "Accepted"), cond("ResolvedRefs", "ResolvedRefs")},
	}}}})
	return data
}
