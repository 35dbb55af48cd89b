package e2e

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/test/framework"
)

// The job the ServiceMonitor's scrapes get (the metrics Service's name), which the alerts and the
// dashboard select on.
const metricsJob = "webapp-operator-controller-manager-metrics-service"

// A real Prometheus (Debian's, make prometheus) scrapes the operator's pod through its metrics
// Service, over HTTPS with a ServiceAccount token, as the bundle's ServiceMonitor makes the Prometheus
// Operator do, and evaluates the shipped alert rules. A WebApp goes Ready, then breaks, and another
// one is Stalled: every dashboard query must evaluate and return series, every alert expression must
// evaluate, and the Stalled alert must fire.
var _ = Describe("Monitoring with a real Prometheus", Ordered, func() {
	var ns, promURL string

	BeforeAll(func() {
		prometheus := framework.MustEnv("PROMETHEUS")
		ns = "e2e-monitoring-" + rand.String(5)
		Expect(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
		DeferCleanup(func() { _ = k8s.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}) })
		promURL = startPrometheus(prometheus, scraperToken(ns))
	})

	It("scrapes the operator, evaluates every dashboard query and alert, and fires WebAppStalled", func() {
		By("a WebApp that becomes Ready, then breaks; another one Stalled by a name conflict")
		Expect(k8s.Create(ctx, &webappv1.WebApp{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "watched"},
			Spec: webappv1.WebAppSpec{Image: demoImage + ":v1", Replicas: ptr.To[int32](1)}})).To(Succeed())
		readyWith(ns, "watched", demoImage+":v1", 1)
		updateWebApp(ns, "watched", func(wa *webappv1.WebApp) { wa.Spec.Image = demoImage + ":does-not-exist" })
		foreign := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "taken"},
			Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](0),
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "theirs"}},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "theirs"}},
					Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: demoImage + ":v1"}}}}}}
		Expect(k8s.Create(ctx, foreign)).To(Succeed())
		Expect(k8s.Create(ctx, &webappv1.WebApp{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "taken"},
			Spec: webappv1.WebAppSpec{Image: demoImage + ":v1"}})).To(Succeed())

		By("Prometheus sees both WebApps' conditions")
		Eventually(func(g Gomega) {
			g.Expect(query(g, promURL, fmt.Sprintf(`webapp_condition{namespace=%q,name="watched",type="Ready",status="False"}`,
				ns))).NotTo(BeEmpty())
			g.Expect(query(g, promURL, fmt.Sprintf(`webapp_condition{namespace=%q,name="taken",type="Stalled",`+
				`status="True",reason="NameConflict"}`, ns))).NotTo(BeEmpty())
		}, 2*time.Minute, 2*time.Second).Should(Succeed())

		By("every dashboard query returns series; every alert expression evaluates")
		dashboard, alerts := dashboardQueries(), alertExpressions()
		Expect(dashboard).NotTo(BeEmpty())
		Expect(alerts).To(HaveLen(7))
		Eventually(func(g Gomega) {
			for _, q := range dashboard {
				g.Expect(query(g, promURL, q)).NotTo(BeEmpty(), "dashboard query %s", q)
			}
		}, time.Minute, 2*time.Second).Should(Succeed())
		for name, expr := range alerts {
			Eventually(func(g Gomega) { query(g, promURL, expr) }).Should(Succeed(), "alert %s", name)
		}

		By("WebAppStalled fires for the stalled WebApp once its (shortened) for has passed")
		Eventually(func(g Gomega) {
			g.Expect(query(g, promURL, fmt.Sprintf(`ALERTS{alertname="WebAppStalled",alertstate="firing",namespace=%q,`+
				`name="taken",reason="NameConflict"}`, ns))).NotTo(BeEmpty())
		}, 4*time.Minute, 2*time.Second).Should(Succeed())
		Expect(query(Default, promURL, fmt.Sprintf(`ALERTS{alertname="WebAppStalled",name="watched",namespace=%q}`, ns))).
			To(BeEmpty(), "a WebApp that is not Stalled must not raise WebAppStalled")

		if dir := os.Getenv("E2E_SCREENSHOTS"); dir != "" {
			// Debian builds Prometheus without its React UI: the pages are the classic ones
			By("screenshots of Prometheus' pages for docs/observability.md (make observability-screenshots)")
			screenshot(promURL+"/classic/alerts", filepath.Join(dir, "prometheus-alerts.png"))
			screenshot(promURL+"/classic/graph?g0.tab=0&g0.range_input=5m&g0.expr="+url.QueryEscape(
				`max by (namespace, name, type, status, reason) (webapp_condition{status="True"})`),
				filepath.Join(dir, "prometheus-conditions.png"))
		}
	})
})

// screenshot renders page with headless Chromium (Debian's), inside the node's network namespace
// where Prometheus listens, into the PNG file out.
func screenshot(page, out string) {
	GinkgoHelper()
	abs, err := filepath.Abs(out)
	Expect(err).NotTo(HaveOccurred())
	cmd := exec.CommandContext(ctx, "nsenter", "--net="+framework.NodeNetns, "chromium", "--headless", "--no-sandbox",
		"--disable-gpu", "--hide-scrollbars", "--window-size=1400,800", "--virtual-time-budget=10000",
		"--screenshot="+abs, page)
	outText, err := cmd.CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), "chromium: %s", outText)
	Expect(abs).To(BeARegularFile())
}

// scraperToken creates a ServiceAccount bound to the operator's metrics-reader role, the one a
// Prometheus is given, and returns a token for it.
func scraperToken(ns string) string {
	GinkgoHelper()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "prometheus"}}
	Expect(k8s.Create(ctx, sa)).To(Succeed())
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: ns + "-metrics-reader"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "webapp-operator-metrics-reader"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: sa.Name}}}
	Expect(k8s.Create(ctx, binding)).To(Succeed())
	DeferCleanup(func() { _ = k8s.Delete(ctx, binding) })
	tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}}
	Expect(k8s.SubResource("token").Create(ctx, sa, tr)).To(Succeed())
	Expect(tr.Status.Token).NotTo(BeEmpty())
	return tr.Status.Token
}

// startPrometheus runs prometheus in the node's network namespace, where the metrics Service's
// ClusterIP is reachable, with the shipped alert rules, and returns its URL (reached the same way).
func startPrometheus(bin, token string) string {
	GinkgoHelper()
	svc := &corev1.Service{}
	Expect(k8s.Get(ctx, client.ObjectKey{Namespace: operatorNamespace, Name: metricsJob}, svc)).To(Succeed())
	dir := GinkgoT().TempDir()
	Expect(os.WriteFile(filepath.Join(dir, "token"), []byte(token), 0o600)).To(Succeed())
	rules := ruleFile()
	if os.Getenv("E2E_SCREENSHOTS") == "" {
		rules = shortenFor(rules, e2eAlertFor)
	}
	Expect(os.WriteFile(filepath.Join(dir, "rules.yaml"), rules, 0o600)).To(Succeed())
	// scrape and evaluate every 2 s so that the spec does not wait for minutes; honor_labels as the
	// ServiceMonitor sets it, so that a WebApp's namespace label stays its own
	cfg := fmt.Sprintf(`global: {scrape_interval: 2s, evaluation_interval: 2s}
rule_files: [%s]
scrape_configs:
- job_name: %s
  honor_labels: true
  scheme: https
  tls_config: {insecure_skip_verify: true}
  authorization: {credentials_file: %s}
  static_configs: [{targets: ["%s:8443"]}]
`, filepath.Join(dir, "rules.yaml"), metricsJob, filepath.Join(dir, "token"), svc.Spec.ClusterIP)
	Expect(os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg), 0o600)).To(Succeed())
	const listen = "127.0.0.1:19090"
	p, err := framework.StartProcess("prometheus", filepath.Join(dir, "prometheus.log"), nil,
		"nsenter", "--net="+framework.NodeNetns, bin, "--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+listen)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() {
		p.Stop()
		if CurrentSpecReport().Failed() {
			log, _ := os.ReadFile(p.LogPath())
			_, _ = fmt.Fprintf(GinkgoWriter, "\n----- prometheus log\n%s", log)
		}
	})
	promURL := "http://" + listen
	Eventually(func(g Gomega) {
		if exited, err := p.Exited(); exited {
			log, _ := os.ReadFile(p.LogPath())
			StopTrying(fmt.Sprintf("prometheus exited (%v):\n%s", err, log)).Now()
		}
		r := query(g, promURL, fmt.Sprintf(`up{job=%q}`, metricsJob))
		g.Expect(r).To(HaveLen(1))
		g.Expect(r[0].Value[1]).To(Equal("1"), "the operator's metrics endpoint, over HTTPS with the token")
	}, time.Minute, time.Second).Should(Succeed())
	return promURL
}

// ruleFile is config/prometheus/alerts.yaml's PrometheusRule as a plain Prometheus rule file.
func ruleFile() []byte {
	GinkgoHelper()
	data, err := os.ReadFile(filepath.Join("..", "..", "config", "prometheus", "alerts.yaml"))
	Expect(err).NotTo(HaveOccurred())
	var rule struct {
		Spec json.RawMessage `json:"spec"`
	}
	Expect(yaml.Unmarshal(data, &rule)).To(Succeed())
	out, err := yaml.JSONToYAML(rule.Spec)
	Expect(err).NotTo(HaveOccurred())
	return out
}

// The alerts' for durations (2 to 15 minutes) are promtool's to test (make test-alerts runs a case
// on each side of each one). Here the question is whether the shipped expressions match the series
// the operator really exports, so the rules Prometheus loads wait e2eAlertFor instead: waiting out
// WebAppStalled's 2 minutes was the largest single cost of the suite. The screenshots for
// docs/observability.md keep the shipped durations, since the alerts page shows them.
const e2eAlertFor = "10s"

// shortenFor returns the rule file with every alert's for set to d.
func shortenFor(rules []byte, d string) []byte {
	GinkgoHelper()
	var file map[string]any
	Expect(yaml.Unmarshal(rules, &file)).To(Succeed())
	groups, ok := file["groups"].([]any)
	Expect(ok).To(BeTrue(), "a rule file without groups")
	for _, g := range groups {
		rs, _ := g.(map[string]any)["rules"].([]any)
		for _, r := range rs {
			if rule := r.(map[string]any); rule["alert"] != nil && rule["for"] != nil {
				rule["for"] = d
			}
		}
	}
	out, err := yaml.Marshal(file)
	Expect(err).NotTo(HaveOccurred())
	return out
}

// alertExpressions maps each shipped alert to its expression.
func alertExpressions() map[string]string {
	GinkgoHelper()
	var rules struct {
		Groups []struct {
			Rules []struct {
				Alert string `json:"alert"`
				Expr  string `json:"expr"`
			} `json:"rules"`
		} `json:"groups"`
	}
	Expect(yaml.Unmarshal(ruleFile(), &rules)).To(Succeed())
	out := map[string]string{}
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			out[r.Alert] = r.Expr
		}
	}
	return out
}

// dashboardQueries are the dashboard's panel queries, with its variables set as Grafana would: every
// namespace, and a rate window of a few scrapes.
func dashboardQueries() []string {
	GinkgoHelper()
	data, err := os.ReadFile(filepath.Join("..", "..", "config", "grafana", "webapp-operator.json"))
	Expect(err).NotTo(HaveOccurred())
	var d struct {
		Panels []struct {
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	Expect(json.Unmarshal(data, &d)).To(Succeed())
	vars := strings.NewReplacer("$namespace", ".*", "$__rate_interval", "30s")
	var out []string
	for _, p := range d.Panels {
		for _, t := range p.Targets {
			if t.Expr != "" {
				out = append(out, vars.Replace(t.Expr))
			}
		}
	}
	Expect(strings.Join(out, "\n")).NotTo(MatchRegexp(`\$`), "a dashboard variable the spec does not set")
	return out
}

type sample struct {
	Metric map[string]string `json:"metric"`
	Value  [2]any            `json:"value"`
}

// query runs an instant query; an error of Prometheus (a bad expression) fails g.
func query(g Gomega, promURL, q string) []sample {
	status, body, err := get(promURL + "/api/v1/query?query=" + url.QueryEscape(q))
	g.Expect(err).NotTo(HaveOccurred())
	var r struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result []sample `json:"result"`
		} `json:"data"`
	}
	g.Expect(json.Unmarshal([]byte(body), &r)).To(Succeed(), "%d %s", status, body)
	g.Expect(r.Status).To(Equal("success"), "%s: %s", q, r.Error)
	return r.Data.Result
}
