package controller_test

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/internal/controller"
	"github.com/webapp-operator/webapp-operator/internal/resources"
	"github.com/webapp-operator/webapp-operator/internal/served"
	"github.com/webapp-operator/webapp-operator/internal/status"
)

var _ = Describe("Rollouts", func() {
	var ns string
	BeforeEach(func() { ns = newNamespace() })

	It("rolls a failed rollout back to the last Ready template, holds it, and lets a spec change go on", func() {
		app := newWebApp(ns, "undo")
		app.Spec.Rollout = &webappv1.Rollout{AutoRollback: true}
		Expect(k8sClient.Create(ctx, app)).To(Succeed())
		Eventually(getDeployment(ns, "undo"), timeout, interval).ShouldNot(BeNil())
		playRollout(ns, "undo", 1)
		expectReady(ns, "undo")
		setImage(ns, "undo", "example.com/shop:2.0")
		playRollout(ns, "undo", 2)
		expectReady(ns, "undo")
		Eventually(func(g Gomega) []webappv1.Revision { return fetch(ns, "undo").Status.Revisions }, timeout, interval).
			Should(HaveExactElements(
				And(HaveField("Revision", int64(2)), HaveField("Image", "example.com/shop:2.0"), HaveField("Generation", int64(2))),
				And(HaveField("Revision", int64(1)), HaveField("Image", "example.com/shop:1.0"), HaveField("Generation", int64(1)))))

		By("a rollout whose progress deadline passes goes back to revision 2")
		setImage(ns, "undo", "example.com/shop:broken")
		newRevision(ns, "undo", 3)
		Eventually(func() int64 { return fetch(ns, "undo").Status.ObservedGeneration }, timeout, interval).
			Should(Equal(int64(3)), "the rollout of generation 3 is reported before it fails")
		beforeFailure := settledWritesIn(ns)
		Eventually(func(g Gomega) {
			d := getDeployment(ns, "undo")(g)
			d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: 3, UpdatedReplicas: 1,
				ReadyReplicas: 2, AvailableReplicas: 2, Conditions: []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing,
					Status: corev1.ConditionFalse, Reason: "ProgressDeadlineExceeded", Message: `ReplicaSet "undo-3" has timed out progressing.`}}}
			g.Expect(k8sClient.Status().Update(ctx, d)).To(Succeed())
		}, timeout, interval).Should(Succeed())
		Eventually(func(g Gomega) string { return appImage(getDeployment(ns, "undo")(g)) }, timeout, interval).
			Should(Equal("example.com/shop:2.0"), "the Deployment runs revision 2's template again")
		// the pass applies the Deployment, then writes the status that says so
		Eventually(func() *webappv1.RollbackStatus { return fetch(ns, "undo").Status.RolledBack }, timeout, interval).
			ShouldNot(BeNil())
		rb := fetch(ns, "undo").Status.RolledBack
		Expect(rb.Generation).To(Equal(int64(3)))
		Expect(rb.Image).To(Equal("example.com/shop:broken"))
		Expect(rb.Reason).To(Equal(status.ReasonProgressDeadlineExceeded))
		Expect(rb.To.Revision).To(Equal(int64(2)))
		Expect(fetch(ns, "undo").Spec.Image).To(Equal("example.com/shop:broken"), "the spec is the user's: left as it is")
		Eventually(condition(ns, "undo", webappv1.ConditionReady), timeout, interval).
			Should(haveStatusReason(metav1.ConditionFalse, status.ReasonRollingBack))
		Expect(deploymentWrites(requests.WritesIn(ns)[beforeFailure:])).To(HaveLen(1),
			"the pass that rolls back applies the Deployment once")

		By("once revision 2's pods are back: Ready on it, Stalled until the spec changes, a Warning event")
		playRollout(ns, "undo", 4)
		Eventually(condition(ns, "undo", webappv1.ConditionReady), timeout, interval).
			Should(haveStatusReason(metav1.ConditionTrue, status.ReasonRolledBack))
		Expect(condition(ns, "undo", webappv1.ConditionStalled)(Default)).
			To(haveStatusReason(metav1.ConditionTrue, status.ReasonRolledBack))
		Expect(condition(ns, "undo", webappv1.ConditionReady)(Default).Message).
			To(ContainSubstring("the rollout of generation 3 (image example.com/shop:broken) failed (ProgressDeadlineExceeded"))
		Eventually(eventReasons(ns, "undo"), timeout, interval).Should(ContainElement(status.ReasonRolledBack))
		Expect(eventReasons(ns, "undo")(Default)).NotTo(ContainElement(controller.ReasonDriftCorrected),
			"a rollback is no drift correction")
		Expect(fetch(ns, "undo").Status.Revisions).To(HaveLen(2), "the revision rolled back to is not a new one")

		By("held: a pass over the rolled-back WebApp writes nothing, and does not undo the rollback")
		writes := settledWritesIn(ns)
		playRollout(ns, "undo", 4)
		Consistently(func() []string { return requests.WritesIn(ns)[writes:] }, 2*time.Second, 100*time.Millisecond).
			Should(BeEmpty())
		Expect(appImage(getDeployment(ns, "undo")(Default))).To(Equal("example.com/shop:2.0"))

		By("a spec change ends the rollback and rolls out")
		setImage(ns, "undo", "example.com/shop:3.0")
		Eventually(func(g Gomega) string { return appImage(getDeployment(ns, "undo")(g)) }, timeout, interval).
			Should(Equal("example.com/shop:3.0"))
		Eventually(func() *webappv1.RollbackStatus { return fetch(ns, "undo").Status.RolledBack }, timeout, interval).Should(BeNil())
		Eventually(condition(ns, "undo", webappv1.ConditionStalled), timeout, interval).
			Should(HaveField("Status", metav1.ConditionFalse))
	})

	It("reports a failed rollout without rolling back when the WebApp does not ask for it", func() {
		createReady(newWebApp(ns, "keep"))
		playRollout(ns, "keep", 1)
		expectReady(ns, "keep")
		setImage(ns, "keep", "example.com/shop:broken")
		newRevision(ns, "keep", 2)
		Eventually(func(g Gomega) {
			d := getDeployment(ns, "keep")(g)
			g.Expect(appImage(d)).To(Equal("example.com/shop:broken"))
			d.Status.ObservedGeneration = d.Generation
			d.Status.Conditions = []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing,
				Status: corev1.ConditionFalse, Reason: "ProgressDeadlineExceeded"}}
			g.Expect(k8sClient.Status().Update(ctx, d)).To(Succeed())
		}, timeout, interval).Should(Succeed())
		Eventually(condition(ns, "keep", webappv1.ConditionStalled), timeout, interval).
			Should(haveStatusReason(metav1.ConditionTrue, status.ReasonProgressDeadlineExceeded))
		Consistently(func(g Gomega) string { return appImage(getDeployment(ns, "keep")(g)) }, 2*time.Second, interval).
			Should(Equal("example.com/shop:broken"))
		Expect(fetch(ns, "keep").Status.RolledBack).To(BeNil())
	})

	It("pauses template changes while spec.paused, still scaling, and rolls them out once unpaused", func() {
		createReady(newWebApp(ns, "hold"))
		Eventually(func(g Gomega) {
			app := fetch(ns, "hold")
			app.Spec.Paused = true
			app.Spec.Image = "example.com/shop:2.0"
			app.Spec.Replicas = ptr.To[int32](3)
			g.Expect(k8sClient.Update(ctx, app)).To(Succeed())
		}, timeout, interval).Should(Succeed())
		Eventually(func(g Gomega) {
			d := getDeployment(ns, "hold")(g)
			g.Expect(d.Spec.Paused).To(BeTrue())
			g.Expect(d.Spec.Replicas).To(Equal(ptr.To[int32](3)))
		}, timeout, interval).Should(Succeed())

		By("the paused Deployment keeps its 3 pods on the earlier template: Ready, and says so")
		Eventually(func(g Gomega) {
			d := getDeployment(ns, "hold")(g)
			d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: 3, UpdatedReplicas: 0,
				ReadyReplicas: 3, AvailableReplicas: 3}
			g.Expect(k8sClient.Status().Update(ctx, d)).To(Succeed())
		}, timeout, interval).Should(Succeed())
		Eventually(condition(ns, "hold", webappv1.ConditionReady), timeout, interval).
			Should(And(haveStatusReason(metav1.ConditionTrue, status.ReasonPaused),
				HaveField("Message", ContainSubstring("paused (spec.rollout.paused): 3 of 3 replicas run an earlier pod template"))))
		Expect(condition(ns, "hold", webappv1.ConditionReconciling)(Default).Status).To(Equal(metav1.ConditionFalse))

		By("unpaused, the Deployment is no longer paused: the field is not ours any more")
		Eventually(func(g Gomega) {
			app := fetch(ns, "hold")
			app.Spec.Paused = false
			g.Expect(k8sClient.Update(ctx, app)).To(Succeed())
		}, timeout, interval).Should(Succeed())
		Eventually(func(g Gomega) bool { return getDeployment(ns, "hold")(g).Spec.Paused }, timeout, interval).Should(BeFalse())
		playDeploymentController(ns, "hold")
		Eventually(condition(ns, "hold", webappv1.ConditionReady), timeout, interval).
			Should(haveStatusReason(metav1.ConditionTrue, status.ReasonReady))
	})
})

// setImage changes the WebApp's image and waits until the operator has applied it.
var _ = Describe("Operator upgrades", func() {
	var ns string
	BeforeEach(func() { ns = newNamespace() })

	It("keeps the template an earlier operator rendered until the WebApp changes, and corrects drift in it", func() {
		createReady(newWebApp(ns, "kept"))
		playEarlierOperator(ns, "kept", annotated)
		gen := getDeployment(ns, "kept")(Default).Generation

		By("the same WebApp: the running template stays, and Ready says a new one waits")
		Eventually(condition(ns, "kept", webappv1.ConditionReady), timeout, interval).
			Should(HaveField("Message", HaveSuffix(status.TemplateHeldNote)))
		Consistently(func(g Gomega) {
			d := getDeployment(ns, "kept")(g)
			g.Expect(d.Generation).To(Equal(gen))
			g.Expect(d.Spec.Template.Annotations).To(HaveKey("example.com/rendered-by"))
		}, 2*time.Second, interval).Should(Succeed())

		By("someone else edits the template: put back, and the new rendering with it")
		Eventually(func(g Gomega) {
			d := getDeployment(ns, "kept")(g)
			d.Spec.Template.Spec.Containers[0].Image = "example.com/other:9"
			g.Expect(k8sClient.Update(ctx, d)).To(Succeed())
		}, timeout, interval).Should(Succeed())
		Eventually(func(g Gomega) {
			d := getDeployment(ns, "kept")(g)
			g.Expect(appImage(d)).To(Equal("example.com/shop:1.0"))
			g.Expect(d.Spec.Template.Annotations).NotTo(HaveKey("example.com/rendered-by"))
		}, timeout, interval).Should(Succeed())

		By("held again: more replicas scale it and leave the template alone, which they do not feed")
		playEarlierOperator(ns, "kept", annotated)
		Eventually(condition(ns, "kept", webappv1.ConditionReady), timeout, interval).
			Should(HaveField("Message", HaveSuffix(status.TemplateHeldNote)))
		bumpReplicas(ns, "kept", 3)
		Eventually(func(g Gomega) *int32 { return getDeployment(ns, "kept")(g).Spec.Replicas }, timeout, interval).
			Should(Equal(ptr.To[int32](3)))
		Expect(getDeployment(ns, "kept")(Default).Spec.Template.Annotations).To(HaveKey("example.com/rendered-by"))

		By("a change of what the template is rendered from rolls the new template out with it")
		Eventually(func(g Gomega) {
			app := fetch(ns, "kept")
			app.Spec.Env = []webappv1.EnvVar{{Name: "MODE", Value: "blue"}}
			g.Expect(k8sClient.Update(ctx, app)).To(Succeed())
		}, timeout, interval).Should(Succeed())
		Eventually(func(g Gomega) {
			d := getDeployment(ns, "kept")(g)
			g.Expect(d.Spec.Template.Spec.Containers[0].Env).To(ConsistOf(corev1.EnvVar{Name: "MODE", Value: "blue"}))
			g.Expect(d.Spec.Template.Annotations).NotTo(HaveKey("example.com/rendered-by"))
		}, timeout, interval).Should(Succeed())
	})

	It("brings the stopping defaults to a running WebApp with its next change, not with the upgrade", func() {
		createReady(newWebApp(ns, "plain"))
		playEarlierOperator(ns, "plain", func(t *corev1ac.PodTemplateSpecApplyConfiguration) {
			t.Spec.TerminationGracePeriodSeconds, t.Spec.Containers[0].Lifecycle = nil, nil
		})
		Eventually(condition(ns, "plain", webappv1.ConditionReady), timeout, interval).
			Should(HaveField("Message", HaveSuffix(status.TemplateHeldNote)))
		Expect(getDeployment(ns, "plain")(Default).Spec.Template.Spec.Containers[0].Lifecycle).To(BeNil())

		Eventually(func(g Gomega) {
			app := fetch(ns, "plain")
			app.Spec.Env = []webappv1.EnvVar{{Name: "MODE", Value: "blue"}}
			g.Expect(k8sClient.Update(ctx, app)).To(Succeed())
		}, timeout, interval).Should(Succeed())
		Eventually(func(g Gomega) {
			pod := getDeployment(ns, "plain")(g).Spec.Template.Spec
			g.Expect(pod.Containers[0].Lifecycle).To(Equal(&corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{
				Sleep: &corev1.SleepAction{Seconds: resources.PreStopPause}}}))
			g.Expect(pod.TerminationGracePeriodSeconds).To(Equal(ptr.To[int64](resources.PreStopPause + 30)))
		}, timeout, interval).Should(Succeed())
	})
})

// annotated is an earlier operator's template that also had an annotation.
func annotated(t *corev1ac.PodTemplateSpecApplyConfiguration) {
	t.WithAnnotations(map[string]string{"example.com/rendered-by": "an earlier operator"})
}

// playEarlierOperator applies, as the operator's field manager, the Deployment that a version of
// the operator that rendered the template as earlier does would have rendered for the WebApp as it
// is, stamped as that version would stamp it.
func playEarlierOperator(ns, name string, earlier func(*corev1ac.PodTemplateSpecApplyConfiguration)) {
	GinkgoHelper()
	app := fetch(ns, name)
	desired, err := resources.Deployment.Desired(hub(app))
	Expect(err).NotTo(HaveOccurred())
	d := desired.(*appsv1ac.DeploymentApplyConfiguration)
	earlier(d.Spec.Template)
	spec, err := served.TemplateSpec(hub(app))
	Expect(err).NotTo(HaveOccurred())
	Expect(resources.StampTemplate(d, resources.TemplateInputs(spec, ""))).To(Succeed())
	Expect(k8sClient.Apply(ctx, d, client.FieldOwner(resources.FieldOwner), client.ForceOwnership)).To(Succeed())
	Eventually(func(g Gomega) map[string]string {
		return getDeployment(ns, name)(g).Annotations
	}, timeout, interval).Should(HaveKeyWithValue(resources.TemplateAnnotation, d.Annotations[resources.TemplateAnnotation]))
	playDeploymentController(ns, name)
}

// deploymentWrites are the writes among writes that go to a Deployment or its status.
func deploymentWrites(writes []string) []string {
	var out []string
	for _, w := range writes {
		if strings.Contains(w, "/deployments/") {
			out = append(out, w)
		}
	}
	return out
}

func setImage(ns, name, image string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		app := fetch(ns, name)
		app.Spec.Image = image
		g.Expect(k8sClient.Update(ctx, app)).To(Succeed())
	}, timeout, interval).Should(Succeed())
	Eventually(func(g Gomega) string { return appImage(getDeployment(ns, name)(g)) }, timeout, interval).Should(Equal(image))
}

func expectReady(ns, name string) {
	GinkgoHelper()
	Eventually(condition(ns, name, webappv1.ConditionReady), timeout, interval).
		Should(haveStatusReason(metav1.ConditionTrue, status.ReasonReady))
}

func appImage(d *appsv1.Deployment) string {
	for _, c := range d.Spec.Template.Spec.Containers {
		if c.Name == resources.ContainerName {
			return c.Image
		}
	}
	return ""
}

// playRollout plays the Deployment controller rolling out the Deployment's current template as
// revision rev: the ReplicaSet of that revision (created, or renumbered when it holds the same
// template, as the controller does on a rollback), the Deployment's revision annotation, and a
// status of a finished rollout.
func playRollout(ns, name string, rev int64) {
	GinkgoHelper()
	newRevision(ns, name, rev)
	playDeploymentController(ns, name)
}

// newRevision plays the Deployment controller starting the rollout of the current template as
// revision rev: its ReplicaSet, and the Deployment's revision annotation.
func newRevision(ns, name string, rev int64) {
	GinkgoHelper()
	newReplicaSet(ns, name, rev)
	Eventually(func(g Gomega) {
		d := getDeployment(ns, name)(g)
		if d.Annotations == nil {
			d.Annotations = map[string]string{}
		}
		d.Annotations[status.RevisionAnnotation] = strconv.FormatInt(rev, 10)
		g.Expect(k8sClient.Update(ctx, d)).To(Succeed())
	}, timeout, interval).Should(Succeed())
}

// newReplicaSet creates the Deployment's ReplicaSet of revision rev with its current template, or,
// when a ReplicaSet already holds that template, gives it the new number and keeps the old ones in
// the revision history, as the Deployment controller does.
func newReplicaSet(ns, name string, rev int64) {
	GinkgoHelper()
	d := getDeployment(ns, name)(Default)
	var sets appsv1.ReplicaSetList
	Expect(k8sClient.List(ctx, &sets, client.InNamespace(ns))).To(Succeed())
	for i := range sets.Items {
		rs := &sets.Items[i]
		if appImage(&appsv1.Deployment{Spec: appsv1.DeploymentSpec{Template: rs.Spec.Template}}) != appImage(d) {
			continue
		}
		if old := rs.Annotations[status.RevisionAnnotation]; old != strconv.FormatInt(rev, 10) {
			rs.Annotations[status.RevisionHistoryAnnotation] = old
			rs.Annotations[status.RevisionAnnotation] = strconv.FormatInt(rev, 10)
			Expect(k8sClient.Update(ctx, rs)).To(Succeed())
		}
		return
	}
	template := d.Spec.Template.DeepCopy()
	template.Labels[appsv1.DefaultDeploymentUniqueLabelKey] = fmt.Sprintf("hash%d", rev)
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("%s-%d", name, rev), Labels: template.Labels,
			Annotations:     map[string]string{status.RevisionAnnotation: strconv.FormatInt(rev, 10)},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(d, appsv1.SchemeGroupVersion.WithKind("Deployment"))}},
		Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To[int32](0), Template: *template,
			Selector: &metav1.LabelSelector{MatchLabels: template.Labels}},
	}
	Expect(k8sClient.Create(ctx, rs)).To(Succeed())
}
