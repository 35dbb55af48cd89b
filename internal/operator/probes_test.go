package operator_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/webapp-operator/webapp-operator/internal/operator"
	"github.com/webapp-operator/webapp-operator/internal/testenv"
)

// The probes must tell the truth: a replica whose caches cannot sync is not ready, and one whose
// informers keep failing is not alive, instead of a green pod that reconciles nothing.
var _ = Describe("The operator's health probes", func() {
	It("are not ready until the caches sync, and not alive while an informer keeps failing", func() {
		By("a manager whose user may not list pods (RBAC): its pod informer fails")
		user, err := testEnv.AddUser(envtest.User{Name: "probe-test"}, nil)
		Expect(err).NotTo(HaveOccurred())
		rules := make([]rbacv1.PolicyRule, 0, 11)
		rules = append(rules,
			rbacv1.PolicyRule{APIGroups: []string{"apps.webapp-operator.io"}, Resources: []string{"*"}, Verbs: []string{"*"}},
			rbacv1.PolicyRule{APIGroups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: []string{"*"}},
			rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"services"}, Verbs: []string{"*"}},
			rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps", "secrets"}, Verbs: []string{"get", "list", "watch"}},
			rbacv1.PolicyRule{APIGroups: []string{"policy"}, Resources: []string{"poddisruptionbudgets"}, Verbs: []string{"*"}},
			rbacv1.PolicyRule{APIGroups: []string{"autoscaling"}, Resources: []string{"horizontalpodautoscalers"}, Verbs: []string{"*"}},
			rbacv1.PolicyRule{APIGroups: []string{"networking.k8s.io"}, Resources: []string{"networkpolicies", "ingresses"}, Verbs: []string{"*"}},
			rbacv1.PolicyRule{APIGroups: []string{"events.k8s.io"}, Resources: []string{"events"}, Verbs: []string{"*"}},
			rbacv1.PolicyRule{APIGroups: []string{"gateway.networking.k8s.io"}, Resources: []string{"httproutes"}, Verbs: []string{"*"}},
			rbacv1.PolicyRule{APIGroups: []string{"monitoring.coreos.com"}, Resources: []string{"servicemonitors"}, Verbs: []string{"*"}},
		)
		grant("probe-test", rules)

		port, err := testenv.FreePort()
		Expect(err).NotTo(HaveOccurred())
		mgr, err := operator.NewManager(user.Config(), operator.Options{
			Metrics:                      metricsserver.Options{BindAddress: "0"},
			HealthProbeBindAddress:       fmt.Sprintf("127.0.0.1:%d", port),
			CacheFailureTolerance:        3 * time.Second,
			SkipControllerNameValidation: true,
		})
		Expect(err).NotTo(HaveOccurred())
		mgrCtx, stop := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer GinkgoRecover()
			defer close(done)
			_ = mgr.Start(mgrCtx)
		}()
		DeferCleanup(func() { stop(); Eventually(done, timeout).Should(BeClosed()) })
		probe := func(path string) func() (string, error) {
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

		Eventually(probe("/readyz"), timeout, interval).Should(And(HavePrefix("500"), ContainSubstring("[-]caches-synced failed")))
		Consistently(probe("/readyz"), 4*time.Second, interval).Should(HavePrefix("500"), "ready without its caches")
		// the endpoint withholds the reason (the manager logs it): only which check failed
		Eventually(probe("/healthz"), timeout, interval).Should(And(HavePrefix("500"), ContainSubstring("[-]informers failed")))

		By("granting it pods: the caches sync, and it is ready and alive again")
		grant("probe-test", append(rules, rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"pods"},
			Verbs: []string{"get", "list", "watch"}}))
		Eventually(probe("/readyz"), 2*timeout, interval).Should(HavePrefix("200"))
		Eventually(probe("/healthz"), 2*timeout, interval).Should(HavePrefix("200"))
	})
})

// grant gives user the rules, cluster-wide (replacing what it had).
func grant(user string, rules []rbacv1.PolicyRule) {
	GinkgoHelper()
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: user}}
	_, err := controllerutil.CreateOrUpdate(ctx, k8sClient, role, func() error { role.Rules = rules; return nil })
	Expect(err).NotTo(HaveOccurred())
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: user}}
	_, err = controllerutil.CreateOrUpdate(ctx, k8sClient, binding, func() error {
		binding.RoleRef = rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: user}
		binding.Subjects = []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}}
		return nil
	})
	Expect(err).NotTo(HaveOccurred())
}
