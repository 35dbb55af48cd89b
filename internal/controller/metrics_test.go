package controller_test

import (
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/webapp-operator/webapp-operator/internal/metrics"
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
})
