package e2e

import (
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/internal/operator"
)

// The specs run in order on one WebApp, like a user would: create, scale, update, break, recover
// with the operator killed mid-rollout, delete. Serial: it kills the operator, and it requires the
// one operator pod that no other container may be killing or adding to.
var _ = Describe("WebApp on a real node", Ordered, Serial, func() {
	const name = "web"
	var key client.ObjectKey

	BeforeAll(func() { key = client.ObjectKey{Namespace: namespace, Name: name} })

	webapp := func() *webappv1.WebApp {
		GinkgoHelper()
		wa := &webappv1.WebApp{}
		Expect(k8s.Get(ctx, key, wa)).To(Succeed())
		return wa
	}
	condition := func(wa *webappv1.WebApp, t string) metav1.Condition {
		if c := meta.FindStatusCondition(wa.Status.Conditions, t); c != nil {
			return *c
		}
		return metav1.Condition{Type: t, Status: "Missing"}
	}
	update := func(mutate func(*webappv1.WebApp)) {
		GinkgoHelper()
		Eventually(func() error {
			wa := &webappv1.WebApp{}
			if err := k8s.Get(ctx, key, wa); err != nil {
				return err
			}
			mutate(wa)
			return k8s.Update(ctx, wa)
		}).Should(Succeed())
	}
	// readyAt waits until the WebApp is Ready for its latest generation with `replicas` replicas, all
	// on `image`, and its pods are Running.
	readyAt := func(image string, replicas int32) {
		GinkgoHelper()
		Eventually(func(g Gomega) {
			wa := webapp()
			ready := condition(wa, webappv1.ConditionReady)
			g.Expect(ready.Status).To(Equal(metav1.ConditionTrue), "Ready: %s: %s", ready.Reason, ready.Message)
			g.Expect(ready.ObservedGeneration).To(Equal(wa.Generation))
			g.Expect(wa.Status.ObservedGeneration).To(Equal(wa.Generation))
			g.Expect(condition(wa, webappv1.ConditionStalled).Status).NotTo(Equal(metav1.ConditionTrue))
			g.Expect(wa.Status.ReadyReplicas).To(Equal(replicas))
			g.Expect(wa.Status.UpdatedReplicas).To(Equal(replicas))
			g.Expect(wa.Status.Replicas).To(Equal(replicas))

			pods := &corev1.PodList{}
			g.Expect(k8s.List(ctx, pods, client.InNamespace(namespace),
				client.MatchingLabels{"app.kubernetes.io/instance": name})).To(Succeed())
			running := 0
			for _, p := range pods.Items {
				if p.DeletionTimestamp == nil && p.Status.Phase == corev1.PodRunning && p.Spec.Containers[0].Image == image {
					running++
				}
			}
			g.Expect(running).To(Equal(int(replicas)), "running pods on %s", image)
		}).Should(Succeed())
	}
	serviceURL := func() string {
		GinkgoHelper()
		svc := &corev1.Service{}
		Expect(k8s.Get(ctx, key, svc)).To(Succeed())
		return fmt.Sprintf("http://%s:%d", svc.Spec.ClusterIP, svc.Spec.Ports[0].Port)
	}
	// servesOnly waits until `n` requests in a row to the Service all answer `want`.
	servesOnly := func(want string, n int) {
		GinkgoHelper()
		url := serviceURL()
		Eventually(func(g Gomega) {
			for range n {
				code, body, err := get(url + "/")
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(code).To(Equal(200))
				g.Expect(body).To(Equal(want))
			}
		}).Should(Succeed())
	}
	operatorPod := func() *corev1.Pod {
		GinkgoHelper()
		pods := &corev1.PodList{}
		Expect(k8s.List(ctx, pods, client.InNamespace(operatorNamespace),
			client.MatchingLabels{"control-plane": "controller-manager"})).To(Succeed())
		var live []corev1.Pod
		for _, p := range pods.Items {
			if p.DeletionTimestamp == nil {
				live = append(live, p)
			}
		}
		Expect(live).To(HaveLen(1))
		return &live[0]
	}

	It("runs the operator as a pod", func() {
		Eventually(func(g Gomega) {
			d := &appsv1.Deployment{}
			g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: operatorNamespace, Name: operatorDeployment}, d)).To(Succeed())
			g.Expect(d.Status.AvailableReplicas).To(Equal(int32(1)))
			p := operatorPod()
			g.Expect(p.Status.Phase).To(Equal(corev1.PodRunning))
			g.Expect(p.Status.ContainerStatuses).To(HaveLen(1))
			g.Expect(p.Status.ContainerStatuses[0].Ready).To(BeTrue())
		}).Should(Succeed())
	})

	It("creates a WebApp whose pods run, become Ready and serve HTTP through the Service", func() {
		Expect(k8s.Create(ctx, &webappv1.WebApp{
			ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
			Spec: webappv1.WebAppSpec{
				Image:       demoImage + ":v1",
				Replicas:    ptr.To[int32](2),
				Port:        8080,
				HealthCheck: &webappv1.HealthCheck{Path: "/healthz"},
			},
		})).To(Succeed())
		readyAt(demoImage+":v1", 2)
		wa := webapp()
		Expect(condition(wa, webappv1.ConditionAvailable).Status).To(Equal(metav1.ConditionTrue))
		Expect(condition(wa, webappv1.ConditionReconciling).Status).To(Equal(metav1.ConditionFalse))
		Expect(wa.Status.URL).To(Equal(fmt.Sprintf("http://%s.%s.svc:80", name, namespace)))

		d := &appsv1.Deployment{}
		Expect(k8s.Get(ctx, key, d)).To(Succeed())
		Expect(metav1.IsControlledBy(d, wa)).To(BeTrue())
		servesOnly("hello from v1", 6)

		By("resolving the Service's name with cluster DNS from inside a pod")
		svc := &corev1.Service{}
		Expect(k8s.Get(ctx, key, svc)).To(Succeed())
		code, body, err := get(serviceURL() + "/lookup?host=" + name + "." + namespace + ".svc.cluster.local")
		Expect(err).NotTo(HaveOccurred())
		Expect(code).To(Equal(200), body)
		Expect(strings.Fields(body)).To(ContainElement(svc.Spec.ClusterIP))
	})

	It("scales through the scale subresource", func() {
		wa := webapp()
		scale := &autoscalingv1.Scale{}
		Expect(k8s.SubResource("scale").Get(ctx, wa, scale)).To(Succeed())
		Expect(scale.Spec.Replicas).To(Equal(int32(2)))
		scale.Spec.Replicas = 3
		Expect(k8s.SubResource("scale").Update(ctx, wa, client.WithSubResourceBody(scale))).To(Succeed())
		readyAt(demoImage+":v1", 3)
		Expect(k8s.SubResource("scale").Get(ctx, wa, scale)).To(Succeed())
		Expect(scale.Status.Replicas).To(Equal(int32(3)))
		Expect(scale.Status.Selector).To(ContainSubstring("app.kubernetes.io/instance=" + name))
	})

	It("rolls out a new image tag and tracks it in status", func() {
		update(func(wa *webappv1.WebApp) { wa.Spec.Image = demoImage + ":v2" })
		// the rollout is reported while it runs, then completes
		Eventually(func(g Gomega) {
			wa := webapp()
			c := condition(wa, webappv1.ConditionReady)
			g.Expect(c.ObservedGeneration).To(Equal(wa.Generation))
		}).Should(Succeed())
		readyAt(demoImage+":v2", 3)
		servesOnly("hello from v2", 9)
	})

	It("reports a broken image as not Ready, then Stalled once the progress deadline passes", func() {
		update(func(wa *webappv1.WebApp) {
			wa.Spec.Image = demoImage + ":does-not-exist"
			wa.Spec.ProgressDeadlineSeconds = ptr.To[int32](10)
		})
		Eventually(func(g Gomega) {
			wa := webapp()
			ready := condition(wa, webappv1.ConditionReady)
			g.Expect(ready.ObservedGeneration).To(Equal(wa.Generation))
			g.Expect(ready.Status).To(Equal(metav1.ConditionFalse))
			// The status names the failing pod and the kubelet's reason, not just "in progress"
			// (the deadline is short, so the reason may already have moved on to the deadline).
			g.Expect(ready.Reason).To(BeElementOf("PodFailing", "ProgressDeadlineExceeded"))
			g.Expect(ready.Message).To(MatchRegexp(`pod \S+: (ErrImagePull|ImagePullBackOff|ErrImageNeverPull): `))
		}).Should(Succeed())
		GinkgoWriter.Printf("while the broken rollout runs, Ready: %+v\n", condition(webapp(), webappv1.ConditionReady))

		Eventually(func(g Gomega) {
			wa := webapp()
			stalled := condition(wa, webappv1.ConditionStalled)
			g.Expect(stalled.Status).To(Equal(metav1.ConditionTrue), "Stalled: %s: %s", stalled.Reason, stalled.Message)
			g.Expect(stalled.Reason).To(Equal("ProgressDeadlineExceeded"))
			g.Expect(stalled.Message).To(MatchRegexp(`pod \S+: (ErrImagePull|ImagePullBackOff|ErrImageNeverPull): `))
			ready := condition(wa, webappv1.ConditionReady)
			g.Expect(ready.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(ready.Reason).To(Equal("ProgressDeadlineExceeded"))
			g.Expect(condition(wa, webappv1.ConditionReconciling).Status).To(Equal(metav1.ConditionFalse))
		}).Should(Succeed())
		GinkgoWriter.Printf("after the deadline, Stalled: %+v\n", condition(webapp(), webappv1.ConditionStalled))

		By("the new pods fail to pull the image; the old ones keep serving")
		Eventually(func(g Gomega) {
			pods := &corev1.PodList{}
			g.Expect(k8s.List(ctx, pods, client.InNamespace(namespace),
				client.MatchingLabels{"app.kubernetes.io/instance": name})).To(Succeed())
			waiting := []string{}
			for _, p := range pods.Items {
				for _, cs := range p.Status.ContainerStatuses {
					if cs.State.Waiting != nil {
						waiting = append(waiting, cs.State.Waiting.Reason)
					}
				}
			}
			g.Expect(waiting).To(ContainElement(BeElementOf("ErrImagePull", "ImagePullBackOff", "ErrImageNeverPull")))
		}).Should(Succeed())
		servesOnly("hello from v2", 6)
	})

	It("converges when the operator is killed in the middle of a rollout", func() {
		old := operatorPod()
		update(func(wa *webappv1.WebApp) { wa.Spec.Image = demoImage + ":v1" })
		// the operator has applied the new image: the Deployment is rolling
		Eventually(func(g Gomega) {
			d := &appsv1.Deployment{}
			g.Expect(k8s.Get(ctx, key, d)).To(Succeed())
			g.Expect(d.Spec.Template.Spec.Containers[0].Image).To(Equal(demoImage + ":v1"))
		}).Should(Succeed())
		By("killing the operator pod " + old.Name + " (no grace period: its leader lease is not released)")
		Expect(k8s.Delete(ctx, old, client.GracePeriodSeconds(0))).To(Succeed())
		By("changing the WebApp while no operator runs")
		update(func(wa *webappv1.WebApp) { wa.Spec.Replicas = ptr.To[int32](2) })

		Eventually(func(g Gomega) {
			pods := &corev1.PodList{}
			g.Expect(k8s.List(ctx, pods, client.InNamespace(operatorNamespace),
				client.MatchingLabels{"control-plane": "controller-manager"})).To(Succeed())
			g.Expect(pods.Items).To(ContainElement(And(
				WithTransform(func(p corev1.Pod) string { return p.Name }, Not(Equal(old.Name))),
				WithTransform(func(p corev1.Pod) corev1.PodPhase { return p.Status.Phase }, Equal(corev1.PodRunning)),
			)))
		}).Should(Succeed())
		By("the new pod takes the lease once the killed one's expires (up to its duration, plus a retry)")
		takeover := operator.DefaultLeaseDuration + operator.DefaultRetryPeriod + time.Minute
		Eventually(func() string { return leaseHolder() }, takeover, time.Second).
			ShouldNot(Or(BeEmpty(), HavePrefix(old.Name+"_")))
		readyAt(demoImage+":v1", 2)
		d := &appsv1.Deployment{}
		Expect(k8s.Get(ctx, key, d)).To(Succeed())
		Expect(*d.Spec.Replicas).To(Equal(int32(2)))
		servesOnly("hello from v1", 6)
	})

	It("garbage-collects the Deployment, Service and pods when the WebApp is deleted", func() {
		Expect(k8s.Delete(ctx, webapp())).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(apierrors.IsNotFound(k8s.Get(ctx, key, &appsv1.Deployment{}))).To(BeTrue(), "Deployment still there")
			g.Expect(apierrors.IsNotFound(k8s.Get(ctx, key, &corev1.Service{}))).To(BeTrue(), "Service still there")
			pods := &corev1.PodList{}
			g.Expect(k8s.List(ctx, pods, client.InNamespace(namespace),
				client.MatchingLabels{"app.kubernetes.io/instance": name})).To(Succeed())
			g.Expect(pods.Items).To(BeEmpty())
		}).Should(Succeed())
	})
})
