package integration

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/internal/resources"
)

// The default spread (issue 14) is the scheduler's own: a WebApp without spec.scheduling renders no
// topology spread constraint, so kube-scheduler applies its system defaults to the pods (they belong
// to a ReplicaSet and a Service): spread across kubernetes.io/hostname, and across
// topology.kubernetes.io/zone on the nodes that carry it, both ScheduleAnyway. Rendering those two
// constraints explicitly would not do the same: for explicit constraints the scheduler ignores, when
// scoring, every node that lacks one of the keys, so on a cluster without zone labels the spread
// would vanish. These specs run the real kube-scheduler on fake nodes (Node objects; no kubelet, so
// the pods are bound but never run) to show the default at work. One node is much larger than the
// others: without the spread, the scheduler's resource scoring would put every replica there.
var _ = Describe("Scheduling a WebApp that sets no spec.scheduling", Ordered, func() {
	var ns string
	BeforeAll(func() {
		Expect(cp.Spawn("kube-scheduler", filepath.Join(os.Getenv("KUBEBUILDER_ASSETS"), "kube-scheduler"),
			"--kubeconfig="+cp.Kubeconfig, "--secure-port=0", "--leader-elect=false")).
			To(Succeed(), "make envtest-assets builds kube-scheduler")
	})
	BeforeEach(func() { ns = newNamespace(nil) })

	It("spreads its replicas across nodes, although one node has far more room", func() {
		nodes := createNodes(map[string]string{"big": "", "small-1": "", "small-2": ""})
		app := readmeWebApp(ns, 3)
		Expect(k8s.Create(ctx, app)).To(Succeed())
		placed := placement(app, 3)
		Expect(sets.KeySet(placed).Len()).To(Equal(3), "replicas per node: %v", placed)
		deleteNodes(nodes)
	})

	It("spreads them across zones where nodes are labelled, and leaves no replica pending when it cannot", func() {
		zones := map[string]string{"big": "zone-a", "small-1": "zone-a", "small-2": "zone-b"}
		nodes := createNodes(zones)
		app := readmeWebApp(ns, 4) // more replicas than nodes: the spread is a preference, not a rule
		Expect(k8s.Create(ctx, app)).To(Succeed())
		placed := placement(app, 4)
		usedZones := sets.New[string]()
		for node := range placed {
			usedZones.Insert(zones[nodeRole(node)])
		}
		Expect(sets.KeySet(placed).Len()).To(Equal(3), "replicas per node: %v", placed)
		Expect(usedZones.Len()).To(Equal(2), "replicas per node: %v", placed)
		deleteNodes(nodes)
	})
})

// readmeWebApp is the README's example WebApp, with replicas replicas.
func readmeWebApp(ns string, replicas int32) *webappv1.WebApp {
	return &webappv1.WebApp{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "shop"},
		Spec: webappv1.WebAppSpec{Image: "ghcr.io/acme/shop:1.4.2", Replicas: ptr.To(replicas),
			HealthCheck: &webappv1.HealthCheck{Path: "/healthz"}},
	}
}

// createNodes creates a Ready node per role ("big" has 64 CPUs, the others 4), named
// <role>-<random>, with its zone label when the role's zone is not empty.
func createNodes(zones map[string]string) []*corev1.Node {
	GinkgoHelper()
	suffix := rand.String(4)
	out := make([]*corev1.Node, 0, len(zones))
	for role, zone := range zones {
		name := role + "-" + suffix
		labels := map[string]string{corev1.LabelHostname: name, corev1.LabelOSStable: "linux"}
		if zone != "" {
			labels[corev1.LabelTopologyZone] = zone
		}
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
		Expect(k8s.Create(ctx, node)).To(Succeed())
		// admission (TaintNodesByCondition) taints a new node not-ready; the node lifecycle controller,
		// which is not running, would lift it once the kubelet reports Ready
		node.Spec.Taints = nil
		Expect(k8s.Update(ctx, node)).To(Succeed())
		cpu := "4"
		if role == "big" {
			cpu = "64"
		}
		room := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu),
			corev1.ResourceMemory: resource.MustParse(cpu + "Gi"), corev1.ResourcePods: resource.MustParse("110")}
		node.Status = corev1.NodeStatus{Capacity: room, Allocatable: room,
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue,
				Reason: "KubeletReady", LastHeartbeatTime: metav1.Now()}}}
		Expect(k8s.Status().Update(ctx, node)).To(Succeed())
		out = append(out, node)
	}
	return out
}

func deleteNodes(nodes []*corev1.Node) {
	GinkgoHelper()
	for _, n := range nodes {
		Expect(k8s.Delete(ctx, n)).To(Succeed())
	}
}

// nodeRole is the role a createNodes name was made from.
func nodeRole(node string) string { return node[:len(node)-5] }

// placement waits until want pods of app are bound to nodes and counts them per node.
func placement(app *webappv1.WebApp, want int) map[string]int {
	GinkgoHelper()
	placed := map[string]int{}
	Eventually(func(g Gomega) {
		pods := &corev1.PodList{}
		g.Expect(k8s.List(ctx, pods, client.InNamespace(app.Namespace),
			client.MatchingLabels(resources.SelectorLabels(hub(app))))).To(Succeed())
		clear(placed)
		for _, p := range pods.Items {
			g.Expect(p.Spec.NodeName).NotTo(BeEmpty(), "pod %s is not scheduled: %v", p.Name, p.Status.Conditions)
			g.Expect(p.Spec.TopologySpreadConstraints).To(BeEmpty(), "the operator rendered a spread of its own")
			placed[p.Spec.NodeName]++
		}
		g.Expect(pods.Items).To(HaveLen(want))
	}, timeout, interval).Should(Succeed())
	return placed
}
