package controller_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/internal/resources"
	"github.com/webapp-operator/webapp-operator/internal/status"
)

func createConfigMap(ns, name string, data map[string]string) {
	GinkgoHelper()
	Expect(k8sClient.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: data})).To(Succeed())
}

func createSecret(ns, name string, data map[string]string) {
	GinkgoHelper()
	Expect(k8sClient.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, StringData: data})).To(Succeed())
}

// editConfigMap changes a ConfigMap and returns its new resourceVersion.
func editConfigMap(ns, name string, edit func(*corev1.ConfigMap)) string {
	GinkgoHelper()
	cm := &corev1.ConfigMap{}
	Eventually(func(g Gomega) {
		g.Expect(k8sClient.Get(ctx, key(ns, name), cm)).To(Succeed())
		edit(cm)
		g.Expect(k8sClient.Update(ctx, cm)).To(Succeed())
	}, timeout, interval).Should(Succeed())
	return cm.ResourceVersion
}

// templateRevision is the config revision the Deployment's pod template carries.
func templateRevision(ns, name string) func(g Gomega) string {
	return func(g Gomega) string {
		return getDeployment(ns, name)(g).Spec.Template.Annotations[webappv1.ConfigRevisionAnnotation]
	}
}

// statusRevision is the WebApp's status.configRevision.
func statusRevision(ns, name string) func() string {
	return func() string { return fetch(ns, name).Status.ConfigRevision }
}

// configWebApp reads the ConfigMap shop-config through an env var of its container and of a sidecar,
// and the Secret shop-secret through a volume and an init container's env var.
func configWebApp(ns, name string) *webappv1.WebApp {
	app := newWebApp(ns, name)
	app.Spec.Env = []webappv1.EnvVar{{Name: "GREETING", ValueFrom: &webappv1.EnvVarSource{
		ConfigMapKeyRef: &webappv1.KeySelector{Name: "shop-config", Key: "greeting"}}}}
	app.Spec.Volumes = []webappv1.Volume{{Name: "secret", MountPath: "/etc/secret",
		Secret: &webappv1.SecretVolume{Name: "shop-secret"}}}
	app.Spec.Sidecars = []webappv1.Container{{Name: "proxy", Image: "example.com/proxy:1", Env: []webappv1.EnvVar{{
		Name: "GREETING", ValueFrom: &webappv1.EnvVarSource{ConfigMapKeyRef: &webappv1.KeySelector{Name: "shop-config", Key: "greeting"}}}}}}
	app.Spec.InitContainers = []webappv1.Container{{Name: "migrate", Image: "example.com/migrate:1", Env: []webappv1.EnvVar{{
		Name: "TOKEN", ValueFrom: &webappv1.EnvVarSource{SecretKeyRef: &webappv1.KeySelector{Name: "shop-secret", Key: "token"}}}}}}
	return app
}

// unkeyedRevision is what anyone who knew the data of what app's pods read could compute: the
// revision without the operator's key.
func unkeyedRevision(ns, name string) string {
	GinkgoHelper()
	app := &webappv1.WebApp{}
	Expect(k8sClient.Get(ctx, key(ns, name), app)).To(Succeed())
	refs := resources.ConfigRefs(hub(app))
	digests := map[resources.ConfigKey]string{}
	for _, r := range refs {
		if r.Kind == resources.KindSecret {
			s := &corev1.Secret{}
			Expect(k8sClient.Get(ctx, key(ns, r.Name), s)).To(Succeed())
			digests[r.ConfigKey] = resources.ConfigDigest(nil, s.Data)
			continue
		}
		cm := &corev1.ConfigMap{}
		Expect(k8sClient.Get(ctx, key(ns, r.Name), cm)).To(Succeed())
		digests[r.ConfigKey] = resources.ConfigDigest(cm.Data, cm.BinaryData)
	}
	return resources.ConfigRevision(refs, digests, nil)
}

var _ = Describe("Config rollouts", func() {
	var ns string
	BeforeEach(func() {
		ns = newNamespace()
		createConfigMap(ns, "shop-config", map[string]string{"greeting": "hello"})
		createSecret(ns, "shop-secret", map[string]string{"token": "s3cret"})
	})

	// rolledOnce waits for the Deployment to roll to a new config revision (a new generation), plays
	// the Deployment controller, and returns the new revision, which status then reports.
	rolledOnce := func(name, before string, generation int64) string {
		GinkgoHelper()
		Eventually(templateRevision(ns, name), timeout, interval).ShouldNot(Equal(before))
		Expect(getDeployment(ns, name)(Default).Generation).To(BeNumerically(">", generation))
		playDeploymentController(ns, name)
		after := templateRevision(ns, name)(Default)
		Eventually(statusRevision(ns, name), timeout, interval).Should(Equal(after))
		Eventually(condition(ns, name, webappv1.ConditionReady), timeout, interval).
			Should(haveStatusReason(metav1.ConditionTrue, status.ReasonReady))
		return after
	}

	It("rolls the Deployment when the data of a ConfigMap its pods read changes, as an image change does", func() {
		createReady(configWebApp(ns, "shop"))
		rev := templateRevision(ns, "shop")(Default)
		Expect(rev).To(MatchRegexp("^[0-9a-f]{16}$"))
		Expect(statusRevision(ns, "shop")()).To(Equal(rev), "status says which configuration runs")

		editConfigMap(ns, "shop-config", func(cm *corev1.ConfigMap) { cm.Data["greeting"] = "bonjour" })
		rolledOnce("shop", rev, getDeployment(ns, "shop")(Default).Generation)
	})

	It("rolls the Deployment once when the data of a Secret its pods read changes, and publishes no digest of it", func() {
		createReady(configWebApp(ns, "shop"))
		rev := templateRevision(ns, "shop")(Default)
		Expect(rev).NotTo(Equal(unkeyedRevision(ns, "shop")), "the revision must not be computable from the data alone")
		generation := getDeployment(ns, "shop")(Default).Generation

		Eventually(func(g Gomega) {
			s := &corev1.Secret{}
			g.Expect(k8sClient.Get(ctx, key(ns, "shop-secret"), s)).To(Succeed())
			s.Data["token"] = []byte("rotated")
			g.Expect(k8sClient.Update(ctx, s)).To(Succeed())
		}, timeout, interval).Should(Succeed())
		after := rolledOnce("shop", rev, generation)
		Expect(after).NotTo(Equal(unkeyedRevision(ns, "shop")))
		generation = getDeployment(ns, "shop")(Default).Generation
		Consistently(func() int64 { return getDeployment(ns, "shop")(Default).Generation }, 3*time.Second, 200*time.Millisecond).
			Should(Equal(generation), "one roll per change")
	})

	It("does not roll on a re-apply of the same data, a label change or an operator restart, and reads only what changed", func() {
		createReady(configWebApp(ns, "shop"))
		rev := templateRevision(ns, "shop")(Default)
		generation := getDeployment(ns, "shop")(Default).Generation
		writes := settledWritesIn(ns)
		reads := len(requests.ReadsIn(ns))

		By("the same data applied again: the API server keeps the object as it is")
		rv := editConfigMap(ns, "shop-config", func(*corev1.ConfigMap) {})
		By("a label added, with the same data: a new resourceVersion, so the operator reads it once")
		Expect(editConfigMap(ns, "shop-config", func(cm *corev1.ConfigMap) {
			cm.Labels = map[string]string{"team.example.com/owner": "alice"}
		})).NotTo(Equal(rv))
		Eventually(func() []string { return requests.ReadsIn(ns)[reads:] }, timeout, interval).Should(ContainElement(
			"GET /api/v1/namespaces/"+ns+"/configmaps/shop-config"), "the changed ConfigMap is read")
		Consistently(func() []string { return requests.WritesIn(ns)[writes:] }, 3*time.Second, 100*time.Millisecond).
			Should(BeEmpty(), "the same data must not roll the pods, nor write anything")
		Expect(requests.ReadsIn(ns)[reads:]).To(HaveEach(HaveSuffix("/configmaps/shop-config")),
			"only the ConfigMap whose resourceVersion changed is read, never the Secret")
		Expect(templateRevision(ns, "shop")(Default)).To(Equal(rev))
		Expect(getDeployment(ns, "shop")(Default).Generation).To(Equal(generation))

		By("a restarted operator computes the same revision from the same data")
		restartManager()
		Eventually(func() []string { return requests.ReadsIn(ns)[reads:] }, timeout, interval).Should(ContainElement(
			"GET /api/v1/namespaces/"+ns+"/secrets/shop-secret"), "the new process reads each referenced object once")
		Consistently(func() []string { return requests.WritesIn(ns)[writes:] }, 3*time.Second, 100*time.Millisecond).
			Should(BeEmpty(), "a restart must not roll the pods, nor write anything")
		Expect(getDeployment(ns, "shop")(Default).Generation).To(Equal(generation))
	})

	It("reports a missing ConfigMap by name, with no hot loop, and rolls out once it exists", func() {
		app := newWebApp(ns, "later")
		app.Spec.Env = []webappv1.EnvVar{{Name: "FOO", ValueFrom: &webappv1.EnvVarSource{
			ConfigMapKeyRef: &webappv1.KeySelector{Name: "later-config", Key: "foo"}}}}
		// an optional reference to a missing object is no problem: the pods start without it
		app.Spec.EnvFrom = []webappv1.EnvFromSource{{SecretRef: &webappv1.ObjectReference{Name: "maybe", Optional: ptr.To(true)}}}
		Expect(k8sClient.Create(ctx, app)).To(Succeed())
		Eventually(condition(ns, "later", webappv1.ConditionStalled), timeout, interval).
			Should(haveStatusReason(metav1.ConditionTrue, status.ReasonConfigMissing))
		ready := condition(ns, "later", webappv1.ConditionReady)(Default)
		Expect(ready.Status).To(Equal(metav1.ConditionFalse))
		Expect(ready.Message).To(HavePrefix(`ConfigMap "later-config" referenced by env FOO does not exist;`))
		Expect(ready.Message).NotTo(ContainSubstring("maybe"))
		Expect(apierrors.IsNotFound(k8sClient.Get(ctx, key(ns, "later"), &appsv1.Deployment{}))).To(BeTrue(),
			"no pod that cannot start is created")

		By("no hot loop: nothing is written while it is missing")
		settled := settledWritesIn(ns)
		Consistently(func() []string { return requests.WritesIn(ns)[settled:] }, 3*time.Second, 200*time.Millisecond).
			Should(BeEmpty())

		By("the ConfigMap appears: the watch sees it, and the WebApp rolls out")
		createConfigMap(ns, "later-config", map[string]string{"foo": "bar"})
		Eventually(templateRevision(ns, "later"), timeout, interval).Should(MatchRegexp("^[0-9a-f]{16}$"))
		playDeploymentController(ns, "later")
		Eventually(condition(ns, "later", webappv1.ConditionReady), timeout, interval).
			Should(haveStatusReason(metav1.ConditionTrue, status.ReasonReady))
		rev := templateRevision(ns, "later")(Default)
		generation := getDeployment(ns, "later")(Default).Generation

		By("deleted again: reported, the running Deployment left as it is and still reported")
		Expect(k8sClient.Delete(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "later-config"}})).To(Succeed())
		Eventually(condition(ns, "later", webappv1.ConditionStalled), timeout, interval).
			Should(haveStatusReason(metav1.ConditionTrue, status.ReasonConfigMissing))
		Expect(condition(ns, "later", webappv1.ConditionAvailable)(Default).Status).To(Equal(metav1.ConditionTrue))
		Expect(fetch(ns, "later").Status.ConfigRevision).To(Equal(rev))
		Expect(getDeployment(ns, "later")(Default).Generation).To(Equal(generation))

		By("re-created with the same data: Ready again, with no roll")
		createConfigMap(ns, "later-config", map[string]string{"foo": "bar"})
		Eventually(condition(ns, "later", webappv1.ConditionReady), timeout, interval).
			Should(haveStatusReason(metav1.ConditionTrue, status.ReasonReady))
		Expect(getDeployment(ns, "later")(Default).Generation).To(Equal(generation))

		By("the optional Secret appears: what the pods read changed, so they roll")
		createSecret(ns, "maybe", map[string]string{"EXTRA": "1"})
		rolledOnce("later", rev, generation)
	})

	It("leaves the pod template alone with rolloutOnConfigChange false, and rolls again once it is switched back on", func() {
		app := configWebApp(ns, "manual")
		app.Spec.RolloutOnConfigChange = ptr.To(false)
		createReady(app)
		Expect(getDeployment(ns, "manual")(Default).Spec.Template.Annotations).NotTo(HaveKey(webappv1.ConfigRevisionAnnotation))
		Expect(fetch(ns, "manual").Status.ConfigRevision).To(BeEmpty())
		generation := getDeployment(ns, "manual")(Default).Generation
		writes := settledWritesIn(ns)

		editConfigMap(ns, "shop-config", func(cm *corev1.ConfigMap) { cm.Data["greeting"] = "bonjour" })
		Consistently(func() []string { return requests.WritesIn(ns)[writes:] }, 3*time.Second, 100*time.Millisecond).
			Should(BeEmpty(), "a config change must not touch the template of a WebApp that opted out")
		Expect(getDeployment(ns, "manual")(Default).Generation).To(Equal(generation))

		Eventually(func(g Gomega) {
			a := fetch(ns, "manual")
			a.Spec.RolloutOnConfigChange = nil // the default: on
			g.Expect(k8sClient.Update(ctx, a)).To(Succeed())
		}, timeout, interval).Should(Succeed())
		Expect(fetch(ns, "manual").Spec.RolloutOnConfigChange).To(Equal(ptr.To(true)), "admission fills in the default")
		rolledOnce("manual", "", generation)

		By("switched off again: the annotation goes, a change of the template like any other")
		Eventually(func(g Gomega) {
			a := fetch(ns, "manual")
			a.Spec.RolloutOnConfigChange = ptr.To(false)
			g.Expect(k8sClient.Update(ctx, a)).To(Succeed())
		}, timeout, interval).Should(Succeed())
		Eventually(templateRevision(ns, "manual"), timeout, interval).Should(BeEmpty())
		Eventually(statusRevision(ns, "manual"), timeout, interval).Should(BeEmpty())
	})

	It("writes and reads nothing when a ConfigMap or Secret that no WebApp reads changes", func() {
		createReady(configWebApp(ns, "shop"))
		generation := getDeployment(ns, "shop")(Default).Generation
		writes := settledWritesIn(ns)
		reads := len(requests.ReadsIn(ns))

		createConfigMap(ns, "unrelated", map[string]string{"a": "1"})
		createSecret(ns, "unrelated", map[string]string{"a": "1"})
		editConfigMap(ns, "unrelated", func(cm *corev1.ConfigMap) { cm.Data["a"] = "2" })
		Expect(k8sClient.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "unrelated"}})).To(Succeed())
		Consistently(func() []string {
			return append(requests.WritesIn(ns)[writes:], requests.ReadsIn(ns)[reads:]...)
		}, 3*time.Second, 100*time.Millisecond).Should(BeEmpty())
		Expect(getDeployment(ns, "shop")(Default).Generation).To(Equal(generation))
	})
})
