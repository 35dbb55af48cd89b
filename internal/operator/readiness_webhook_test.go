package operator_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/webapp-operator/webapp-operator/internal/certs"
	"github.com/webapp-operator/webapp-operator/internal/operator"
	"github.com/webapp-operator/webapp-operator/internal/testenv"
	"github.com/webapp-operator/webapp-operator/internal/webhook"
)

// Under OLM v0 the API server reaches the conversion webhook through a Service that routes to ready
// pods only, and the WebApp informer's first list may need that webhook (objects stored in the
// version the operator does not read). A replica that serves the webhook must therefore be ready
// without its WebApp cache; the WebApp metrics still fail the scrape until that cache has synced.
var _ = Describe("Readiness with the conversion webhook", func() {
	It("does not wait for the WebApp cache, whose metrics fail the scrape; without the webhook it does", func() {
		By("a user who may read everything the operator watches but WebApps: its WebApp informer cannot sync")
		user, err := testEnv.AddUser(envtest.User{Name: "probe-webhook"}, nil)
		Expect(err).NotTo(HaveOccurred())
		rules := make([]rbacv1.PolicyRule, 0, 2)
		rules = append(rules, rbacv1.PolicyRule{APIGroups: []string{"", "apps", "policy", "autoscaling",
			"networking.k8s.io", "events.k8s.io", "gateway.networking.k8s.io", "monitoring.coreos.com"},
			Resources: []string{"*"}, Verbs: []string{"*"}})
		grant("probe-webhook", rules)

		By("with a certificate in the cert dir, as OLM mounts it: ready, the webhook answering, the WebApp cache not synced")
		withHook := startProbed(user.Config, webhookCertDir())
		Eventually(withHook("/readyz"), timeout, interval).Should(And(HavePrefix("200"),
			ContainSubstring("[+]webhook ok"), ContainSubstring("[+]caches-synced ok")))
		Consistently(scrapeError, 3*time.Second, interval).Should(ContainSubstring("the WebApp cache has not synced yet"))

		By("without a certificate: readiness waits for the WebApp cache, as before")
		without := startProbed(user.Config, "")
		Consistently(without("/readyz"), 4*time.Second, interval).Should(And(HavePrefix("500"),
			ContainSubstring("[-]caches-synced failed"), Not(ContainSubstring("webhook"))))

		By("granting WebApps: the caches sync, the metrics are served, and the manager without the webhook is ready too")
		grant("probe-webhook", append(rules, rbacv1.PolicyRule{APIGroups: []string{"apps.webapp-operator.io"},
			Resources: []string{"*"}, Verbs: []string{"*"}}))
		Eventually(scrapeError, 2*timeout, interval).Should(BeEmpty())
		Eventually(without("/readyz"), 2*timeout, interval).Should(HavePrefix("200"))
	})
})

// startProbed starts a manager as the user, with the webhook's certificate in certDir ("" serves
// none), and returns a reader of its probe endpoints.
func startProbed(config func() *rest.Config, certDir string) func(path string) func() (string, error) {
	GinkgoHelper()
	port, err := testenv.FreePort()
	Expect(err).NotTo(HaveOccurred())
	opts := operator.Options{
		Metrics:                      metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress:       fmt.Sprintf("127.0.0.1:%d", port),
		SkipControllerNameValidation: true,
	}
	if certDir != "" {
		hookPort, err := testenv.FreePort()
		Expect(err).NotTo(HaveOccurred())
		opts.Webhook = webhook.Options{CertDir: certDir, Host: "127.0.0.1", Port: hookPort}
	}
	mgr, err := operator.NewManager(config(), opts)
	Expect(err).NotTo(HaveOccurred())
	mgrCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer GinkgoRecover()
		defer close(done)
		_ = mgr.Start(mgrCtx)
	}()
	DeferCleanup(func() { stop(); Eventually(done, timeout).Should(BeClosed()) })
	return func(path string) func() (string, error) {
		return func() (string, error) {
			resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d%s?verbose", port, path))
			if err != nil {
				return "", err
			}
			defer func() { _ = resp.Body.Close() }()
			body, _ := io.ReadAll(resp.Body)
			return fmt.Sprintf("%d %s", resp.StatusCode, body), nil
		}
	}
}

// webhookCertDir is a cert dir holding a serving certificate for 127.0.0.1.
func webhookCertDir() string {
	GinkgoHelper()
	now := time.Now()
	ca, err := certs.NewCA("probe-test", now.Add(-time.Minute), now.Add(time.Hour))
	Expect(err).NotTo(HaveOccurred())
	serving, err := certs.NewServing(ca, []string{"127.0.0.1"}, now.Add(-time.Minute), now.Add(time.Hour))
	Expect(err).NotTo(HaveOccurred())
	dir := GinkgoT().TempDir()
	Expect(os.WriteFile(filepath.Join(dir, certs.KeyCert), serving.CertPEM, 0o600)).To(Succeed())
	Expect(os.WriteFile(filepath.Join(dir, certs.KeyKey), serving.KeyPEM, 0o600)).To(Succeed())
	return dir
}

// scrapeError is the error a scrape of the metrics registry gives, or "".
func scrapeError() string {
	if _, err := ctrlmetrics.Registry.Gather(); err != nil {
		return err.Error()
	}
	return ""
}
