package operator_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/webapp-operator/webapp-operator/internal/operator"
	"github.com/webapp-operator/webapp-operator/internal/resources"
	"github.com/webapp-operator/webapp-operator/internal/testenv/specs"
)

var _ = Describe("The operator's own ServiceMonitor", func() {
	It("is applied where the CRD is served, for the metrics Service, and owned by it", func() {
		const ns = "webapp-operator-system"
		Expect(client.IgnoreAlreadyExists(k8sClient.Create(ctx,
			&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))).To(Succeed())
		svc := &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: operator.DefaultMetricsService,
				Labels: map[string]string{"control-plane": "controller-manager", "app.kubernetes.io/name": "webapp-operator"}},
			Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "https", Port: 8443, TargetPort: intstr.FromInt32(8443)}},
				Selector: map[string]string{"control-plane": "controller-manager"}},
		}
		Expect(k8sClient.Create(ctx, svc)).To(Succeed())
		By("the operator looks for the Service when it starts, as a restarted pod would")
		mgr, err := operator.NewManager(testEnv.Config, operator.Options{
			Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
			MetricsService: types.NamespacedName{Namespace: ns, Name: operator.DefaultMetricsService},
			// every spec starts a manager with the same controller in this process
			SkipControllerNameValidation: true,
		})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(specs.RunManager(ctx, mgr, timeout))

		sm := &unstructured.Unstructured{}
		sm.SetGroupVersionKind(resources.ServiceMonitorGVK)
		Eventually(func() error {
			return k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "webapp-operator-controller-manager-metrics-monitor"}, sm)
		}, timeout, interval).Should(Succeed())
		Expect(sm.GetOwnerReferences()).To(ConsistOf(HaveField("UID", svc.UID)), "it goes with the Service")
		endpoints, _, _ := unstructured.NestedSlice(sm.Object, "spec", "endpoints")
		Expect(endpoints).To(ConsistOf(And(HaveKeyWithValue("port", "https"), HaveKeyWithValue("scheme", "https"),
			HaveKeyWithValue("honorLabels", true),
			HaveKeyWithValue("bearerTokenFile", "/var/run/secrets/kubernetes.io/serviceaccount/token"))))
		selector, _, _ := unstructured.NestedStringMap(sm.Object, "spec", "selector", "matchLabels")
		Expect(selector).To(Equal(svc.Labels), "it selects the metrics Service by its labels")
	})
})
