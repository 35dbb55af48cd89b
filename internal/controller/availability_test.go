package controller_test

import (
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/internal/resources"
	"github.com/webapp-operator/webapp-operator/internal/status"
)

// get returns a function that reads the object of obj's kind named ns/name, for Eventually.
func get[T client.Object](ns, name string, obj T) func(g Gomega) T {
	return func(g Gomega) T {
		g.Expect(k8sClient.Get(ctx, key(ns, name), obj)).To(Succeed())
		return obj
	}
}

// absent returns a function that reports whether no object of obj's kind is named ns/name.
func absent(ns, name string, obj client.Object) func() bool {
	return func() bool { return apierrors.IsNotFound(k8sClient.Get(ctx, key(ns, name), obj)) }
}

// updateWebApp changes the WebApp ns/name with mutate, retrying on conflicts.
func updateWebApp(ns, name string, mutate func(*webappv1.WebApp)) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		app := fetch(ns, name)
		mutate(app)
		g.Expect(k8sClient.Update(ctx, app)).To(Succeed())
	}, timeout, interval).Should(Succeed())
}

// settledPass waits for the operator to report the WebApp's current generation.
func settledPass(ns, name string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		app := fetch(ns, name)
		g.Expect(app.Status.ObservedGeneration).To(Equal(app.Generation))
	}, timeout, interval).Should(Succeed())
}

var _ = Describe("The PodDisruptionBudget", func() {
	var ns string
	BeforeEach(func() { ns = newNamespace() })

	pdb := func(name string) func(g Gomega) *policyv1.PodDisruptionBudget {
		return get(ns, name, &policyv1.PodDisruptionBudget{})
	}

	It("is created for more than one replica, corrected, and deleted when the WebApp stops asking for it", func() {
		createReady(newWebApp(ns, "budget"))
		b := pdb("budget")(Default)
		Expect(metav1.IsControlledBy(b, fetch(ns, "budget"))).To(BeTrue())
		Expect(b.Spec.MaxUnavailable).To(Equal(ptr.To(intstr.FromInt32(1))))
		Expect(b.Spec.MinAvailable).To(BeNil())
		Expect(b.Spec.Selector.MatchLabels).To(Equal(getDeployment(ns, "budget")(Default).Spec.Selector.MatchLabels))

		By("someone loosens it: the operator puts it back")
		Eventually(func(g Gomega) {
			b := pdb("budget")(g)
			b.Spec.MaxUnavailable = ptr.To(intstr.FromString("100%"))
			g.Expect(k8sClient.Update(ctx, b)).To(Succeed())
		}, timeout, interval).Should(Succeed())
		Eventually(func(g Gomega) *intstr.IntOrString { return pdb("budget")(g).Spec.MaxUnavailable }, timeout, interval).
			Should(Equal(ptr.To(intstr.FromInt32(1))))

		By("the WebApp asks for another maxUnavailable")
		updateWebApp(ns, "budget", func(a *webappv1.WebApp) {
			a.Spec.DisruptionBudget = &webappv1.DisruptionBudget{MaxUnavailable: ptr.To(intstr.FromString("50%"))}
		})
		Eventually(func(g Gomega) *intstr.IntOrString { return pdb("budget")(g).Spec.MaxUnavailable }, timeout, interval).
			Should(Equal(ptr.To(intstr.FromString("50%"))))

		By("down to one replica, the budget goes; back to three, it comes back")
		bumpReplicas(ns, "budget", 1)
		Eventually(absent(ns, "budget", &policyv1.PodDisruptionBudget{}), timeout, interval).Should(BeTrue())
		playDeploymentController(ns, "budget")
		Eventually(condition(ns, "budget", webappv1.ConditionReady), timeout, interval).
			Should(haveStatusReason(metav1.ConditionTrue, status.ReasonReady))
		bumpReplicas(ns, "budget", 3)
		Eventually(pdb("budget"), timeout, interval).ShouldNot(BeNil())

		By("switched off, the budget goes")
		updateWebApp(ns, "budget", func(a *webappv1.WebApp) {
			a.Spec.DisruptionBudget = &webappv1.DisruptionBudget{Enabled: ptr.To(false)}
		})
		Eventually(absent(ns, "budget", &policyv1.PodDisruptionBudget{}), timeout, interval).Should(BeTrue())
		playDeploymentController(ns, "budget")
		Eventually(condition(ns, "budget", webappv1.ConditionReady), timeout, interval).
			Should(haveStatusReason(metav1.ConditionTrue, status.ReasonReady))

		By("a budget of the same name that the WebApp does not control is never deleted, switched off or on")
		foreign := foreignBudget(ns, "budget")
		bumpReplicas(ns, "budget", 4)
		settledPass(ns, "budget")
		Consistently(func(g Gomega) string { return pdb("budget")(g).ResourceVersion }, 2*time.Second, interval).
			Should(Equal(foreign.ResourceVersion))
		updateWebApp(ns, "budget", func(a *webappv1.WebApp) { a.Spec.DisruptionBudget = nil })
		Eventually(condition(ns, "budget", webappv1.ConditionStalled), timeout, interval).
			Should(And(haveStatusReason(metav1.ConditionTrue, status.ReasonNameConflict),
				HaveField("Message", ContainSubstring("PodDisruptionBudget"))))
		Consistently(func(g Gomega) string { return pdb("budget")(g).ResourceVersion }, 2*time.Second, interval).
			Should(Equal(foreign.ResourceVersion), "the foreign budget was modified")

		By("once it is gone, the WebApp's own budget is created at the next recheck")
		Expect(k8sClient.Delete(ctx, foreign)).To(Succeed())
		Eventually(func(g Gomega) bool { return metav1.IsControlledBy(pdb("budget")(g), fetch(ns, "budget")) },
			2*timeout, interval).Should(BeTrue())
	})
})

// foreignBudget creates a PodDisruptionBudget named ns/name that no WebApp controls. It even carries
// our managed-by label, so that the operator's cache holds it.
func foreignBudget(ns, name string) *policyv1.PodDisruptionBudget {
	GinkgoHelper()
	b := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns,
			Labels: map[string]string{resources.LabelManagedBy: resources.ManagedBy}},
		Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: ptr.To(intstr.FromInt32(1)),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "theirs"}}},
	}
	Expect(k8sClient.Create(ctx, b)).To(Succeed())
	return b
}

var _ = Describe("The HorizontalPodAutoscaler", func() {
	var ns string
	BeforeEach(func() { ns = newNamespace() })

	hpa := func(name string) func(g Gomega) *autoscalingv2.HorizontalPodAutoscaler {
		return get(ns, name, &autoscalingv2.HorizontalPodAutoscaler{})
	}
	autoscaled := func(name string) *webappv1.WebApp {
		app := newWebApp(ns, name)
		app.Spec.Autoscaling = &webappv1.Autoscaling{MinReplicas: ptr.To[int32](2), MaxReplicas: 6,
			TargetCPUUtilizationPercentage: ptr.To[int32](70)}
		return app
	}

	It("scales the Deployment, and the operator never writes over what it sets", func() {
		Expect(k8sClient.Create(ctx, autoscaled("auto"))).To(Succeed())
		Eventually(hpa("auto"), timeout, interval).ShouldNot(BeNil())
		h := hpa("auto")(Default)
		Expect(metav1.IsControlledBy(h, fetch(ns, "auto"))).To(BeTrue())
		Expect(h.Spec.ScaleTargetRef).To(Equal(autoscalingv2.CrossVersionObjectReference{
			APIVersion: "apps/v1", Kind: "Deployment", Name: "auto"}))
		Expect(h.Spec.MinReplicas).To(Equal(ptr.To[int32](2)))
		Expect(h.Spec.MaxReplicas).To(Equal(int32(6)))

		By("playing the autoscaler: it scales the Deployment through its scale subresource, to its minimum")
		scaleAsTheAutoscaler(ns, "auto", 2)
		playDeploymentController(ns, "auto")
		Eventually(condition(ns, "auto", webappv1.ConditionReady), timeout, interval).
			Should(haveStatusReason(metav1.ConditionTrue, status.ReasonReady))
		Expect(condition(ns, "auto", webappv1.ConditionAutoscaling)(Default)).
			To(haveStatusReason(metav1.ConditionUnknown, status.ReasonAutoscalingPending), "before the autoscaler reports")

		By("playing the autoscaler's status: it cannot read metrics, so the WebApp says so, and still serves")
		playAutoscalerStatus(ns, "auto", 2, time.Unix(1000, 0), "SucceededGetScale",
			hpaCondition(autoscalingv2.ScalingActive, corev1.ConditionFalse, "FailedGetResourceMetric",
				"the HPA was unable to compute the replica count: failed to get cpu utilization"))
		Eventually(condition(ns, "auto", webappv1.ConditionAutoscaling), timeout, interval).
			Should(And(haveStatusReason(metav1.ConditionFalse, status.ReasonAutoscalingInactive),
				HaveField("Message", ContainSubstring("ScalingActive is False (FailedGetResourceMetric)"))))
		Expect(condition(ns, "auto", webappv1.ConditionReady)(Default)).
			To(haveStatusReason(metav1.ConditionTrue, status.ReasonReady), "an autoscaler without metrics made the app look broken")
		writesBefore := settledWritesIn(ns)

		By("the autoscaler rewrites its status with the same verdict: the operator writes nothing, not even status")
		playAutoscalerStatus(ns, "auto", 2, time.Unix(2000, 0), "ReadyForNewScale",
			hpaCondition(autoscalingv2.ScalingActive, corev1.ConditionFalse, "FailedGetResourceMetric",
				"the HPA was unable to compute the replica count: failed to get cpu utilization"))
		Consistently(func() []string { return requests.WritesIn(ns)[writesBefore:] }, 3*time.Second, interval).
			Should(BeEmpty(), "the autoscaler's status rewrite cost a write")

		By("then up to five, with metrics: the operator writes neither the Deployment nor the autoscaler")
		scaleAsTheAutoscaler(ns, "auto", 5)
		playDeploymentController(ns, "auto")
		playAutoscalerStatus(ns, "auto", 5, time.Unix(3000, 0), "SucceededRescale",
			hpaCondition(autoscalingv2.ScalingActive, corev1.ConditionTrue, "ValidMetricFound",
				"the HPA was able to successfully calculate a replica count from cpu resource utilization"))
		Eventually(condition(ns, "auto", webappv1.ConditionAutoscaling), timeout, interval).
			Should(haveStatusReason(metav1.ConditionTrue, status.ReasonAutoscalingActive))
		Eventually(func(g Gomega) int32 { return fetch(ns, "auto").Status.AvailableReplicas }, timeout, interval).
			Should(Equal(int32(5)), "the operator reports the autoscaler's replicas")
		Consistently(func(g Gomega) *int32 { return getDeployment(ns, "auto")(g).Spec.Replicas }, 3*time.Second, interval).
			Should(Equal(ptr.To[int32](5)))
		Expect(childWrites(requests.WritesIn(ns)[writesBefore:])).To(BeEmpty(), "the operator fought the autoscaler")

		By("someone edits the autoscaler: the operator puts it back")
		Eventually(func(g Gomega) {
			h := hpa("auto")(g)
			h.Spec.MaxReplicas = 100
			g.Expect(k8sClient.Update(ctx, h)).To(Succeed())
		}, timeout, interval).Should(Succeed())
		Eventually(func(g Gomega) int32 { return hpa("auto")(g).Spec.MaxReplicas }, timeout, interval).Should(Equal(int32(6)))

		By("autoscaling switched off: the autoscaler goes, and spec.replicas is the Deployment's again")
		updateWebApp(ns, "auto", func(a *webappv1.WebApp) { a.Spec.Autoscaling = nil; a.Spec.Replicas = ptr.To[int32](3) })
		Eventually(absent(ns, "auto", &autoscalingv2.HorizontalPodAutoscaler{}), timeout, interval).Should(BeTrue())
		Eventually(func(g Gomega) *int32 { return getDeployment(ns, "auto")(g).Spec.Replicas }, timeout, interval).
			Should(Equal(ptr.To[int32](3)))
		Eventually(func(g Gomega) *metav1.Condition {
			return meta.FindStatusCondition(fetch(ns, "auto").Status.Conditions, webappv1.ConditionAutoscaling)
		}, timeout, interval).Should(BeNil(), "the Autoscaling condition outlived the autoscaler")
	})

	It("hands the replicas over when autoscaling is switched on, without a drop to one replica", func() {
		app := newWebApp(ns, "handover")
		app.Spec.Replicas = ptr.To[int32](4)
		createReady(app)
		updateWebApp(ns, "handover", func(a *webappv1.WebApp) {
			a.Spec.Autoscaling = &webappv1.Autoscaling{MinReplicas: ptr.To[int32](2), MaxReplicas: 6}
		})
		Eventually(hpa("handover"), timeout, interval).ShouldNot(BeNil())
		settledPass(ns, "handover")
		Consistently(func(g Gomega) *int32 { return getDeployment(ns, "handover")(g).Spec.Replicas }, 2*time.Second, interval).
			Should(Equal(ptr.To[int32](4)), "the Deployment lost its replicas while the autoscaler took over")
		d := getDeployment(ns, "handover")(Default)
		for _, mf := range d.ManagedFields {
			if mf.Manager == resources.FieldOwner {
				Expect(mf.FieldsV1.GetRawString()).NotTo(ContainSubstring(`"f:replicas"`), "the operator still owns the replicas")
			}
		}
	})

	It("never touches a same-name autoscaler it does not control, on or off", func() {
		foreign := &autoscalingv2.HorizontalPodAutoscaler{
			ObjectMeta: metav1.ObjectMeta{Name: "taken", Namespace: ns,
				Labels: map[string]string{resources.LabelManagedBy: resources.ManagedBy}},
			Spec: autoscalingv2.HorizontalPodAutoscalerSpec{MaxReplicas: 3,
				ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "theirs"}},
		}
		Expect(k8sClient.Create(ctx, foreign)).To(Succeed())
		createReady(newWebApp(ns, "taken"))
		Consistently(func(g Gomega) string { return hpa("taken")(g).ResourceVersion }, 2*time.Second, interval).
			Should(Equal(foreign.ResourceVersion), "a WebApp without autoscaling deleted or changed someone's autoscaler")

		updateWebApp(ns, "taken", func(a *webappv1.WebApp) { a.Spec.Autoscaling = &webappv1.Autoscaling{MaxReplicas: 4} })
		Eventually(condition(ns, "taken", webappv1.ConditionStalled), timeout, interval).
			Should(And(haveStatusReason(metav1.ConditionTrue, status.ReasonNameConflict),
				HaveField("Message", ContainSubstring("HorizontalPodAutoscaler"))))
		Expect(hpa("taken")(Default).ResourceVersion).To(Equal(foreign.ResourceVersion), "the foreign autoscaler was modified")
	})
})

// scaleAsTheAutoscaler sets the replicas of the Deployment ns/name the way the HorizontalPodAutoscaler
// controller does: an update of its scale subresource, by kube-controller-manager.
func scaleAsTheAutoscaler(ns, name string, replicas int32) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		d := getDeployment(ns, name)(g)
		scale := &autoscalingv1.Scale{}
		g.Expect(k8sClient.SubResource("scale").Get(ctx, d, scale)).To(Succeed())
		scale.Spec.Replicas = replicas
		g.Expect(k8sClient.SubResource("scale").Update(ctx, d, client.WithSubResourceBody(scale),
			client.FieldOwner("kube-controller-manager"))).To(Succeed())
	}, timeout, interval).Should(Succeed())
}

// playAutoscalerStatus writes the autoscaler's status the way the HorizontalPodAutoscaler controller
// does (an update of the status subresource, by kube-controller-manager): its replicas, the time of its
// last scale, its generation, AbleToScale with ableReason, and active as ScalingActive; every condition
// with the transition time at.
func playAutoscalerStatus(ns, name string, replicas int32, at time.Time, ableReason string,
	active autoscalingv2.HorizontalPodAutoscalerCondition) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		h := get(ns, name, &autoscalingv2.HorizontalPodAutoscaler{})(g)
		when := metav1.NewTime(at)
		able := hpaCondition(autoscalingv2.AbleToScale, corev1.ConditionTrue, ableReason, "recommended size matches current size")
		limited := hpaCondition(autoscalingv2.ScalingLimited, corev1.ConditionFalse, "DesiredWithinRange",
			"the desired count is within the acceptable range")
		h.Status = autoscalingv2.HorizontalPodAutoscalerStatus{ObservedGeneration: ptr.To(h.Generation),
			LastScaleTime: &when, CurrentReplicas: replicas, DesiredReplicas: replicas,
			Conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{able, active, limited}}
		for i := range h.Status.Conditions {
			h.Status.Conditions[i].LastTransitionTime = when
		}
		g.Expect(k8sClient.Status().Update(ctx, h, client.FieldOwner("kube-controller-manager"))).To(Succeed())
	}, timeout, interval).Should(Succeed())
}

func hpaCondition(t autoscalingv2.HorizontalPodAutoscalerConditionType, s corev1.ConditionStatus,
	reason, message string) autoscalingv2.HorizontalPodAutoscalerCondition {
	return autoscalingv2.HorizontalPodAutoscalerCondition{Type: t, Status: s, Reason: reason, Message: message}
}

// childWrites keeps the writes to the WebApp's children: not its status, not Events.
func childWrites(writes []string) []string {
	var out []string
	for _, w := range writes {
		if !strings.Contains(w, "/webapps/") && !strings.Contains(w, "/events") {
			out = append(out, w)
		}
	}
	return out
}

var _ = Describe("The NetworkPolicy", func() {
	var ns string
	BeforeEach(func() { ns = newNamespace() })

	policy := func(name string) func(g Gomega) *networkingv1.NetworkPolicy {
		return get(ns, name, &networkingv1.NetworkPolicy{})
	}
	peers := func(name string) func(g Gomega) []networkingv1.NetworkPolicyPeer {
		return func(g Gomega) []networkingv1.NetworkPolicyPeer {
			p := policy(name)(g)
			g.Expect(p.Spec.Ingress).To(HaveLen(1))
			return p.Spec.Ingress[0].From
		}
	}
	fromNamespaces := func(names ...string) networkingv1.NetworkPolicyPeer {
		return networkingv1.NetworkPolicyPeer{NamespaceSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: corev1.LabelMetadataName, Operator: metav1.LabelSelectorOpIn, Values: names}}}}
	}
	sameNamespace := networkingv1.NetworkPolicyPeer{PodSelector: &metav1.LabelSelector{}}

	It("is created only when asked for, corrected, and deleted when switched off", func() {
		createReady(newWebApp(ns, "fenced"))
		Consistently(absent(ns, "fenced", &networkingv1.NetworkPolicy{}), time.Second, interval).Should(BeTrue(), "opt-in")

		updateWebApp(ns, "fenced", func(a *webappv1.WebApp) {
			a.Spec.NetworkPolicy = &webappv1.NetworkPolicy{FromNamespaces: []string{"ingress-nginx"}}
		})
		Eventually(peers("fenced"), timeout, interval).Should(Equal([]networkingv1.NetworkPolicyPeer{
			sameNamespace, fromNamespaces("ingress-nginx")}))
		p := policy("fenced")(Default)
		Expect(metav1.IsControlledBy(p, fetch(ns, "fenced"))).To(BeTrue())
		Expect(p.Spec.PodSelector.MatchLabels).To(Equal(getDeployment(ns, "fenced")(Default).Spec.Selector.MatchLabels))
		Expect(p.Spec.Ingress[0].Ports).To(ConsistOf(networkingv1.NetworkPolicyPort{
			Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(intstr.FromString("http"))}))

		By("someone opens it to every namespace: the operator closes it again")
		Eventually(func(g Gomega) {
			p := policy("fenced")(g)
			p.Spec.Ingress[0].From = append(p.Spec.Ingress[0].From,
				networkingv1.NetworkPolicyPeer{NamespaceSelector: &metav1.LabelSelector{}})
			g.Expect(k8sClient.Update(ctx, p)).To(Succeed())
		}, timeout, interval).Should(Succeed())
		Eventually(peers("fenced"), timeout, interval).Should(Equal([]networkingv1.NetworkPolicyPeer{
			sameNamespace, fromNamespaces("ingress-nginx")}))

		By("the listed namespaces only")
		updateWebApp(ns, "fenced", func(a *webappv1.WebApp) {
			a.Spec.NetworkPolicy = &webappv1.NetworkPolicy{SameNamespace: ptr.To(false), FromNamespaces: []string{"gw", "monitoring"}}
		})
		Eventually(peers("fenced"), timeout, interval).Should(Equal([]networkingv1.NetworkPolicyPeer{
			fromNamespaces("gw", "monitoring")}))

		By("switched off, the policy goes")
		updateWebApp(ns, "fenced", func(a *webappv1.WebApp) { a.Spec.NetworkPolicy = nil })
		Eventually(absent(ns, "fenced", &networkingv1.NetworkPolicy{}), timeout, interval).Should(BeTrue())
	})

	It("never touches a same-name policy it does not control, on or off", func() {
		foreign := &networkingv1.NetworkPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: "taken", Namespace: ns,
				Labels: map[string]string{resources.LabelManagedBy: resources.ManagedBy}},
			Spec: networkingv1.NetworkPolicySpec{PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}},
		}
		Expect(k8sClient.Create(ctx, foreign)).To(Succeed())
		createReady(newWebApp(ns, "taken"))
		Consistently(func(g Gomega) string { return policy("taken")(g).ResourceVersion }, 2*time.Second, interval).
			Should(Equal(foreign.ResourceVersion), "a WebApp without a network policy deleted or changed someone's")

		updateWebApp(ns, "taken", func(a *webappv1.WebApp) { a.Spec.NetworkPolicy = &webappv1.NetworkPolicy{} })
		Eventually(condition(ns, "taken", webappv1.ConditionStalled), timeout, interval).
			Should(And(haveStatusReason(metav1.ConditionTrue, status.ReasonNameConflict),
				HaveField("Message", ContainSubstring("NetworkPolicy"))))
		Expect(policy("taken")(Default).ResourceVersion).To(Equal(foreign.ResourceVersion), "the foreign policy was modified")
	})
})

// playIngressController publishes an address for the Ingress ns/name, as an ingress controller does.
func playIngressController(ns, name string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		ing := &networkingv1.Ingress{}
		g.Expect(k8sClient.Get(ctx, key(ns, name), ing)).To(Succeed())
		ing.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{IP: "203.0.113.10"}}
		g.Expect(k8sClient.Status().Update(ctx, ing)).To(Succeed())
	}, timeout, interval).Should(Succeed())
}

var _ = Describe("The Ingress", func() {
	var ns string
	BeforeEach(func() { ns = newNamespace() })

	ingress := func(name string) func(g Gomega) *networkingv1.Ingress {
		return get(ns, name, &networkingv1.Ingress{})
	}
	url := func(name string) func() string { return func() string { return fetch(ns, name).Status.URL } }

	It("exposes the WebApp, which is Ready with its external URL once the Ingress has an address", func() {
		app := newWebApp(ns, "front")
		app.Spec.Ingress = &webappv1.Ingress{ClassName: "nginx", Hosts: []string{"shop.example.com"},
			TLS:         &webappv1.IngressTLS{SecretName: "shop-tls"},
			Annotations: map[string]webappv1.AnnotationValue{"cert-manager.io/cluster-issuer": "letsencrypt"}}
		Expect(k8sClient.Create(ctx, app)).To(Succeed())
		Eventually(ingress("front"), timeout, interval).ShouldNot(BeNil())
		ing := ingress("front")(Default)
		Expect(metav1.IsControlledBy(ing, fetch(ns, "front"))).To(BeTrue())
		Expect(ing.Spec.IngressClassName).To(Equal(ptr.To("nginx")))
		Expect(ing.Annotations).To(HaveKeyWithValue("cert-manager.io/cluster-issuer", "letsencrypt"))
		Expect(ing.Spec.TLS).To(Equal([]networkingv1.IngressTLS{{Hosts: []string{"shop.example.com"}, SecretName: "shop-tls"}}))
		Expect(ing.Spec.Rules).To(HaveLen(1))
		Expect(ing.Spec.Rules[0].HTTP.Paths).To(ConsistOf(networkingv1.HTTPIngressPath{Path: "/",
			PathType: ptr.To(networkingv1.PathTypePrefix), Backend: networkingv1.IngressBackend{
				Service: &networkingv1.IngressServiceBackend{Name: "front", Port: networkingv1.ServiceBackendPort{Name: "http"}}}}))

		By("the pods are available, but no ingress controller has admitted the Ingress: not Ready, and it says why")
		playDeploymentController(ns, "front")
		Eventually(condition(ns, "front", webappv1.ConditionReady), timeout, interval).Should(And(
			haveStatusReason(metav1.ConditionFalse, status.ReasonAddressPending),
			HaveField("Message", ContainSubstring(`Ingress has no address yet: waiting for the ingress controller of IngressClass "nginx"`))))
		Expect(url("front")()).To(Equal("http://front." + ns + ".svc:80"))

		By("the ingress controller gives it an address")
		playIngressController(ns, "front")
		Eventually(condition(ns, "front", webappv1.ConditionReady), timeout, interval).
			Should(haveStatusReason(metav1.ConditionTrue, status.ReasonReady))
		Expect(url("front")()).To(Equal("https://shop.example.com/"))

		By("someone points it at another Service and adds an annotation of their own")
		Eventually(func(g Gomega) {
			ing := ingress("front")(g)
			ing.Spec.Rules[0].HTTP.Paths[0].Backend.Service.Name = "elsewhere"
			ing.Annotations["team.example.com/owner"] = "alice"
			g.Expect(k8sClient.Update(ctx, ing)).To(Succeed())
		}, timeout, interval).Should(Succeed())
		Eventually(func(g Gomega) {
			ing := ingress("front")(g)
			g.Expect(ing.Spec.Rules[0].HTTP.Paths[0].Backend.Service.Name).To(Equal("front"))
			g.Expect(ing.Annotations).To(HaveKeyWithValue("team.example.com/owner", "alice"))
		}, timeout, interval).Should(Succeed())

		By("switched off: the Ingress goes, and the URL is the in-cluster one again")
		updateWebApp(ns, "front", func(a *webappv1.WebApp) { a.Spec.Ingress = nil })
		Eventually(absent(ns, "front", &networkingv1.Ingress{}), timeout, interval).Should(BeTrue())
		Eventually(url("front"), timeout, interval).Should(Equal("http://front." + ns + ".svc:80"))
		Eventually(condition(ns, "front", webappv1.ConditionReady), timeout, interval).
			Should(haveStatusReason(metav1.ConditionTrue, status.ReasonReady))
	})

	It("never touches a same-name Ingress it does not control, on or off", func() {
		foreign := &networkingv1.Ingress{
			ObjectMeta: metav1.ObjectMeta{Name: "taken", Namespace: ns,
				Labels: map[string]string{resources.LabelManagedBy: resources.ManagedBy}},
			Spec: networkingv1.IngressSpec{DefaultBackend: &networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{
				Name: "theirs", Port: networkingv1.ServiceBackendPort{Number: 80}}}},
		}
		Expect(k8sClient.Create(ctx, foreign)).To(Succeed())
		createReady(newWebApp(ns, "taken"))
		Consistently(func(g Gomega) string { return ingress("taken")(g).ResourceVersion }, 2*time.Second, interval).
			Should(Equal(foreign.ResourceVersion), "a WebApp without an Ingress deleted or changed someone's")

		updateWebApp(ns, "taken", func(a *webappv1.WebApp) { a.Spec.Ingress = &webappv1.Ingress{Hosts: []string{"a.example.com"}} })
		Eventually(condition(ns, "taken", webappv1.ConditionStalled), timeout, interval).
			Should(And(haveStatusReason(metav1.ConditionTrue, status.ReasonNameConflict),
				HaveField("Message", ContainSubstring(`an Ingress named "taken" already exists`))))
		Expect(ingress("taken")(Default).ResourceVersion).To(Equal(foreign.ResourceVersion), "the foreign Ingress was modified")
	})
})
