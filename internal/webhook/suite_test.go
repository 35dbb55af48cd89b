package webhook_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"strconv"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/api/v1beta1"
	"github.com/webapp-operator/webapp-operator/internal/operator"
	"github.com/webapp-operator/webapp-operator/internal/testenv"
	"github.com/webapp-operator/webapp-operator/internal/testenv/specs"
	"github.com/webapp-operator/webapp-operator/internal/webhook"
)

// These specs run the operator's manager, as cmd/main.go builds it, against a real kube-apiserver
// whose WebApp CRD serves both versions and converts between them through the operator's webhook.
// The API server cannot resolve the webhook Service here, so the CRD calls the webhook by URL, at
// 127.0.0.1: the one thing that differs from config/webhook. The operator runs as a user that holds
// exactly the rules `make deploy` would grant with config/webhook (config/rbac's manager role and
// the component's two roles, rendered by kustomize), so every spec also proves those rules enough.
// Each spec starts its own operator.

const (
	timeout  = 20 * time.Second
	interval = 100 * time.Millisecond
	// operatorNS is where the self-managed Secret lives, as config/default names the namespace.
	operatorNS = "webapp-operator-system"
)

var (
	ctx       = context.Background()
	testEnv   *testenv.Env
	k8sClient client.Client
	// port is where the CRD's clientConfig points: the operator under test listens there.
	port   int
	scheme = runtime.NewScheme()
	// operatorConfig authenticates as operatorUser.
	operatorConfig *rest.Config
)

const operatorUser = "webapp-operator"

func init() {
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(webappv1.AddToScheme(scheme))
	utilruntime.Must(v1beta1.AddToScheme(scheme))
	utilruntime.Must(apiextensionsv1.AddToScheme(scheme))
}

func TestWebhook(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Webhook Suite")
}

var _ = BeforeSuite(func() {
	logf.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	var err error
	port, err = testenv.FreePort()
	Expect(err).NotTo(HaveOccurred())
	testEnv, err = testenv.StartWithCRD(serveBoth)
	Expect(err).NotTo(HaveOccurred())
	k8sClient, err = client.New(testEnv.Config, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())
	// envtest drops the conversion of a CRD that it installs, unless its own scheme knows the kinds
	// convert: the webhook is set once the CRD is in
	crd := &apiextensionsv1.CustomResourceDefinition{}
	Expect(k8sClient.Get(ctx, types.NamespacedName{Name: webhook.CRDName}, crd)).To(Succeed())
	convertThroughWebhook(crd)
	Expect(k8sClient.Update(ctx, crd)).To(Succeed())
	Expect(k8sClient.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: operatorNS}})).To(Succeed())
	grantDeployRules()
	user, err := testEnv.AddUser(envtest.User{Name: operatorUser}, nil)
	Expect(err).NotTo(HaveOccurred())
	operatorConfig = user.Config()
})

// grantDeployRules gives operatorUser the rules of config/rbac's manager role and of config/webhook,
// as rendered on config/default, bound as config/default binds them to the ServiceAccount.
func grantDeployRules() {
	objs, err := renderWithWebhook()
	Expect(err).NotTo(HaveOccurred())
	subjects := []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: operatorUser}}
	for _, name := range []string{"webapp-operator-manager-role", "webapp-operator-webhook-crd-role"} {
		role := &rbacv1.ClusterRole{}
		Expect(objs.one("ClusterRole", name, role)).To(Succeed())
		Expect(k8sClient.Create(ctx, role)).To(Succeed())
		Expect(k8sClient.Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name}, Subjects: subjects,
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name}})).To(Succeed())
	}
	role := &rbacv1.Role{}
	Expect(objs.one("Role", "webapp-operator-webhook-cert-role", role)).To(Succeed())
	Expect(role.Namespace).To(Equal(operatorNS))
	Expect(k8sClient.Create(ctx, role)).To(Succeed())
	Expect(k8sClient.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: operatorNS, Name: role.Name},
		Subjects: subjects, RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name}})).To(Succeed())
}

var _ = AfterSuite(func() {
	if testEnv != nil { // nil when BeforeSuite failed
		Expect(testEnv.Stop()).To(Succeed())
	}
})

func serveBoth(crd *apiextensionsv1.CustomResourceDefinition) {
	for i := range crd.Spec.Versions {
		crd.Spec.Versions[i].Served = true
	}
}

// convertThroughWebhook converts with the webhook, as config/webhook's patch does (strategy
// Webhook, path /convert, review version v1), with no caBundle: the operator sets it, or the spec
// does in the operator's place.
func convertThroughWebhook(crd *apiextensionsv1.CustomResourceDefinition) {
	crd.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{
		Strategy: apiextensionsv1.WebhookConverter,
		Webhook: &apiextensionsv1.WebhookConversion{
			ClientConfig: &apiextensionsv1.WebhookClientConfig{
				URL: ptr.To(fmt.Sprintf("https://127.0.0.1:%d%s", port, webhook.Path)),
			},
			ConversionReviewVersions: []string{"v1"},
		},
	}
}

// startOperator runs the operator's manager with opts and returns what stops it. It listens on
// 127.0.0.1 at opts.Port, or at port.
func startOperator(opts webhook.Options) (stop func()) {
	opts.Host = "127.0.0.1"
	if opts.Port == 0 {
		opts.Port = port
	}
	mgr, err := operator.NewManager(operatorConfig, operator.Options{
		Metrics:                      metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress:       "0",
		SkipControllerNameValidation: true,
		Webhook:                      opts,
	})
	Expect(err).NotTo(HaveOccurred())
	return specs.RunManager(ctx, mgr, timeout)
}

// selfManaged are the options config/webhook gives the operator, in a cert dir of the spec's, with
// 127.0.0.1 among the certificate's names: the address the CRD calls here.
func selfManaged() webhook.Options {
	return webhook.Options{CertDir: GinkgoT().TempDir(), SelfManaged: true, Namespace: operatorNS,
		ExtraHosts: []string{"127.0.0.1"}}
}

// forgetCertificates deletes the self-managed Secret and the CRD's caBundle, so that a spec starts
// where a first install does.
func forgetCertificates() {
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: operatorNS, Name: webhook.SecretName}}
	Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, s))).To(Succeed())
	setCABundle(nil)
}

// setCABundle sets the CRD's caBundle as OLM would, or removes it (nil).
func setCABundle(pem []byte) {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	Expect(k8sClient.Get(ctx, types.NamespacedName{Name: webhook.CRDName}, crd)).To(Succeed())
	patch := client.MergeFrom(crd.DeepCopy())
	crd.Spec.Conversion.Webhook.ClientConfig.CABundle = pem
	Expect(k8sClient.Patch(ctx, crd, patch)).To(Succeed())
}

func crdCABundle() []byte {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	Expect(k8sClient.Get(ctx, types.NamespacedName{Name: webhook.CRDName}, crd)).To(Succeed())
	return crd.Spec.Conversion.Webhook.ClientConfig.CABundle
}

func secretData() map[string][]byte {
	s := &corev1.Secret{}
	err := k8sClient.Get(ctx, types.NamespacedName{Namespace: operatorNS, Name: webhook.SecretName}, s)
	if apierrors.IsNotFound(err) {
		return nil
	}
	Expect(err).NotTo(HaveOccurred())
	return s.Data
}

// servedCert is the certificate the webhook server at 127.0.0.1:p presents, or nil when nothing
// serves there.
func servedCert(p int) *x509.Certificate {
	d := &net.Dialer{Timeout: time.Second}
	conn, err := tls.DialWithDialer(d, "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)),
		&tls.Config{InsecureSkipVerify: true}) //nolint:gosec // the test compares the certificate itself
	if err != nil {
		return nil
	}
	defer func() { _ = conn.Close() }()
	return conn.ConnectionState().PeerCertificates[0]
}

var nsCount int

func newNamespace() string {
	nsCount++
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("conversion-%d", nsCount)}}
	Expect(k8sClient.Create(ctx, ns)).To(Succeed())
	return ns.Name
}
