package controller_test

import (
	"fmt"
	"sort"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/internal/controller"
	"github.com/webapp-operator/webapp-operator/internal/resources"
	"github.com/webapp-operator/webapp-operator/internal/served"
	"github.com/webapp-operator/webapp-operator/internal/status"
	"github.com/webapp-operator/webapp-operator/internal/testenv"
)

const (
	timeout  = 15 * time.Second
	interval = 100 * time.Millisecond
)

var nsCount int

// newNamespace gives every test its own namespace, so tests cannot see each other's objects.
func newNamespace() string {
	nsCount++
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("test-%d-%d", GinkgoParallelProcess(), nsCount)}}
	Expect(k8sClient.Create(ctx, ns)).To(Succeed())
	return ns.Name
}

var newWebApp = testenv.WebApp

func key(ns, name string) client.ObjectKey { return client.ObjectKey{Namespace: ns, Name: name} }

func getDeployment(ns, name string) func(g Gomega) *appsv1.Deployment {
	return func(g Gomega) *appsv1.Deployment {
		d := &appsv1.Deployment{}
		g.Expect(k8sClient.Get(ctx, key(ns, name), d)).To(Succeed())
		return d
	}
}

func getService(ns, name string) func(g Gomega) *corev1.Service {
	return func(g Gomega) *corev1.Service {
		s := &corev1.Service{}
		g.Expect(k8sClient.Get(ctx, key(ns, name), s)).To(Succeed())
		return s
	}
}

// condition returns the WebApp's condition of the given type once the status is current.
func condition(ns, name, condType string) func(g Gomega) *metav1.Condition {
	return func(g Gomega) *metav1.Condition {
		app := &webappv1.WebApp{}
		g.Expect(k8sClient.Get(ctx, key(ns, name), app)).To(Succeed())
		g.Expect(app.Status.ObservedGeneration).To(Equal(app.Generation), "status is for an older generation")
		c := meta.FindStatusCondition(app.Status.Conditions, condType)
		g.Expect(c).NotTo(BeNil(), "condition %s missing", condType)
		g.Expect(c.ObservedGeneration).To(Equal(app.Generation))
		return c
	}
}

func haveStatusReason(s metav1.ConditionStatus, reason string) OmegaMatcher {
	return And(HaveField("Status", s), HaveField("Reason", reason))
}

// playDeploymentController writes the status that kube-controller-manager would write once the
// current generation of the Deployment is fully rolled out.
func playDeploymentController(ns, name string) {
	Eventually(func(g Gomega) {
		d := getDeployment(ns, name)(g)
		n := ptr.Deref(d.Spec.Replicas, 1)
		d.Status = appsv1.DeploymentStatus{
			ObservedGeneration: d.Generation, Replicas: n, UpdatedReplicas: n, ReadyReplicas: n, AvailableReplicas: n,
			Conditions: []appsv1.DeploymentCondition{{
				Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: "MinimumReplicasAvailable",
				Message: "Deployment has minimum availability.", LastUpdateTime: metav1.Now(), LastTransitionTime: metav1.Now(),
			}},
		}
		g.Expect(k8sClient.Status().Update(ctx, d)).To(Succeed())
	}, timeout, interval).Should(Succeed())
}

// createReady creates a WebApp and drives it to Ready=True.
func createReady(app *webappv1.WebApp) {
	Expect(k8sClient.Create(ctx, app)).To(Succeed())
	Eventually(getDeployment(app.Namespace, app.Name), timeout, interval).ShouldNot(BeNil())
	playDeploymentController(app.Namespace, app.Name)
	Eventually(condition(app.Namespace, app.Name, webappv1.ConditionReady), timeout, interval).
		Should(haveStatusReason(metav1.ConditionTrue, status.ReasonReady))
}

func reconcileCount() float64 {
	families, err := ctrlmetrics.Registry.Gather()
	Expect(err).NotTo(HaveOccurred())
	var total float64
	for _, f := range families {
		if f.GetName() != "controller_runtime_reconcile_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "controller" && l.GetValue() == "webapp" {
					total += m.GetCounter().GetValue()
				}
			}
		}
	}
	return total
}

var _ = Describe("WebApp controller", func() {
	var ns string
	BeforeEach(func() { ns = newNamespace() })

	It("creates a Deployment and a Service owned by the WebApp and reports progress, then readiness", func() {
		app := newWebApp(ns, "shop")
		app.Spec.HealthCheck = &webappv1.HealthCheck{Path: "/healthz"}
		Expect(k8sClient.Create(ctx, app)).To(Succeed())

		Eventually(getDeployment(ns, "shop"), timeout, interval).ShouldNot(BeNil())
		dep := getDeployment(ns, "shop")(Default)
		Expect(dep.Spec.Replicas).To(Equal(ptr.To[int32](2)))
		Expect(dep.Spec.Template.Spec.Containers[0].Image).To(Equal("example.com/shop:1.0"))
		Expect(dep.Spec.Template.Spec.Containers[0].ReadinessProbe.HTTPGet.Path).To(Equal("/healthz"))
		Expect(dep.Labels).To(HaveKeyWithValue(resources.LabelManagedBy, resources.ManagedBy))
		Expect(metav1.IsControlledBy(dep, fetch(ns, "shop"))).To(BeTrue())

		Eventually(getService(ns, "shop"), timeout, interval).ShouldNot(BeNil())
		s := getService(ns, "shop")(Default)
		Expect(metav1.IsControlledBy(s, fetch(ns, "shop"))).To(BeTrue())
		Expect(s.Spec.Type).To(Equal(corev1.ServiceTypeClusterIP))
		Expect(s.Spec.Ports).To(ConsistOf(HaveField("Port", int32(80))))
		Expect(s.Spec.Selector).To(Equal(dep.Spec.Selector.MatchLabels))

		// No Deployment controller has looked at it yet: converging, not ready.
		Eventually(condition(ns, "shop", webappv1.ConditionReady), timeout, interval).
			Should(haveStatusReason(metav1.ConditionFalse, status.ReasonRolloutInProgress))
		Expect(condition(ns, "shop", webappv1.ConditionReconciling)(Default).Status).To(Equal(metav1.ConditionTrue))
		Expect(condition(ns, "shop", webappv1.ConditionStalled)(Default).Status).To(Equal(metav1.ConditionFalse))

		playDeploymentController(ns, "shop")
		Eventually(condition(ns, "shop", webappv1.ConditionReady), timeout, interval).
			Should(haveStatusReason(metav1.ConditionTrue, status.ReasonReady))
		Expect(condition(ns, "shop", webappv1.ConditionReconciling)(Default).Status).To(Equal(metav1.ConditionFalse))
		Expect(condition(ns, "shop", webappv1.ConditionAvailable)(Default).Status).To(Equal(metav1.ConditionTrue))

		got := fetch(ns, "shop")
		Expect(got.Status.ReadyReplicas).To(Equal(int32(2)))
		Expect(got.Status.URL).To(Equal("http://shop." + ns + ".svc:80"))
		Expect(got.Status.Selector).To(Equal("app.kubernetes.io/instance=shop,app.kubernetes.io/name=webapp"))

		By("recording an event when it becomes Ready (creating its children is no event of its own)")
		Eventually(eventReasons(ns, "shop"), timeout, interval).Should(Equal([]string{status.ReasonReady}))
		Consistently(eventReasons(ns, "shop"), time.Second, interval).Should(Equal([]string{status.ReasonReady}))
	})

	It("corrects drift in any field it manages and recreates deleted children, leaving others' fields alone", func() {
		createReady(newWebApp(ns, "drift"))

		By("someone edits the image, the replicas and a label, and adds an annotation of their own")
		Eventually(func(g Gomega) {
			d := getDeployment(ns, "drift")(g)
			d.Spec.Template.Spec.Containers[0].Image = "evil:latest"
			d.Spec.Replicas = ptr.To[int32](7)
			d.Labels[resources.LabelInstance] = "tampered"
			d.Annotations = map[string]string{"team.example.com/owner": "alice"}
			g.Expect(k8sClient.Update(ctx, d)).To(Succeed())
		}, timeout, interval).Should(Succeed())
		Eventually(func(g Gomega) {
			d := getDeployment(ns, "drift")(g)
			g.Expect(d.Spec.Template.Spec.Containers[0].Image).To(Equal("example.com/shop:1.0"))
			g.Expect(d.Spec.Replicas).To(Equal(ptr.To[int32](2)))
			g.Expect(d.Labels).To(HaveKeyWithValue(resources.LabelInstance, "drift"))
			g.Expect(d.Annotations).To(HaveKeyWithValue("team.example.com/owner", "alice"))
		}, timeout, interval).Should(Succeed())
		Eventually(eventReasons(ns, "drift"), timeout, interval).Should(ContainElement(controller.ReasonDriftCorrected))

		By("someone edits the Service's type, target port and selector")
		Eventually(func(g Gomega) {
			s := getService(ns, "drift")(g)
			s.Spec.Ports[0].TargetPort = intstr.FromInt32(9999)
			s.Spec.Type = corev1.ServiceTypeNodePort
			s.Spec.Selector = map[string]string{"app": "other"}
			g.Expect(k8sClient.Update(ctx, s)).To(Succeed())
		}, timeout, interval).Should(Succeed())
		Eventually(func(g Gomega) {
			s := getService(ns, "drift")(g)
			g.Expect(s.Spec.Type).To(Equal(corev1.ServiceTypeClusterIP))
			g.Expect(s.Spec.Ports).To(ConsistOf(And(HaveField("Port", int32(80)), HaveField("TargetPort", intstr.FromString("http")),
				HaveField("NodePort", int32(0)))))
			g.Expect(s.Spec.Selector).To(HaveKeyWithValue(resources.LabelInstance, "drift"))
		}, timeout, interval).Should(Succeed())

		By("someone renumbers the Service port: server-side apply keeps their list item, so the clash is reported")
		Eventually(func(g Gomega) {
			s := getService(ns, "drift")(g)
			s.Spec.Ports[0].Port = 9999
			g.Expect(k8sClient.Update(ctx, s)).To(Succeed())
		}, timeout, interval).Should(Succeed())
		bumpReplicas(ns, "drift", 2) // a no-op spec change, to make sure a pass runs after the edit
		Eventually(condition(ns, "drift", webappv1.ConditionStalled), timeout, interval).
			Should(And(haveStatusReason(metav1.ConditionTrue, status.ReasonInvalidSpec),
				HaveField("Message", ContainSubstring("delete it and the operator recreates it"))))

		By("someone deletes the Service")
		old := getService(ns, "drift")(Default)
		Expect(k8sClient.Delete(ctx, old)).To(Succeed())
		Eventually(func(g Gomega) types.UID {
			return getService(ns, "drift")(g).UID
		}, timeout, interval).ShouldNot(Or(BeEmpty(), Equal(old.UID)))

		By("someone removes the managed-by label, which takes the Deployment out of the operator's cache")
		Eventually(func(g Gomega) {
			d := getDeployment(ns, "drift")(g)
			delete(d.Labels, resources.LabelManagedBy)
			g.Expect(k8sClient.Update(ctx, d)).To(Succeed())
		}, timeout, interval).Should(Succeed())
		// The label removal itself is invisible to a cache that only holds labelled objects, so a
		// spec change triggers the next pass; that pass must find the Deployment and relabel it.
		bumpReplicas(ns, "drift", 3)
		Eventually(func(g Gomega) {
			d := getDeployment(ns, "drift")(g)
			g.Expect(d.Labels).To(HaveKeyWithValue(resources.LabelManagedBy, resources.ManagedBy))
			g.Expect(d.Spec.Replicas).To(Equal(ptr.To[int32](3)))
		}, timeout, interval).Should(Succeed())
	})

	It("rolls the Deployment on a spec change and tracks the rollout in status", func() {
		createReady(newWebApp(ns, "roll"))
		before := getDeployment(ns, "roll")(Default)

		Eventually(func(g Gomega) {
			app := fetch(ns, "roll")
			app.Spec.Image = "example.com/shop:2.0"
			app.Spec.Env = []webappv1.EnvVar{{Name: "MODE", Value: "blue"}}
			g.Expect(k8sClient.Update(ctx, app)).To(Succeed())
		}, timeout, interval).Should(Succeed())

		Eventually(func(g Gomega) {
			d := getDeployment(ns, "roll")(g)
			g.Expect(d.Generation).To(BeNumerically(">", before.Generation))
			c := d.Spec.Template.Spec.Containers[0]
			g.Expect(c.Image).To(Equal("example.com/shop:2.0"))
			g.Expect(c.Env).To(ConsistOf(corev1.EnvVar{Name: "MODE", Value: "blue"}))
			g.Expect(d.Spec.Selector).To(Equal(before.Spec.Selector), "the selector must never change")
		}, timeout, interval).Should(Succeed())
		Eventually(condition(ns, "roll", webappv1.ConditionReady), timeout, interval).
			Should(haveStatusReason(metav1.ConditionFalse, status.ReasonRolloutInProgress))

		By("the rollout half done: one new replica, two old ones")
		Eventually(func(g Gomega) {
			d := getDeployment(ns, "roll")(g)
			d.Status.ObservedGeneration = d.Generation
			d.Status.Replicas, d.Status.UpdatedReplicas, d.Status.AvailableReplicas = 3, 1, 2
			g.Expect(k8sClient.Status().Update(ctx, d)).To(Succeed())
		}, timeout, interval).Should(Succeed())
		Eventually(func(g Gomega) string {
			c := condition(ns, "roll", webappv1.ConditionReady)(g)
			g.Expect(c.Reason).To(Equal(status.ReasonRolloutInProgress))
			return c.Message
		}, timeout, interval).Should(Equal("1 of 2 replicas updated to the latest spec"))

		playDeploymentController(ns, "roll")
		Eventually(condition(ns, "roll", webappv1.ConditionReady), timeout, interval).
			Should(haveStatusReason(metav1.ConditionTrue, status.ReasonReady))

		By("removing the env var removes it from the Deployment (we own it, so applying without it prunes it)")
		Eventually(func(g Gomega) {
			app := fetch(ns, "roll")
			app.Spec.Env = nil
			g.Expect(k8sClient.Update(ctx, app)).To(Succeed())
		}, timeout, interval).Should(Succeed())
		Eventually(func(g Gomega) []corev1.EnvVar {
			return getDeployment(ns, "roll")(g).Spec.Template.Spec.Containers[0].Env
		}, timeout, interval).Should(BeEmpty())
	})

	It("reports progress deadline exceeded as Stalled", func() {
		createReady(newWebApp(ns, "slow"))
		Eventually(func(g Gomega) {
			d := getDeployment(ns, "slow")(g)
			d.Status.Conditions = append(d.Status.Conditions, appsv1.DeploymentCondition{
				Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse, Reason: "ProgressDeadlineExceeded",
				Message: `ReplicaSet "slow-abc" has timed out progressing.`,
			})
			d.Status.UpdatedReplicas = 1
			g.Expect(k8sClient.Status().Update(ctx, d)).To(Succeed())
		}, timeout, interval).Should(Succeed())
		Eventually(condition(ns, "slow", webappv1.ConditionStalled), timeout, interval).
			Should(haveStatusReason(metav1.ConditionTrue, status.ReasonProgressDeadlineExceeded))
		Expect(condition(ns, "slow", webappv1.ConditionReconciling)(Default).Status).To(Equal(metav1.ConditionFalse))
		Expect(condition(ns, "slow", webappv1.ConditionReady)(Default).Status).To(Equal(metav1.ConditionFalse))
	})

	It("never touches a same-name Deployment it does not control, and reports NameConflict", func() {
		foreign := &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: "taken", Namespace: ns, Labels: map[string]string{"app": "theirs"}},
			Spec: appsv1.DeploymentSpec{
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "theirs"}},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "theirs"}},
					Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "theirs:1"}}},
				},
			},
		}
		Expect(k8sClient.Create(ctx, foreign)).To(Succeed())
		before := getDeployment(ns, "taken")(Default)

		Expect(k8sClient.Create(ctx, newWebApp(ns, "taken"))).To(Succeed())
		Eventually(condition(ns, "taken", webappv1.ConditionStalled), timeout, interval).
			Should(haveStatusReason(metav1.ConditionTrue, status.ReasonNameConflict))
		Expect(condition(ns, "taken", webappv1.ConditionReady)(Default).Message).To(ContainSubstring("not controlled by this WebApp"))

		Consistently(func(g Gomega) {
			after := getDeployment(ns, "taken")(g)
			g.Expect(after.ResourceVersion).To(Equal(before.ResourceVersion), "the foreign Deployment was modified")
			g.Expect(after.OwnerReferences).To(BeEmpty())
		}, 2*time.Second, interval).Should(Succeed())
		Expect(apierrors.IsNotFound(k8sClient.Get(ctx, key(ns, "taken"), &corev1.Service{}))).To(BeTrue(),
			"no half-made WebApp: the Service is not created while the Deployment is blocked")

		By("a foreign Service that even carries our managed-by label is not adopted either")
		Expect(k8sClient.Create(ctx, &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: "fake", Namespace: ns, Labels: map[string]string{resources.LabelManagedBy: resources.ManagedBy}},
			Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 1234}}},
		})).To(Succeed())
		svcBefore := getService(ns, "fake")(Default)
		Expect(k8sClient.Create(ctx, newWebApp(ns, "fake"))).To(Succeed())
		DeferCleanup(func() { Expect(k8sClient.Delete(ctx, fetch(ns, "fake"))).To(Succeed()) })
		Eventually(condition(ns, "fake", webappv1.ConditionStalled), timeout, interval).
			Should(haveStatusReason(metav1.ConditionTrue, status.ReasonNameConflict))
		Expect(getService(ns, "fake")(Default).ResourceVersion).To(Equal(svcBefore.ResourceVersion))

		By("once the user deletes the foreign object, the WebApp converges at its next recheck, with no edit")
		Expect(k8sClient.Delete(ctx, foreign)).To(Succeed())
		Eventually(func(g Gomega) bool {
			return metav1.IsControlledBy(getDeployment(ns, "taken")(g), fetch(ns, "taken"))
		}, 2*timeout, interval).Should(BeTrue())
		Eventually(condition(ns, "taken", webappv1.ConditionStalled), timeout, interval).
			Should(HaveField("Status", metav1.ConditionFalse))
	})

	It("reports a spec the API server refuses at reconcile time as Stalled InvalidSpec, then recovers", func() {
		app := newWebApp(ns, "badenv")
		// Admission checks each quantity, but cannot compare them without parsing quantities in CEL
		// (see docs/conditions.md); the Deployment's own validation refuses a request above its limit.
		app.Spec.Resources = webappv1.ResourceRequirements{
			Requests: webappv1.ResourceList{"cpu": webappv1.MustParseQuantity("2")},
			Limits:   webappv1.ResourceList{"cpu": webappv1.MustParseQuantity("1")},
		}
		Expect(k8sClient.Create(ctx, app)).To(Succeed())
		Eventually(condition(ns, "badenv", webappv1.ConditionStalled), timeout, interval).
			Should(haveStatusReason(metav1.ConditionTrue, status.ReasonInvalidSpec))
		Expect(condition(ns, "badenv", webappv1.ConditionReady)(Default).Message).To(ContainSubstring("must be less than or equal to cpu limit"))

		By("no hot loop: a stalled WebApp is not retried again and again")
		// Every apply attempt, status write and Event would be a write to the spec's namespace.
		settled := settledWritesIn(ns)
		Expect(settled).To(BeNumerically(">", 0), "the stall was reported")
		Consistently(func() int { return len(requests.WritesIn(ns)) }, 3*time.Second, 200*time.Millisecond).
			Should(Equal(settled), "a stalled WebApp kept writing: %v", requests.WritesIn(ns))

		Eventually(func(g Gomega) {
			a := fetch(ns, "badenv")
			a.Spec.Resources.Limits["cpu"] = webappv1.MustParseQuantity("2")
			g.Expect(k8sClient.Update(ctx, a)).To(Succeed())
		}, timeout, interval).Should(Succeed())
		Eventually(getDeployment(ns, "badenv"), timeout, interval).ShouldNot(BeNil())
		Eventually(condition(ns, "badenv", webappv1.ConditionStalled), timeout, interval).
			Should(HaveField("Status", metav1.ConditionFalse))
	})

	It("names a pod that cannot start as the reason the WebApp is not ready", func() {
		Expect(k8sClient.Create(ctx, newWebApp(ns, "broken"))).To(Succeed())
		Eventually(getDeployment(ns, "broken"), timeout, interval).ShouldNot(BeNil())

		By("a pod that only carries the WebApp's selector labels (another tool's) is not the WebApp's")
		Eventually(condition(ns, "broken", webappv1.ConditionReady), timeout, interval).ShouldNot(BeNil())
		imposter := failingPod(ns, "broken-imposter", map[string]string{
			resources.LabelName: resources.AppName, resources.LabelInstance: "broken"}, nil)
		Consistently(condition(ns, "broken", webappv1.ConditionReady), 2*time.Second, interval).
			ShouldNot(HaveField("Reason", status.ReasonPodFailing))
		Expect(k8sClient.Delete(ctx, imposter)).To(Succeed())

		// Play the ReplicaSet controller and the kubelet: a pod of the WebApp whose image cannot be pulled.
		pod := failingPod(ns, "broken-7d9f-abcde", map[string]string{resources.LabelName: resources.AppName,
			resources.LabelInstance: "broken", resources.LabelManagedBy: resources.ManagedBy, "pod-template-hash": "7d9f"},
			[]metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "broken-7d9f", UID: "rs-uid",
				Controller: ptr.To(true)}})

		Eventually(condition(ns, "broken", webappv1.ConditionReady), timeout, interval).Should(And(
			haveStatusReason(metav1.ConditionFalse, status.ReasonPodFailing),
			HaveField("Message", ContainSubstring(`pod broken-7d9f-abcde: ImagePullBackOff: Back-off pulling image "example.com/shop:nope"`))))
		Expect(condition(ns, "broken", webappv1.ConditionReconciling)(Default).Status).To(Equal(metav1.ConditionTrue))

		By("the pod recovers: the reason goes back to the rollout's")
		Eventually(func(g Gomega) {
			p := &corev1.Pod{}
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(pod), p)).To(Succeed())
			p.Status.ContainerStatuses[0].State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}
			g.Expect(k8sClient.Status().Update(ctx, p)).To(Succeed())
		}, timeout, interval).Should(Succeed())
		Eventually(condition(ns, "broken", webappv1.ConditionReady), timeout, interval).
			Should(haveStatusReason(metav1.ConditionFalse, status.ReasonRolloutInProgress))
	})

	It("keeps a scaling WebApp Ready, reports the scale in Reconciling, and records no event for it", func() {
		createReady(newWebApp(ns, "growing"))
		Eventually(eventReasons(ns, "growing"), timeout, interval).Should(ContainElement(status.ReasonReady))
		events := eventReasons(ns, "growing")(Default)
		Eventually(func(g Gomega) {
			a := fetch(ns, "growing")
			a.Spec.Replicas = ptr.To[int32](4)
			g.Expect(k8sClient.Update(ctx, a)).To(Succeed())
		}, timeout, interval).Should(Succeed())
		Eventually(func(g Gomega) *int32 { return getDeployment(ns, "growing")(g).Spec.Replicas }, timeout, interval).
			Should(Equal(ptr.To[int32](4)))

		By("the Deployment controller has made 3 of the 4 pods, 2 of them available")
		Eventually(func(g Gomega) {
			d := getDeployment(ns, "growing")(g)
			d.Status.ObservedGeneration, d.Status.Replicas, d.Status.UpdatedReplicas = d.Generation, 3, 3
			d.Status.ReadyReplicas, d.Status.AvailableReplicas = 2, 2
			g.Expect(k8sClient.Status().Update(ctx, d)).To(Succeed())
		}, timeout, interval).Should(Succeed())
		Eventually(condition(ns, "growing", webappv1.ConditionReconciling), timeout, interval).Should(And(
			HaveField("Message", "scaling to 4 replicas: 2 available"),
			haveStatusReason(metav1.ConditionTrue, status.ReasonScaling),
			HaveField("Message", "scaling to 4 replicas: 2 available")))
		Expect(condition(ns, "growing", webappv1.ConditionReady)(Default)).
			To(haveStatusReason(metav1.ConditionTrue, status.ReasonScaling))

		By("all 4 available: Ready again, and no event was recorded for the scale")
		playDeploymentController(ns, "growing")
		Eventually(condition(ns, "growing", webappv1.ConditionReconciling), timeout, interval).
			Should(HaveField("Status", metav1.ConditionFalse))
		Expect(condition(ns, "growing", webappv1.ConditionReady)(Default)).
			To(haveStatusReason(metav1.ConditionTrue, status.ReasonReady))
		Consistently(eventReasons(ns, "growing"), 2*time.Second, interval).Should(Equal(events))
	})

	It("stalls at once, naming the fix, when the kubelet refuses an image that runs as root", func() {
		Expect(k8sClient.Create(ctx, newWebApp(ns, "rooted"))).To(Succeed())
		Eventually(getDeployment(ns, "rooted"), timeout, interval).ShouldNot(BeNil())
		pod := failingPod(ns, "rooted-7d9f-abcde", map[string]string{resources.LabelName: resources.AppName,
			resources.LabelInstance: "rooted", resources.LabelManagedBy: resources.ManagedBy, "pod-template-hash": "7d9f"},
			[]metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rooted-7d9f", UID: "rs-uid",
				Controller: ptr.To(true)}})
		Eventually(func(g Gomega) {
			p := &corev1.Pod{}
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(pod), p)).To(Succeed())
			p.Status.ContainerStatuses[0].State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{
				Reason: "CreateContainerConfigError", Message: "container has runAsNonRoot and image will run as root " +
					`(pod: "rooted-7d9f-abcde_` + ns + `(uid)", container: app)`}}
			g.Expect(k8sClient.Status().Update(ctx, p)).To(Succeed())
		}, timeout, interval).Should(Succeed())
		Eventually(condition(ns, "rooted", webappv1.ConditionStalled), timeout, interval).Should(And(
			haveStatusReason(metav1.ConditionTrue, status.ReasonImageRunsAsRoot),
			HaveField("Message", ContainSubstring("set spec.pod.security.runAsUser"))))
		Expect(condition(ns, "rooted", webappv1.ConditionReconciling)(Default).Status).To(Equal(metav1.ConditionFalse))
	})

	It("stalls before applying anything when an image reference cannot parse", func() {
		app := newWebApp(ns, "badimage")
		app.Spec.Image = "NGINX:Latest"
		Expect(k8sClient.Create(ctx, app)).To(Succeed())
		Eventually(condition(ns, "badimage", webappv1.ConditionStalled), timeout, interval).Should(And(
			haveStatusReason(metav1.ConditionTrue, status.ReasonInvalidImage),
			HaveField("Message", ContainSubstring(`spec.container.image: image "NGINX:Latest"`))))
		Consistently(func() error { return k8sClient.Get(ctx, key(ns, "badimage"), &appsv1.Deployment{}) },
			2*time.Second, interval).Should(Satisfy(apierrors.IsNotFound))
	})

	It("serves the scale subresource", func() {
		createReady(newWebApp(ns, "scaled"))
		scale := &autoscalingv1.Scale{}
		app := fetch(ns, "scaled")
		Expect(k8sClient.SubResource("scale").Get(ctx, app, scale)).To(Succeed())
		Expect(scale.Spec.Replicas).To(Equal(int32(2)))
		Expect(scale.Status.Replicas).To(Equal(int32(2)))
		Expect(scale.Status.Selector).To(Equal("app.kubernetes.io/instance=scaled,app.kubernetes.io/name=webapp"))

		scale.Spec.Replicas = 5
		Expect(k8sClient.SubResource("scale").Update(ctx, app, client.WithSubResourceBody(scale))).To(Succeed())
		Eventually(func(g Gomega) *int32 { return getDeployment(ns, "scaled")(g).Spec.Replicas }, timeout, interval).
			Should(Equal(ptr.To[int32](5)))
		Eventually(condition(ns, "scaled", webappv1.ConditionReady), timeout, interval).
			Should(haveStatusReason(metav1.ConditionFalse, status.ReasonRolloutInProgress))
		playDeploymentController(ns, "scaled")
		Eventually(func(g Gomega) int32 {
			g.Expect(k8sClient.SubResource("scale").Get(ctx, fetch(ns, "scaled"), scale)).To(Succeed())
			return scale.Status.Replicas
		}, timeout, interval).Should(Equal(int32(5)))
	})

	It("makes zero write requests, and reads only from its cache, on a pass over an up-to-date WebApp", func() {
		createConfigMap(ns, "steady-config", map[string]string{"greeting": "hello"})
		createSecret(ns, "steady-secret", map[string]string{"TOKEN": "s3cret"})
		Expect(k8sClient.Create(ctx, steadyWebApp(ns))).To(Succeed())
		Eventually(getDeployment(ns, "steady"), timeout, interval).ShouldNot(BeNil())
		playDeploymentController(ns, "steady")
		playIngressController(ns, "steady")
		playGatewayController(ns, "steady", [3]string{"public", "gateways", "https"})
		Eventually(condition(ns, "steady", webappv1.ConditionReady), timeout, interval).
			Should(haveStatusReason(metav1.ConditionTrue, status.ReasonReady))
		// Let any pass still in flight, and its Events, finish.
		writesBefore := settledWritesIn(ns)
		readsBefore := len(requests.ReadsIn(ns))
		passesBefore := reconcileCount()

		// A change to a child that does not touch our fields triggers a pass through the Owns watch:
		// to each kind of child the WebApp has, one after the other.
		// (A label, not an annotation: annotation changes bump a Deployment's generation.)
		touched := 0
		for _, child := range resources.All {
			if apierrors.IsNotFound(k8sClient.Get(ctx, key(ns, "steady"), child.New())) {
				continue // an optional kind this WebApp does not ask for
			}
			touched++
			Eventually(func(g Gomega) {
				obj := child.New()
				g.Expect(k8sClient.Get(ctx, key(ns, "steady"), obj)).To(Succeed())
				labels := obj.GetLabels()
				labels["touched"] = fmt.Sprint(time.Now().UnixNano())
				obj.SetLabels(labels)
				g.Expect(k8sClient.Update(ctx, obj)).To(Succeed())
			}, timeout, interval).Should(Succeed(), "touching the %s", child.Kind())
			Eventually(reconcileCount, timeout, interval).Should(BeNumerically(">", passesBefore), "no pass after touching the %s", child.Kind())
			passesBefore = reconcileCount()
		}
		Expect(touched).To(Equal(len(resources.All)), "steadyWebApp must ask for a child of every kind")
		// The label change itself is a write of the test's own client, not of the manager's.
		Consistently(func() []string { return requests.WritesIn(ns)[writesBefore:] }, 2*time.Second, 100*time.Millisecond).
			Should(BeEmpty(), "a pass with nothing to change must not write")
		Expect(requests.ReadsIn(ns)[readsBefore:]).To(BeEmpty(), "a pass reads the WebApp and its children from the cache")
	})
})

// steadyWebApp is a WebApp that asks for a child of every kind, and reads a ConfigMap and a Secret
// (steady-config and steady-secret, which its spec creates).
func steadyWebApp(ns string) *webappv1.WebApp {
	app := newWebApp(ns, "steady")
	app.Spec.Env = []webappv1.EnvVar{{Name: "GREETING", ValueFrom: &webappv1.EnvVarSource{
		ConfigMapKeyRef: &webappv1.KeySelector{Name: "steady-config", Key: "greeting"}}}}
	app.Spec.EnvFrom = []webappv1.EnvFromSource{{SecretRef: &webappv1.ObjectReference{Name: "steady-secret"}}}
	app.Spec.Autoscaling = &webappv1.Autoscaling{MinReplicas: ptr.To[int32](1), MaxReplicas: 4, // and so a budget
		TargetCPUUtilizationPercentage: ptr.To[int32](60), TargetMemoryUtilizationPercentage: ptr.To[int32](80),
		Behavior: &webappv1.ScalingBehavior{ScaleDown: &webappv1.ScalingRules{StabilizationWindowSeconds: ptr.To[int32](60),
			SelectPolicy: "Min", Policies: []webappv1.ScalingPolicy{{Type: "Pods", Value: 1, PeriodSeconds: 30}}}}}
	app.Spec.NetworkPolicy = &webappv1.NetworkPolicy{FromNamespaces: []string{"ingress-nginx"}}
	app.Spec.Ingress = &webappv1.Ingress{ClassName: "nginx", Hosts: []string{"steady.example.com", "*.example.com"},
		Paths: []string{"/", "/api"}, TLS: &webappv1.IngressTLS{SecretName: "steady-tls"},
		Annotations: map[string]webappv1.AnnotationValue{"cert-manager.io/cluster-issuer": "letsencrypt"}}
	app.Spec.Route = &webappv1.Route{Hostnames: []string{"steady.example.com", "*.example.com"}, Paths: []string{"/", "/api"},
		ParentRefs: []webappv1.RouteParentRef{{Name: "public", Namespace: "gateways", SectionName: "https"}}}
	app.Spec.Ports = []webappv1.ContainerPort{{Name: "metrics", ContainerPort: 9090}}
	// scraped from that port, which the Service then exposes too
	app.Spec.Metrics = &webappv1.Metrics{Port: ptr.To(intstr.FromString("metrics")), Path: "/metrics", Interval: "30s"}
	return app
}

// failingPod creates a pod whose image cannot be pulled, as the kubelet would report it.
func failingPod(ns, name string, labels map[string]string, owners []metav1.OwnerReference) *corev1.Pod {
	GinkgoHelper()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels, OwnerReferences: owners},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "example.com/shop:nope"}}},
	}
	Expect(k8sClient.Create(ctx, pod)).To(Succeed())
	pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", Image: "example.com/shop:nope",
		State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{
			Reason: "ImagePullBackOff", Message: `Back-off pulling image "example.com/shop:nope"`}}}}
	Expect(k8sClient.Status().Update(ctx, pod)).To(Succeed())
	return pod
}

// eventReasons returns the reasons of the events about a WebApp, oldest first. An event names the
// WebApp in the version the API server serves the operator, as any reader of events expects.
func eventReasons(ns, name string) func(g Gomega) []string {
	return func(g Gomega) []string {
		var list eventsv1.EventList
		g.Expect(k8sClient.List(ctx, &list, client.InNamespace(ns))).To(Succeed())
		sort.Slice(list.Items, func(i, j int) bool { return list.Items[i].EventTime.Before(&list.Items[j].EventTime) })
		var reasons []string
		for _, e := range list.Items {
			if e.Regarding.Name == name && e.Regarding.Kind == "WebApp" {
				g.Expect(e.Regarding.APIVersion).To(Equal(served.GroupVersion.String()), "event %s", e.Reason)
				reasons = append(reasons, e.Reason)
			}
		}
		return reasons
	}
}

func fetch(ns, name string) *webappv1.WebApp {
	app := &webappv1.WebApp{}
	Expect(k8sClient.Get(ctx, key(ns, name), app)).To(Succeed())
	return app
}

func bumpReplicas(ns, name string, n int32) {
	Eventually(func(g Gomega) {
		app := fetch(ns, name)
		app.Spec.Replicas = ptr.To(n)
		g.Expect(k8sClient.Update(ctx, app)).To(Succeed())
	}, timeout, interval).Should(Succeed())
}
