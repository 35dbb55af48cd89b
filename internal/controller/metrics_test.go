package controller_test

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/internal/metrics"
	"github.com/webapp-operator/webapp-operator/internal/status"
)

// scrape reads the manager's metrics endpoint, as Prometheus does.
func scrape() string {
	GinkgoHelper()
	var body []byte
	Eventually(func(g Gomega) {
		resp, err := http.Get("http://" + metricsAddr + "/metrics")
		g.Expect(err).NotTo(HaveOccurred())
		defer func() { _ = resp.Body.Close() }()
		g.Expect(resp.StatusCode).To(Equal(http.StatusOK))
		body, err = io.ReadAll(resp.Body)
		g.Expect(err).NotTo(HaveOccurred())
	}, timeout, interval).Should(Succeed())
	return string(body)
}

// documentedMetric is a row of docs/observability.md's metric tables: name and type.
var documentedMetric = regexp.MustCompile("(?m)^\\| `([a-z_:]+)` \\| (gauge|counter|histogram) \\|")

var typeLine = regexp.MustCompile(`(?m)^# TYPE ([a-z_:]+) `)

var rolloutCountLine = regexp.MustCompile(`(?m)^` + metrics.RolloutDurationName + `_count (\d+)$`)

func rolloutCount() int {
	GinkgoHelper()
	m := rolloutCountLine.FindStringSubmatch(scrape())
	Expect(m).NotTo(BeNil(), "no %s_count on the endpoint", metrics.RolloutDurationName)
	n, err := strconv.Atoi(m[1])
	Expect(err).NotTo(HaveOccurred())
	return n
}

var _ = Describe("WebApp metrics", func() {
	It("appear on the metrics endpoint with the WebApp, follow its status, and go with it", func() {
		ns := newNamespace()
		before := rolloutCount()
		app := newWebApp(ns, "shop")
		createReady(app)

		id := fmt.Sprintf(`name="shop",namespace=%q`, ns)
		Eventually(scrape, timeout, interval).Should(And(
			ContainSubstring(`webapp_condition{`+id+`,reason="Ready",status="True",type="Ready"} 1`),
			ContainSubstring(`webapp_condition{`+id+`,reason="Ready",status="False",type="Stalled"} 1`),
			ContainSubstring(`webapp_condition{`+id+`,reason="MinimumReplicasAvailable",status="True",type="Available"} 1`),
			ContainSubstring(`webapp_spec_replicas{`+id+`} 2`),
			ContainSubstring(`webapp_status_replicas_ready{`+id+`} 2`),
			ContainSubstring(`webapp_status_replicas_available{`+id+`} 2`),
			MatchRegexp(`webapp_last_successful_reconcile_timestamp_seconds\{`+regexp.QuoteMeta(id)+`\} \d`),
		))
		Expect(scrape()).NotTo(ContainSubstring(`webapp_condition{`+id+`,reason="Creating"`),
			"a condition's earlier reason is still reported")
		Expect(rolloutCount()).To(BeNumerically(">", before), "the rollout to Ready was not observed")

		By("deleting the WebApp: its series go with it")
		Expect(k8sClient.Delete(ctx, app)).To(Succeed())
		Eventually(scrape, timeout, interval).ShouldNot(ContainSubstring(id))
	})

	It("serve every metric docs/observability.md lists, with its type, and it lists every WebApp metric", func() {
		ns := newNamespace()
		createReady(newWebApp(ns, "shop"))
		By("a stalled WebApp too: a foreign Service holds its name")
		foreign := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "taken", Namespace: ns},
			Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}}
		Expect(k8sClient.Create(ctx, foreign)).To(Succeed())
		Expect(k8sClient.Create(ctx, newWebApp(ns, "taken"))).To(Succeed())
		Eventually(condition(ns, "taken", webappv1.ConditionStalled), timeout, interval).
			Should(haveStatusReason(metav1.ConditionTrue, status.ReasonNameConflict))

		data, err := os.ReadFile("../../docs/observability.md")
		Expect(err).NotTo(HaveOccurred())
		rows := documentedMetric.FindAllStringSubmatch(string(data), -1)
		Expect(len(rows)).To(BeNumerically(">", 10), "no metric tables in docs/observability.md")
		Eventually(func(g Gomega) {
			body := scrape()
			for _, row := range rows {
				g.Expect(body).To(ContainSubstring("# TYPE "+row[1]+" "+row[2]+"\n"), "%s (%s) is not served", row[1], row[2])
			}
			for _, m := range typeLine.FindAllStringSubmatch(body, -1) {
				if strings.HasPrefix(m[1], "webapp_") {
					g.Expect(string(data)).To(ContainSubstring("| `"+m[1]+"` |"), "%s is not documented", m[1])
				}
			}
		}, timeout, interval).Should(Succeed())
	})
})
