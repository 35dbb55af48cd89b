package operator

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/internal/status"
	"github.com/webapp-operator/webapp-operator/internal/testenv"
)

// TestWithoutTheOptionalAPIs runs the operator against a control plane that has neither the Gateway
// API CRDs nor the Prometheus Operator's, which the other envtest suites install, so this test
// has a control plane of its own: a WebApp asking for a route, or for its metrics to be scraped, is
// Stalled and says why, with the rest of its children applied; one that asks for neither is Ready;
// and nothing else breaks (the manager starts, and its informers sync, without a kind the cluster
// does not serve).
func TestWithoutTheOptionalAPIs(t *testing.T) {
	env, err := testenv.Start(false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	cfg := env.Config

	// the metrics Service exists, but no ServiceMonitor is tried: the CRD is not served
	if err := createMetricsService(cfg); err != nil {
		t.Fatal(err)
	}
	mgr, err := NewManager(cfg, Options{Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		TerminalRecheck: time.Minute, MetricsService: types.NamespacedName{Namespace: "default", Name: DefaultMetricsService}})
	if err != nil {
		t.Fatalf("the manager must start without the Gateway API and the Prometheus Operator: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("the manager: %v", err)
		}
	})

	c := env.Client
	const ns = "default"
	routed := &webappv1.WebApp{ObjectMeta: metav1.ObjectMeta{Name: "routed", Namespace: ns},
		Spec: webappv1.WebAppSpec{Image: "example.com/shop:1.0", Route: &webappv1.Route{
			Hostnames: []string{"shop.example.com"}, ParentRefs: []webappv1.RouteParentRef{{Name: "public"}}}}}
	plain := &webappv1.WebApp{ObjectMeta: metav1.ObjectMeta{Name: "plain", Namespace: ns},
		Spec: webappv1.WebAppSpec{Image: "example.com/shop:1.0"}}
	monitored := &webappv1.WebApp{ObjectMeta: metav1.ObjectMeta{Name: "monitored", Namespace: ns},
		Spec: webappv1.WebAppSpec{Image: "example.com/shop:1.0",
			Ports:   []webappv1.ContainerPort{{Name: "metrics", ContainerPort: 9090}},
			Metrics: &webappv1.Metrics{Port: ptr.To(intstr.FromString("metrics"))}}}
	for _, app := range []*webappv1.WebApp{routed, plain, monitored} {
		if err := c.Create(ctx, app); err != nil {
			t.Fatal(err)
		}
	}

	// There is no kube-controller-manager: play the Deployment controller for the plain WebApp.
	eventually(t, "the plain WebApp's Deployment rolled out", func() error {
		d := &appsv1.Deployment{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(plain), d); err != nil {
			return err
		}
		n := ptr.Deref(d.Spec.Replicas, 1)
		d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: n, UpdatedReplicas: n,
			ReadyReplicas: n, AvailableReplicas: n, Conditions: []appsv1.DeploymentCondition{{
				Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: "MinimumReplicasAvailable",
				LastUpdateTime: metav1.Now(), LastTransitionTime: metav1.Now()}}}
		return c.Status().Update(ctx, d)
	})
	eventually(t, "the plain WebApp Ready", func() error {
		return wantCondition(ctx, c, plain, webappv1.ConditionReady, status.ReasonReady)
	})
	eventually(t, "the routed WebApp Stalled, saying the Gateway API is missing", func() error {
		return wantCondition(ctx, c, routed, webappv1.ConditionStalled, status.ReasonRouteAPIMissing)
	})
	got := &webappv1.WebApp{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(routed), got); err != nil {
		t.Fatal(err)
	}
	msg := meta.FindStatusCondition(got.Status.Conditions, webappv1.ConditionStalled).Message
	want := "the Gateway API (gateway.networking.k8s.io/v1 HTTPRoute), which spec.exposure.route needs, is not installed: install its CRDs, " +
		"then restart the operator, which looks for them only when it starts"
	if msg != want {
		t.Errorf("Stalled message %q, want %q", msg, want)
	}
	// the children before the route are there: the app runs, in the cluster, without its route
	for _, obj := range []client.Object{&appsv1.Deployment{}, &corev1.Service{}} {
		if err := c.Get(ctx, client.ObjectKeyFromObject(routed), obj); err != nil {
			t.Errorf("the routed WebApp's %T: %v", obj, err)
		}
	}

	eventually(t, "the monitored WebApp Stalled, saying the Prometheus Operator's API is missing", func() error {
		return wantCondition(ctx, c, monitored, webappv1.ConditionStalled, status.ReasonMonitoringAPIMissing)
	})
	if err := c.Get(ctx, client.ObjectKeyFromObject(monitored), got); err != nil {
		t.Fatal(err)
	}
	msg = meta.FindStatusCondition(got.Status.Conditions, webappv1.ConditionStalled).Message
	want = "the Prometheus Operator's API (monitoring.coreos.com/v1 ServiceMonitor), which spec.observability.metrics needs, is not " +
		"installed: install its CRDs, then restart the operator, which looks for them only when it starts"
	if msg != want {
		t.Errorf("Stalled message %q, want %q", msg, want)
	}
	// every other child is there, the Service with the metrics port: the app runs and is reachable
	if err := c.Get(ctx, client.ObjectKeyFromObject(monitored), &appsv1.Deployment{}); err != nil {
		t.Errorf("the monitored WebApp's Deployment: %v", err)
	}
	svc := &corev1.Service{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(monitored), svc); err != nil {
		t.Errorf("the monitored WebApp's Service: %v", err)
	} else if n := len(svc.Spec.Ports); n != 2 || svc.Spec.Ports[1].Name != "metrics" {
		t.Errorf("the monitored WebApp's Service has ports %+v, want http and metrics", svc.Spec.Ports)
	}
}

func wantCondition(ctx context.Context, c client.Client, app *webappv1.WebApp, condType, reason string) error {
	got := &webappv1.WebApp{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(app), got); err != nil {
		return err
	}
	cond := meta.FindStatusCondition(got.Status.Conditions, condType)
	if cond == nil || cond.Status != metav1.ConditionTrue || cond.Reason != reason {
		return fmt.Errorf("%s is %v, want True with reason %s", condType, cond, reason)
	}
	return nil
}

// eventually retries f for 30 s, every 100 ms.
func eventually(t *testing.T, what string, f func() error) {
	t.Helper()
	var err error
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if err = f(); err == nil {
			return
		}
	}
	t.Fatalf("%s: %v", what, err)
}

func createMetricsService(cfg *rest.Config) error {
	c, err := client.New(cfg, client.Options{Scheme: Scheme})
	if err != nil {
		return err
	}
	return c.Create(context.Background(), &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: DefaultMetricsService, Labels: metricsServiceLabels},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "https", Port: 8443}}},
	})
}
