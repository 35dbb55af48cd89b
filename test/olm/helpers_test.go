package olm

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/test/framework"
)

// expectOnlyCSV waits until the namespace holds exactly the CSV of version, in phase Succeeded: after an
// upgrade the replaced CSV must be gone, not left beside the new one.
func expectOnlyCSV(ns, version string) {
	want := "webapp-operator.v" + version
	Eventually(func(g Gomega) {
		var list operatorsv1alpha1.ClusterServiceVersionList
		g.Expect(k8s.List(ctx, &list, client.InNamespace(ns))).To(Succeed())
		names := map[string]operatorsv1alpha1.ClusterServiceVersionPhase{}
		for _, csv := range list.Items {
			names[csv.Name] = csv.Status.Phase
		}
		g.Expect(names).To(Equal(map[string]operatorsv1alpha1.ClusterServiceVersionPhase{
			want: operatorsv1alpha1.CSVPhaseSucceeded}))
	}).Should(Succeed(), "CSV %s Succeeded and alone in %s", want, ns)
}

// expectRunning waits until version is the namespace's only CSV and its operator runs.
func expectRunning(ns, version string) {
	expectOnlyCSV(ns, version)
	expectOperatorImage(ns, version)
}

// upgradeKeepsServing runs upgrade (whatever makes OLM move to version) until running sees version, while
// probers send a request to the WebApp every 100 ms through its Service and, when it has a route, through
// the gateway. Once the new operator runs and reports the WebApp Ready for its generation, no request may
// have failed on either path, and the WebApp's children must be the same objects with the same pods and
// pod template: the upgrade neither recreated them nor rolled the pods.
func upgradeKeepsServing(wa *webappv1.WebApp, version string, upgrade func(), running func(ns, version string)) {
	before := childrenOf(wa)
	probers := startProbers(wa, 100*time.Millisecond)
	upgrade()
	running(wa.Namespace, version)
	expectReady(wa)
	Consistently(func() children { return childrenOf(wa) }, 5*time.Second).Should(Equal(before))
	framework.ExpectNoFailedRequests("the operator's upgrade to "+version, probers, 20)
}

// operatorImage is the image version's CSV names: its own build, by digest.
func operatorImage(version string) string {
	for _, vi := range strings.Fields(operatorImages) {
		if v, img, _ := strings.Cut(vi, "="); v == version {
			Expect(img).To(ContainSubstring("@sha256:"), "the bundle names the operator by digest")
			return img
		}
	}
	Fail("OPERATOR_IMGS names no image for " + version + ": " + operatorImages)
	return ""
}

// expectOperatorImage waits until the operator Deployment OLM made runs version's image, rolled out.
func expectOperatorImage(ns, version string) {
	want := operatorImage(version)
	Eventually(func(g Gomega) {
		var d appsv1.Deployment
		g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "webapp-operator-controller-manager"}, &d)).To(Succeed())
		g.Expect(d.Spec.Template.Spec.Containers[0].Image).To(Equal(want))
		g.Expect(d.Status.ObservedGeneration).To(Equal(d.Generation))
		g.Expect(d.Status.UpdatedReplicas).To(Equal(ptr.Deref(d.Spec.Replicas, 1)))
		g.Expect(d.Status.AvailableReplicas).To(Equal(ptr.Deref(d.Spec.Replicas, 1)))
	}).Should(Succeed(), "the operator in %s runs %s", ns, version)
}

// createDemo creates a WebApp serving the demo app with two replicas, so that one pod at a time can
// go without a failed request, reading its environment from a ConfigMap (its config revision is
// part of the template both versions render), exposed by route when not nil, with a label and an
// annotation. It sets nothing about how
// pods stop or roll (no lifecycle, no strategy): the operator's defaults apply.
func createDemo(ns string, route *webappv1.Route) *webappv1.WebApp {
	Expect(k8s.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "demo-env"},
		Data: map[string]string{"GREETING": "hello"}})).To(Succeed())
	wa := &webappv1.WebApp{
		// labels and annotations of its own, which the conversion between versions must keep
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "demo", Labels: map[string]string{"team": "olm-suite"},
			Annotations: map[string]string{"example.com/owner": "test/olm"}},
		Spec: webappv1.WebAppSpec{
			Image:       demoImageBase + ":v1",
			Replicas:    ptr.To[int32](2),
			Port:        8080,
			HealthCheck: &webappv1.HealthCheck{Path: "/healthz"},
			EnvFrom:     []webappv1.EnvFromSource{{ConfigMapRef: &webappv1.ObjectReference{Name: "demo-env"}}},
			Route:       route,
		},
	}
	Expect(k8s.Create(ctx, wa)).To(Succeed())
	return wa
}

// createRoutedDemo is createDemo with a route on the gateway of make gateway-install, for a host name
// of the namespace's own. make test-olm installs the gateway, with the Gateway API's CRDs, before OLM
// starts the operator: the operator looks for that API only when it starts.
func createRoutedDemo(ns string) *webappv1.WebApp {
	framework.ExpectGateway(ctx, k8s)
	return createDemo(ns, framework.GatewayRoute("demo."+ns+".olm.example"))
}

// expectReady waits until the operator reports the WebApp Ready for its current generation.
func expectReady(wa *webappv1.WebApp) {
	Eventually(func(g Gomega) {
		var got webappv1.WebApp
		g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(wa), &got)).To(Succeed())
		g.Expect(got.Status.ObservedGeneration).To(Equal(got.Generation))
		ready := meta.FindStatusCondition(got.Status.Conditions, webappv1.ConditionReady)
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Status).To(Equal(metav1.ConditionTrue), "%s: %s", ready.Reason, ready.Message)
	}).Should(Succeed(), "WebApp %s/%s Ready", wa.Namespace, wa.Name)
}

// children are the UIDs of the WebApp's Deployment and Service, its pod template and the names of
// its pods: an upgrade of the operator must neither recreate them nor roll the pods.
type children struct {
	deployment, service types.UID
	template            string
	pods                []string
}

func childrenOf(wa *webappv1.WebApp) children {
	var d appsv1.Deployment
	var s corev1.Service
	var pods corev1.PodList
	Expect(k8s.Get(ctx, client.ObjectKeyFromObject(wa), &d)).To(Succeed())
	Expect(k8s.Get(ctx, client.ObjectKeyFromObject(wa), &s)).To(Succeed())
	Expect(k8s.List(ctx, &pods, client.InNamespace(wa.Namespace),
		client.MatchingLabels{"app.kubernetes.io/instance": wa.Name})).To(Succeed())
	template, err := json.Marshal(d.Spec.Template)
	Expect(err).NotTo(HaveOccurred())
	c := children{deployment: d.UID, service: s.UID, template: string(template)}
	for _, p := range pods.Items {
		if p.DeletionTimestamp == nil {
			c.pods = append(c.pods, p.Name)
		}
	}
	slices.Sort(c.pods)
	return c
}

// probeHTTP calls the WebApp from the suite, which runs inside the node's network namespace, so a plain
// client reaches ClusterIPs; 5 s per request: a starved 2-core machine can be slow to answer, while a
// real outage refuses or resets.
var probeHTTP = &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}

// startProber sends a GET to the WebApp's Service every interval and counts the answers.
func startProber(wa *webappv1.WebApp, interval time.Duration) *framework.Prober {
	var svc corev1.Service
	Expect(k8s.Get(ctx, client.ObjectKeyFromObject(wa), &svc)).To(Succeed())
	url := fmt.Sprintf("http://%s:%d/", svc.Spec.ClusterIP, svc.Spec.Ports[0].Port)
	p, err := framework.StartProber(probeHTTP, url, interval)
	Expect(err).NotTo(HaveOccurred(), "the demo app answers through its Service")
	return p
}

// startProbers starts a prober on the WebApp's Service and, when the WebApp has a route, one on the
// gateway for the route's first host name, keyed by path for framework.ExpectNoFailedRequests.
func startProbers(wa *webappv1.WebApp, interval time.Duration) map[string]*framework.Prober {
	probers := map[string]*framework.Prober{"the Service": startProber(wa, interval)}
	if wa.Spec.Route != nil {
		p, err := framework.StartProberHost(probeHTTP, framework.GatewayURL+"/", wa.Spec.Route.Hostnames[0], interval)
		Expect(err).NotTo(HaveOccurred(), "the demo app answers through the gateway")
		probers["the gateway"] = p
	}
	return probers
}
