package olm

import (
	"slices"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/internal/status"
	"github.com/webapp-operator/webapp-operator/test/framework"
)

const operatorDeployment = "webapp-operator-controller-manager"

// allNamespaces checks, on the operator that the Subscription moved to 0.3.0 for all namespaces in
// *opNS, what still matters of install modes now that AllNamespaces is the only one: a WebApp in any
// namespace is reconciled, the operator's ServiceAccount reads no Secret until Secret rollouts are
// switched on, and an OperatorGroup narrowed to one namespace is refused without stopping anything
// (*demo keeps serving).
func allNamespaces(opNS *string, demo **webappv1.WebApp) {
	var ns, other string

	BeforeAll(func() {
		ns, other = *opNS, newNamespace("olm-other", true)
		dumpOnFailure(ns, other)
	})

	It("reconciles a WebApp in another namespace, and may act anywhere but on Secrets", func() {
		expectWatching(ns, "0.3.0")
		expectReady(createApp(other))
		expectGrants(ns, []string{ns, other, ""}, nil)
	})

	It("rolls nothing on a Secret change by default, and rolls the pods once with Secret rollouts on", func() {
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: other, Name: "app-token"},
			StringData: map[string]string{"TOKEN": "one"}}
		Expect(k8s.Create(ctx, secret)).To(Succeed())
		wa := newApp(other, "secret-reader")
		wa.Spec.EnvFrom = []webappv1.EnvFromSource{{SecretRef: &webappv1.ObjectReference{Name: secret.Name}}}
		Expect(k8s.Create(ctx, wa)).To(Succeed())
		expectReady(wa)

		By("off, as installed: Ready says a Secret change rolls nothing, and one does not")
		Expect(readyMessage(wa)).To(ContainSubstring(status.SecretRolloutsOffNote))
		before := deploymentRevision(Default, wa)
		secret.StringData = map[string]string{"TOKEN": "two"}
		Expect(k8s.Update(ctx, secret)).To(Succeed())
		Consistently(func(g Gomega) int { return deploymentRevision(g, wa) }, 5*time.Second).Should(Equal(before),
			"the operator does not watch Secrets")

		By("on: the roles bound and the variable set through the Subscription")
		sa := rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: operatorDeployment}
		crb := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "webapp-operator-secret-rollouts-" + ns},
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole",
				Name: "webapp-operator-secret-rollouts-role"}, Subjects: []rbacv1.Subject{sa}}
		Expect(k8s.Create(ctx, crb)).To(Succeed())
		DeferCleanup(func() { _ = k8s.Delete(ctx, crb) })
		Expect(k8s.Create(ctx, &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "webapp-operator-secret-rollouts-key"},
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole",
				Name: "webapp-operator-secret-rollouts-key-role"}, Subjects: []rbacv1.Subject{sa}})).To(Succeed())
		Eventually(func(g Gomega) {
			sub := getSubscription(g, ns)
			sub.Spec.Config = &operatorsv1alpha1.SubscriptionConfig{
				Env: []corev1.EnvVar{{Name: "SECRET_ROLLOUTS", Value: "true"}}}
			g.Expect(k8s.Update(ctx, sub)).To(Succeed())
		}).Should(Succeed())
		expectOperatorRolledOut(ns, func(g Gomega, d *appsv1.Deployment) {
			g.Expect(d.Spec.Template.Spec.Containers[0].Env).To(
				ContainElement(corev1.EnvVar{Name: "SECRET_ROLLOUTS", Value: "true"}))
		})
		Expect(canI(ns, "list", "secrets", "")).To(BeTrue(), "the binding grants what the switch needs")
		// The pods now carry the Secret's fingerprint: one rollout, and the note is gone.
		Eventually(func(g Gomega) string { return readyMessage(wa) }).ShouldNot(
			ContainSubstring(status.SecretRolloutsOffNote))
		expectReady(wa)
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "webapp-operator-config-key"},
			&corev1.Secret{})).To(Succeed(), "the operator made its key in its own namespace")

		before = deploymentRevision(Default, wa)
		secret.StringData = map[string]string{"TOKEN": "three"}
		Expect(k8s.Update(ctx, secret)).To(Succeed())
		Eventually(func(g Gomega) int { return deploymentRevision(g, wa) }).Should(Equal(before + 1))
		expectReady(wa)
		Consistently(func(g Gomega) int { return deploymentRevision(g, wa) }, 3*time.Second).Should(Equal(before+1),
			"one rollout, not more")
	})

	It("refuses an OperatorGroup narrowed to its own namespace, while the apps keep serving", func() {
		probers := startProbers(*demo, 100*time.Millisecond)
		retarget(ns, ns)
		Eventually(func(g Gomega) {
			var csv operatorsv1alpha1.ClusterServiceVersion
			g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "webapp-operator.v0.3.0"}, &csv)).To(Succeed())
			g.Expect(csv.Status.Phase).To(Equal(operatorsv1alpha1.CSVPhaseFailed))
			g.Expect(csv.Status.Reason).To(Equal(operatorsv1alpha1.CSVReasonUnsupportedOperatorGroup))
		}).Should(Succeed(), "OLM refuses the narrowed group for a CSV that supports AllNamespaces alone")
		Consistently(func(g Gomega) {
			var d appsv1.Deployment
			g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: operatorDeployment}, &d)).To(Succeed())
			g.Expect(d.Status.AvailableReplicas).To(Equal(ptr.Deref(d.Spec.Replicas, 1)), "the operator keeps running")
		}, 10*time.Second).Should(Succeed())
		expectReady(*demo)

		By("widened again: the CSV succeeds")
		retarget(ns)
		expectWatching(ns, "0.3.0")
		framework.ExpectNoFailedRequests("a narrowed OperatorGroup", probers, 20)
	})
}

// newApp is a WebApp of the demo app with one replica.
func newApp(ns, name string) *webappv1.WebApp {
	return &webappv1.WebApp{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: webappv1.WebAppSpec{Image: demoImageBase + ":v1", Replicas: ptr.To[int32](1), Port: 8080,
			HealthCheck: &webappv1.HealthCheck{Path: "/healthz"}},
	}
}

// createApp creates newApp(ns, "app").
func createApp(ns string) *webappv1.WebApp {
	wa := newApp(ns, "app")
	Expect(k8s.Create(ctx, wa)).To(Succeed())
	return wa
}

// retarget sets the OperatorGroup's target namespaces: none for AllNamespaces.
func retarget(ns string, targets ...string) {
	Eventually(func() error {
		var og operatorsv1.OperatorGroup
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "webapp-operator"}, &og); err != nil {
			return err
		}
		og.Spec.TargetNamespaces = targets
		return k8s.Update(ctx, &og)
	}).Should(Succeed())
}

// expectWatching waits until the operator's Deployment has rolled out for all namespaces (an empty
// olm.targetNamespaces, which WATCH_NAMESPACE reads), and version's CSV has succeeded.
func expectWatching(ns, version string) {
	expectOperatorRolledOut(ns, func(g Gomega, d *appsv1.Deployment) {
		g.Expect(d.Spec.Template.Annotations).To(HaveKeyWithValue("olm.targetNamespaces", ""))
	})
	expectOnlyCSV(ns, version)
}

// expectOperatorRolledOut waits until the operator's Deployment in ns meets want and runs that
// template alone: the previous pod, which watched elsewhere, is gone.
func expectOperatorRolledOut(ns string, want func(Gomega, *appsv1.Deployment)) {
	Eventually(func(g Gomega) {
		var d appsv1.Deployment
		g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: operatorDeployment}, &d)).To(Succeed())
		want(g, &d)
		n := ptr.Deref(d.Spec.Replicas, 1)
		g.Expect(d.Status.ObservedGeneration).To(Equal(d.Generation))
		g.Expect([]int32{d.Status.Replicas, d.Status.UpdatedReplicas, d.Status.AvailableReplicas}).To(Equal([]int32{n, n, n}))
		var pods corev1.PodList
		g.Expect(k8s.List(ctx, &pods, client.InNamespace(ns),
			client.MatchingLabels{"control-plane": "controller-manager"})).To(Succeed())
		g.Expect(pods.Items).To(HaveLen(int(n)), "the previous operator pod is gone")
	}).Should(Succeed(), "the operator in %s rolled out", ns)
}

// expectGrants checks, as the operator's ServiceAccount, that it may manage WebApps and their
// Deployments in granted ("": cluster-wide) and not in refused, nor cluster-wide unless granted
// holds "", and that it may not get, list, watch or create a Secret anywhere.
func expectGrants(ns string, granted, refused []string) {
	clusterWide := slices.Contains(granted, "")
	if !clusterWide {
		refused = append(refused, "")
	}
	for _, where := range append(slices.Clone(granted), refused...) {
		may := slices.Contains(granted, where)
		Expect(canI(ns, "list", "webapps.apps.webapp-operator.io", where)).To(Equal(may), "list webapps in %q", where)
		Expect(canI(ns, "patch", "deployments.apps", where)).To(Equal(may), "patch deployments in %q", where)
	}
	for _, where := range append(slices.Clone(granted), refused...) {
		for _, verb := range []string{"get", "list", "watch", "create"} {
			Expect(canI(ns, verb, "secrets", where)).To(BeFalse(), "%s secrets in %q", verb, where)
		}
	}
}

// canI asks kubectl auth can-i as the operator's ServiceAccount in ns; where "" is cluster-wide.
func canI(ns, verb, resource, where string) bool {
	scope := []string{"-A"}
	if where != "" {
		scope = []string{"-n", where}
	}
	out, err := run(kubectl, append([]string{"auth", "can-i", verb, resource,
		"--as=system:serviceaccount:" + ns + ":" + operatorDeployment}, scope...)...)
	answer := strings.TrimSpace(out)
	Expect(answer).To(BeElementOf("yes", "no"), "kubectl auth can-i: %v", err)
	return answer == "yes"
}

// deploymentRevision is the revision of wa's Deployment: one more per rollout.
func deploymentRevision(g Gomega, wa *webappv1.WebApp) int {
	var d appsv1.Deployment
	g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(wa), &d)).To(Succeed())
	r, err := strconv.Atoi(d.Annotations["deployment.kubernetes.io/revision"])
	g.Expect(err).NotTo(HaveOccurred())
	return r
}

// readyMessage is the message of the WebApp's Ready condition, "" without one.
func readyMessage(wa *webappv1.WebApp) string {
	var got webappv1.WebApp
	Expect(k8s.Get(ctx, client.ObjectKeyFromObject(wa), &got)).To(Succeed())
	if ready := meta.FindStatusCondition(got.Status.Conditions, webappv1.ConditionReady); ready != nil {
		return ready.Message
	}
	return ""
}
