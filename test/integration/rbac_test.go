package integration

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/internal/operator"
	"github.com/webapp-operator/webapp-operator/internal/status"
)

const (
	// operatorNamespace is where the operator "is installed", and holds its Lease.
	operatorNamespace = "webapp-operator-system"
	// operatorUser is who the operator authenticates as: a user holding exactly the CSV's permissions.
	operatorUser = "webapp-operator"
)

func bundleFile(name string) string {
	return filepath.Join("..", "..", "bundle", "manifests", name)
}

// asOperatorServiceAccount grants operatorUser the rules the bundle's CSV gives the operator's
// ServiceAccount, as OLM does for an AllNamespaces install (the suite's operator watches every
// namespace): clusterPermissions, and permissions too, in ClusterRoles bound cluster-wide. It grants
// nothing else, and returns a kubeconfig for that user.
func asOperatorServiceAccount(dir string) string {
	GinkgoHelper()
	data, err := os.ReadFile(bundleFile("webapp-operator.clusterserviceversion.yaml"))
	Expect(err).NotTo(HaveOccurred())
	csv := &operatorsv1alpha1.ClusterServiceVersion{}
	Expect(yaml.Unmarshal(data, csv)).To(Succeed())
	install := csv.Spec.InstallStrategy.StrategySpec
	permissions := append(append([]operatorsv1alpha1.StrategyDeploymentPermissions(nil),
		install.ClusterPermissions...), install.Permissions...)
	Expect(permissions).NotTo(BeEmpty())

	Expect(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: operatorNamespace}})).To(Succeed())
	subjects := []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: operatorUser}}
	for i, p := range permissions {
		name := fmt.Sprintf("operator-%d", i)
		Expect(k8s.Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: p.Rules})).To(Succeed())
		Expect(k8s.Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name}, Subjects: subjects,
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name}})).To(Succeed())
	}
	user, err := cp.Env.AddUser(envtest.User{Name: operatorUser}, nil)
	Expect(err).NotTo(HaveOccurred())
	kubeconfig, err := user.KubeConfig()
	Expect(err).NotTo(HaveOccurred())
	path := filepath.Join(dir, "operator.kubeconfig")
	Expect(os.WriteFile(path, kubeconfig, 0o600)).To(Succeed())
	return path
}

// allowed asks the API server whether user may do verb on resource (with subresource and name, if
// given) in ns.
func allowed(user, ns, verb, group, resource, subresource, name string) func(g Gomega) bool {
	return func(g Gomega) bool {
		sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: user,
			ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: ns, Verb: verb, Group: group,
				Resource: resource, Subresource: subresource, Name: name},
		}}
		g.Expect(k8s.Create(ctx, sar)).To(Succeed())
		return sar.Status.Allowed
	}
}

var _ = Describe("The operator, with no permission but the CSV's", func() {
	It("wins leader election on its own Lease, and converges a WebApp", func() {
		Eventually(func(g Gomega) {
			lease := &coordinationv1.Lease{}
			g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: operatorNamespace, Name: operator.LeaderElectionID}, lease)).
				To(Succeed())
			g.Expect(lease.Spec.HolderIdentity).NotTo(BeNil())
			g.Expect(*lease.Spec.HolderIdentity).NotTo(BeEmpty())
		}, timeout, interval).Should(Succeed())

		ns := newNamespace(nil)
		app := &webappv1.WebApp{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "rbac"},
			Spec: webappv1.WebAppSpec{Image: "example.com/shop:1.0"}}
		Expect(k8s.Create(ctx, app)).To(Succeed())
		// There is no node, so the pod never becomes ready: a current status is the proof of a pass.
		Eventually(readyCondition(ns, "rbac"), timeout, interval).Should(HaveField("Status", metav1.ConditionFalse))
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "rbac"}, &appsv1.Deployment{})).To(Succeed())
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "rbac"}, &corev1.Service{})).To(Succeed())
		// the storage migration read the CRD, found nothing to do, and was refused nothing
		Eventually(theOperator.Log, timeout, interval).Should(ContainSubstring("Nothing to migrate"))
		Expect(theOperator.Log()).NotTo(ContainSubstring("not permitted"))
	})

	It("is refused what it does not use: reading single pods or the status subresource, other Leases, other CRDs", func() {
		ns := newNamespace(nil)
		op := func(ns, verb, group, resource, subresource, name string) func(g Gomega) bool {
			return allowed(operatorUser, ns, verb, group, resource, subresource, name)
		}
		group := webappv1.GroupVersion.Group
		Expect(op(ns, "list", "", "pods", "", "")(Default)).To(BeTrue())
		Expect(op(ns, "get", "", "pods", "", "x")(Default)).To(BeFalse())
		Expect(op(ns, "patch", group, "webapps", "status", "x")(Default)).To(BeTrue())
		Expect(op(ns, "get", group, "webapps", "status", "x")(Default)).To(BeFalse())
		for _, verb := range []string{"get", "update"} {
			Expect(op(operatorNamespace, verb, "coordination.k8s.io", "leases", "", operator.LeaderElectionID)(Default)).
				To(BeTrue(), "%s its own Lease", verb)
			Expect(op(operatorNamespace, verb, "coordination.k8s.io", "leases", "", "someone-else")(Default)).
				To(BeFalse(), "%s another Lease", verb)
		}
		// the storage migration's rules: its own CRD only, and of that only the status is written
		const crds, webApps, other = "customresourcedefinitions", "webapps.apps.webapp-operator.io", "others.example.com"
		Expect(op("", "get", "apiextensions.k8s.io", crds, "", webApps)(Default)).To(BeTrue())
		Expect(op("", "update", "apiextensions.k8s.io", crds, "status", webApps)(Default)).To(BeTrue())
		Expect(op("", "update", "apiextensions.k8s.io", crds, "", webApps)(Default)).To(BeFalse(), "the CRD's spec")
		Expect(op("", "get", "apiextensions.k8s.io", crds, "", other)(Default)).To(BeFalse(), "another CRD")
		Expect(op("", "update", "apiextensions.k8s.io", crds, "status", other)(Default)).To(BeFalse(), "another CRD")
	})
})

var _ = Describe("The bundle's editor and viewer roles", func() {
	It("aggregate into the built-in admin, edit and view roles", func() {
		for _, name := range []string{"webapp-editor-role", "webapp-viewer-role"} {
			data, err := os.ReadFile(bundleFile("webapp-operator-" + name + "_rbac.authorization.k8s.io_v1_clusterrole.yaml"))
			Expect(err).NotTo(HaveOccurred())
			role := &rbacv1.ClusterRole{}
			Expect(yaml.Unmarshal(data, role)).To(Succeed())
			Expect(k8s.Create(ctx, role)).To(Succeed())
		}
		ns := newNamespace(nil)
		for user, builtIn := range map[string]string{"ann": "admin", "ed": "edit", "vi": "view"} {
			Expect(k8s.Create(ctx, &rbacv1.RoleBinding{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: user},
				RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: builtIn},
				Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: user}},
			})).To(Succeed())
		}
		webapps := func(user, verb string) func(g Gomega) bool {
			return allowed(user, ns, verb, webappv1.GroupVersion.Group, "webapps", "", "")
		}
		// kube-controller-manager aggregates the rules in the background
		for _, user := range []string{"ann", "ed"} {
			for _, verb := range []string{"create", "update", "patch", "delete", "get", "list", "watch"} {
				Eventually(webapps(user, verb), timeout, interval).Should(BeTrue(), "%s may %s webapps", user, verb)
			}
		}
		for _, verb := range []string{"get", "list", "watch"} {
			Eventually(webapps("vi", verb), timeout, interval).Should(BeTrue(), "vi may %s webapps", verb)
		}
		for _, verb := range []string{"create", "update", "patch", "delete"} {
			Expect(webapps("vi", verb)(Default)).To(BeFalse(), "a viewer may not %s webapps", verb)
		}
	})
})

// secretWebApp is a WebApp whose pods read the Secret token and, when cm is not empty, the ConfigMap cm.
func secretWebApp(ns, name, cm string) *webappv1.WebApp {
	app := &webappv1.WebApp{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: webappv1.WebAppSpec{Image: "example.com/shop:1.0"}}
	if name != "" {
		app.Spec.Env = append(app.Spec.Env, webappv1.EnvVar{Name: "TOKEN", ValueFrom: &webappv1.EnvVarSource{
			SecretKeyRef: &webappv1.KeySelector{Name: "token", Key: "t"}}})
	}
	if cm != "" {
		app.Spec.EnvFrom = []webappv1.EnvFromSource{{ConfigMapRef: &webappv1.ObjectReference{Name: cm}}}
	}
	return app
}

var _ = Describe("Secret rollouts", func() {
	It("are off by default: granted no Secret verb, the operator converges a WebApp that reads one and says so", func() {
		Expect(allowed(operatorUser, "", "list", "", "secrets", "", "")(Default)).To(BeFalse(),
			"the default install grants no Secret verb")
		ns := newNamespace(nil)
		Expect(k8s.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "token"},
			StringData: map[string]string{"t": "1"}})).To(Succeed())
		Expect(k8s.Create(ctx, secretWebApp(ns, "shop", ""))).To(Succeed())
		Eventually(readyCondition(ns, "shop"), timeout, interval).Should(HaveField("Message",
			ContainSubstring(status.SecretRolloutsOffNote)))
		d := &appsv1.Deployment{}
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "shop"}, d)).To(Succeed())
		Expect(d.Spec.Template.Annotations).NotTo(HaveKey(webappv1.ConfigRevisionAnnotation),
			"the pods read no ConfigMap, and Secrets are not fingerprinted")
	})

	It("asked for but forbidden, degrade: WebApps that read a Secret report it, the rest go on, probes pass", func() {
		theOperator.Stop()
		degraded := startOperator("secret-rollouts-forbidden", "--secret-rollouts")
		DeferCleanup(func() {
			degraded.Stop()
			theOperator = startOperator("operator")
		})
		ns := newNamespace(nil)
		Expect(k8s.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "cfg"},
			Data: map[string]string{"A": "1"}})).To(Succeed())
		Expect(k8s.Create(ctx, secretWebApp(ns, "reads-secret", "cfg"))).To(Succeed())
		plain := secretWebApp(ns, "", "cfg")
		plain.Name = "reads-configmap"
		Expect(k8s.Create(ctx, plain)).To(Succeed())

		Eventually(readyCondition(ns, "reads-secret"), timeout, interval).Should(And(
			HaveField("Reason", status.ReasonConfigWatchForbidden),
			HaveField("Message", ContainSubstring("on secrets cluster-wide is not granted"))))
		Eventually(func(g Gomega) {
			d := &appsv1.Deployment{}
			g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "reads-configmap"}, d)).To(Succeed())
			g.Expect(d.Spec.Template.Annotations).To(HaveKey(webappv1.ConfigRevisionAnnotation),
				"ConfigMap rollouts go on")
		}, timeout, interval).Should(Succeed())
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "reads-secret"}, &appsv1.Deployment{})).
			To(MatchError(ContainSubstring("not found")), "nothing is applied for the WebApp that reads a Secret")
		for _, probe := range []string{"readyz", "healthz"} {
			Eventually(func() (int, error) {
				resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/%s", degraded.ProbePort, probe))
				if err != nil {
					return 0, err
				}
				_ = resp.Body.Close()
				return resp.StatusCode, nil
			}, timeout, interval).Should(Equal(http.StatusOK), probe)
		}
		Expect(degraded.Log()).To(ContainSubstring("config rollouts on Secret changes were asked for but are not permitted"))
	})
})
