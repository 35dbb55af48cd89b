package operator

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestSelfServiceMonitorNeedsTheMetricsServiceLabels(t *testing.T) {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ops", Name: DefaultMetricsService,
		Labels: map[string]string{"control-plane": "controller-manager"}}}
	if _, err := selfServiceMonitor(svc); err == nil {
		t.Fatal("a Service the selector would not match must not get a ServiceMonitor")
	}
	svc.Labels["app.kubernetes.io/name"] = "webapp-operator"
	sm, err := selfServiceMonitor(svc)
	if err != nil {
		t.Fatal(err)
	}
	if sm.GetName() != "webapp-operator-controller-manager-metrics-monitor" || sm.GetNamespace() != "ops" {
		t.Fatalf("%s/%s", sm.GetNamespace(), sm.GetName())
	}
}
