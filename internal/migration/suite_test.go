package migration_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/conversion"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/api/v1beta1"
	"github.com/webapp-operator/webapp-operator/internal/migration"
	"github.com/webapp-operator/webapp-operator/internal/testenv"
)

// The migration is proven where it matters: in etcd. The suite runs envtest's kube-apiserver and
// etcd with the generated CRD, both versions served and converted by a webhook this process serves
// (controller-runtime's conversion handler over the api packages' ConvertTo and ConvertFrom), the way
// the CRD will be once v1beta1 is served. WebApps are created while v1alpha1 is the storage version,
// then the CRD stores v1beta1, and each spec reads the bytes the API server wrote to etcd.

const (
	crdName  = "webapps.apps.webapp-operator.io"
	group    = "apps.webapp-operator.io"
	alpha    = group + "/v1alpha1"
	beta     = group + "/v1beta1"
	timeout  = 20 * time.Second
	interval = 100 * time.Millisecond
)

var (
	ctx       context.Context
	cancel    context.CancelFunc
	testEnv   *testenv.Env
	k8sClient client.Client
	etcd      *clientv3.Client
	scheme    = runtime.NewScheme()
)

func init() {
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(webappv1.AddToScheme(scheme))
	utilruntime.Must(v1beta1.AddToScheme(scheme))
	utilruntime.Must(apiextensionsv1.AddToScheme(scheme))
}

func TestMigration(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Storage Migration Suite")
}

var _ = BeforeSuite(func() {
	logf.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	ctx, cancel = context.WithCancel(context.TODO())
	var err error
	testEnv, err = testenv.StartWithCRD(func(crd *apiextensionsv1.CustomResourceDefinition) {
		for i := range crd.Spec.Versions {
			crd.Spec.Versions[i].Served = true
		}
	})
	Expect(err).NotTo(HaveOccurred())
	k8sClient, err = client.New(testEnv.Config, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())
	etcd, err = clientv3.New(clientv3.Config{Endpoints: []string{testEnv.ControlPlane.Etcd.URL.String()},
		DialTimeout: 5 * time.Second})
	Expect(err).NotTo(HaveOccurred())
	// the probes' namespace: setStorage and serveConversion write and delete WebApps there
	Expect(k8sClient.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "probe"}})).To(Succeed())
	serveConversion()
})

var _ = AfterSuite(func() {
	cancel()
	if etcd != nil {
		_ = etcd.Close()
	}
	if testEnv != nil { // nil when BeforeSuite failed
		Expect(testEnv.Stop()).To(Succeed())
	}
})

// serveConversion serves the conversion webhook on the address and certificate envtest prepared for
// webhooks, and points the CRD's conversion at it.
func serveConversion() {
	opts := testEnv.WebhookInstallOptions
	server := webhook.NewServer(webhook.Options{Host: opts.LocalServingHost, Port: opts.LocalServingPort,
		CertDir: opts.LocalServingCertDir})
	server.Register("/convert", conversion.NewWebhookHandler(scheme, conversion.NewRegistry()))
	go func() {
		defer GinkgoRecover()
		Expect(server.Start(ctx)).To(Succeed())
	}()
	Eventually(func() error { return server.StartedChecker()(nil) }, timeout, interval).Should(Succeed())
	editCRD(func(crd *apiextensionsv1.CustomResourceDefinition) {
		url := "https://" + net.JoinHostPort(opts.LocalServingHost, strconv.Itoa(opts.LocalServingPort)) + "/convert"
		crd.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.WebhookConverter,
			Webhook: &apiextensionsv1.WebhookConversion{ConversionReviewVersions: []string{"v1"},
				ClientConfig: &apiextensionsv1.WebhookClientConfig{URL: &url, CABundle: opts.LocalServingCAData}}}
	})
	// the API server picks the conversion up asynchronously: wait until a v1beta1 read converts
	Eventually(func(g Gomega) {
		probe := &webappv1.WebApp{ObjectMeta: metav1.ObjectMeta{Namespace: "probe", GenerateName: "conversion-"},
			Spec: webappv1.WebAppSpec{Image: "example.com/probe:1"}}
		g.Expect(k8sClient.Create(ctx, probe)).To(Succeed())
		defer func() { _ = k8sClient.Delete(ctx, probe) }()
		read := &v1beta1.WebApp{}
		g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(probe), read)).To(Succeed())
		g.Expect(read.Spec.Container.Image).To(Equal("example.com/probe:1"))
	}, timeout, interval).Should(Succeed())
}

// editCRD changes the CRD, retrying on conflicts.
func editCRD(edit func(*apiextensionsv1.CustomResourceDefinition)) {
	GinkgoHelper()
	Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := k8sClient.Get(ctx, client.ObjectKey{Name: crdName}, crd); err != nil {
			return err
		}
		edit(crd)
		return k8sClient.Update(ctx, crd)
	})).To(Succeed())
}

func getCRD() *apiextensionsv1.CustomResourceDefinition {
	GinkgoHelper()
	crd := &apiextensionsv1.CustomResourceDefinition{}
	Expect(k8sClient.Get(ctx, client.ObjectKey{Name: crdName}, crd)).To(Succeed())
	return crd
}

func storedVersions() []string { return getCRD().Status.StoredVersions }

// setStorage makes version the CRD's storage version, and waits until the API server writes new
// objects in it: it rebuilds a CRD's storage asynchronously, after the update.
func setStorage(version string) {
	GinkgoHelper()
	editCRD(func(crd *apiextensionsv1.CustomResourceDefinition) {
		for i := range crd.Spec.Versions {
			crd.Spec.Versions[i].Storage = crd.Spec.Versions[i].Name == version
		}
	})
	Eventually(func(g Gomega) {
		probe := &webappv1.WebApp{ObjectMeta: metav1.ObjectMeta{Namespace: "probe", GenerateName: "storage-"},
			Spec: webappv1.WebAppSpec{Image: "example.com/probe:1"}}
		g.Expect(k8sClient.Create(ctx, probe)).To(Succeed())
		defer func() { _ = k8sClient.Delete(ctx, probe) }()
		g.Expect(storedIn("probe")).To(HaveKeyWithValue(probe.Name, group+"/"+version))
	}, timeout, interval).Should(Succeed())
}

// storedIn reads etcd: the apiVersion each WebApp of ns is stored in, by name.
func storedIn(ns string) map[string]string {
	GinkgoHelper()
	prefix := "/registry/" + group + "/webapps/" + ns + "/"
	resp, err := etcd.Get(ctx, prefix, clientv3.WithPrefix())
	Expect(err).NotTo(HaveOccurred())
	out := map[string]string{}
	for _, kv := range resp.Kvs {
		var head struct {
			APIVersion string `json:"apiVersion"`
		}
		Expect(json.Unmarshal(kv.Value, &head)).To(Succeed(), "%s is JSON", kv.Key)
		out[strings.TrimPrefix(string(kv.Key), prefix)] = head.APIVersion
	}
	return out
}

// everyStoredIn is what storedIn(ns) must be when each of names is stored in apiVersion.
func everyStoredIn(apiVersion string, names []string) map[string]string {
	out := map[string]string{}
	for _, n := range names {
		out[n] = apiVersion
	}
	return out
}

var namespaces []string

// newNamespace gives every spec its own namespace.
func newNamespace() string {
	GinkgoHelper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "migration-"}}
	Expect(k8sClient.Create(ctx, ns)).To(Succeed())
	namespaces = append(namespaces, ns.Name)
	return ns.Name
}

// reset puts the CRD back as a release before v1beta1 left it: no WebApp, storage v1alpha1, and
// status.storedVersions [v1alpha1].
func reset() {
	GinkgoHelper()
	for _, ns := range namespaces {
		Expect(k8sClient.DeleteAllOf(ctx, &webappv1.WebApp{}, client.InNamespace(ns))).To(Succeed())
	}
	Eventually(func(g Gomega) {
		list := &webappv1.WebAppList{}
		g.Expect(k8sClient.List(ctx, list)).To(Succeed())
		g.Expect(list.Items).To(BeEmpty())
	}, timeout, interval).Should(Succeed())
	setStorage("v1alpha1")
	Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		crd := getCRD()
		crd.Status.StoredVersions = []string{"v1alpha1"}
		return k8sClient.Status().Update(ctx, crd)
	})).To(Succeed())
}

// wire records the requests of a Migrator, and lets a spec act before one, or answer it instead of
// the API server.
type wire struct {
	mu  sync.Mutex
	log []string
	// before is called before each request; a response or an error it returns is the request's.
	before func(r *http.Request) (*http.Response, error)
}

// migrator returns a Migrator whose requests go through w.
func (w *wire) migrator() *migration.Migrator {
	GinkgoHelper()
	cfg := rest.CopyConfig(testEnv.Config)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripper(func(r *http.Request) (*http.Response, error) {
			w.mu.Lock()
			w.log = append(w.log, r.Method+" "+r.URL.Path)
			w.mu.Unlock()
			if w.before != nil {
				if resp, err := w.before(r); resp != nil || err != nil {
					return resp, err
				}
			}
			return rt.RoundTrip(r)
		})
	})
	m, err := migration.New(cfg, crdName)
	Expect(err).NotTo(HaveOccurred())
	m.PageSize = 3
	m.Backoff.Duration = 50 * time.Millisecond
	return m
}

func (w *wire) requests() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.log...)
}

// writes are the requests that are not reads.
func (w *wire) writes() []string {
	var out []string
	for _, r := range w.requests() {
		if !strings.HasPrefix(r, http.MethodGet+" ") {
			out = append(out, r)
		}
	}
	return out
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// isPutOf tells whether r writes the WebApp name.
func isPutOf(r *http.Request, name string) bool {
	return r.Method == http.MethodPut && strings.Contains(r.URL.Path, "/webapps/") && path.Base(r.URL.Path) == name
}

// failure is an API server's answer of code, as a Status.
func failure(r *http.Request, code int) *http.Response {
	body := fmt.Sprintf(`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"injected by the test","code":%d}`, code)
	return &http.Response{StatusCode: code, Status: http.StatusText(code), Request: r,
		Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(body))}
}

// the CRD's own requests, as the wire logs them
var (
	getCRDRequest    = "GET /apis/apiextensions.k8s.io/v1/customresourcedefinitions/" + crdName
	updateCRDRequest = "PUT /apis/apiextensions.k8s.io/v1/customresourcedefinitions/" + crdName + "/status"
)

// putRequests are the wire's log of one rewrite of each of names in ns.
func putRequests(ns string, names []string) []string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		out = append(out, "PUT /apis/"+beta+"/namespaces/"+ns+"/webapps/"+n)
	}
	return out
}
