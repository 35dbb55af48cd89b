package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/internal/operator"
)

// Two replicas of the operator: the leader is deleted in the middle of a rollout; another replica must
// take over within the lease time and converge, and two replicas must never write at once. The API server's
// audit log (hack/local-cluster/templates/audit-policy.yaml) says which pod sent each write.
// Serial: it scales the operator's Deployment and deletes its leader.
var _ = Describe("Leader handover", Ordered, Serial, func() {
	var (
		ns, app string
		pods    map[string]string // pod IP -> pod name
	)
	operatorSA := "system:serviceaccount:" + operatorNamespace + ":" + operatorDeployment

	BeforeAll(func() {
		Expect(auditLog).NotTo(BeEmpty(), "LOCAL_CLUSTER_AUDIT_LOG: run the suite with make test-e2e")
		ns, app = namespace, "handover"
		By("running two replicas of the operator")
		scaleOperator(2)
		DeferCleanup(func() { scaleOperator(1) })
		Expect(k8s.Create(ctx, &webappv1.WebApp{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: app},
			Spec: webappv1.WebAppSpec{Image: demoImage + ":v1", Replicas: ptr.To[int32](3), Port: 8080,
				HealthCheck: &webappv1.HealthCheck{Path: "/healthz"}},
		})).To(Succeed())
		DeferCleanup(func() {
			_ = k8s.Delete(ctx, &webappv1.WebApp{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: app}})
		})
		readyWith(ns, app, demoImage+":v1", 3)
	})

	It("hands over to another replica within the lease time, converges, and never has two writers", func() {
		pods = operatorPodIPs()
		Expect(pods).To(HaveLen(2))
		leader := leaseHolderPod(pods)
		By("the leader is " + leader + "; changing the image, then deleting the leader mid-rollout")
		since := time.Now()
		updateWebApp(ns, app, func(wa *webappv1.WebApp) { wa.Spec.Image = demoImage + ":v2" })
		Eventually(func(g Gomega) {
			d := &appsv1.Deployment{}
			g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: app}, d)).To(Succeed())
			g.Expect(d.Spec.Template.Spec.Containers[0].Image).To(Equal(demoImage + ":v2"))
		}).Should(Succeed())
		deleted := time.Now()
		leaderPod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: operatorNamespace, Name: leader}}
		Expect(k8s.Delete(ctx, leaderPod)).To(Succeed())

		// the standby, or the replica the Deployment starts in place of the deleted one, whichever
		// acquires the released lease first
		var next string
		Eventually(func(g Gomega) {
			for ip, name := range operatorPodIPs() {
				pods[ip] = name
			}
			next = leaseHolderPod(pods)
			g.Expect(next).NotTo(BeEmpty())
			g.Expect(next).NotTo(Equal(leader))
		}, operator.DefaultLeaseDuration+time.Minute, time.Second).Should(Succeed())
		tookOver := time.Since(deleted)
		By(fmt.Sprintf("HANDOVER %s took over %s after the leader was deleted (lease duration %s)",
			next, tookOver.Round(time.Second), operator.DefaultLeaseDuration))
		Expect(tookOver).To(BeNumerically("<", operator.DefaultLeaseDuration))

		By("the standby converges the rollout; a change after the handover is applied too")
		updateWebApp(ns, app, func(wa *webappv1.WebApp) { wa.Spec.Replicas = ptr.To[int32](2) })
		readyWith(ns, app, demoImage+":v2", 2)
		for ip, name := range operatorPodIPs() {
			pods[ip] = name
		}

		By("the audit log: every write of the operator came from the lease holder, never from both at once")
		writes := operatorWrites(operatorSA, ns, since)
		Expect(writes).NotTo(BeEmpty())
		var sequence []string
		log := make([]string, 0, len(writes))
		for _, w := range writes {
			name := pods[w.sourceIP]
			Expect(name).NotTo(BeEmpty(), "a write from an unknown address: %+v", w)
			log = append(log, fmt.Sprintf("%s %s %s", w.at.Format("15:04:05.000000"), name, w.what))
			if len(sequence) == 0 || sequence[len(sequence)-1] != name {
				sequence = append(sequence, name)
			}
		}
		By(fmt.Sprintf("WRITES %d by the operator since the image change, in this order of writers: %v",
			len(writes), sequence))
		Expect(sequence).To(Equal([]string{leader, next}), "writers interleaved; the writes:\n%s",
			strings.Join(log, "\n"))
	})
})

// auditLog is the local cluster's API server audit log (make test-e2e passes its path).
var auditLog = os.Getenv("LOCAL_CLUSTER_AUDIT_LOG")

type write struct {
	at       time.Time
	sourceIP string
	what     string
}

// operatorWrites are the operator's writes in namespace ns since t (the WebApp's status and its
// children), in the order the API server received them. Its events are left out: an event is sent
// asynchronously, possibly while a replica hands over. So is what every replica writes outside ns
// whether it leads or not: the access reviews it makes at start-up, the token and access reviews of
// each metrics scrape, and its lease, which is how the replicas take turns.
func operatorWrites(user, ns string, since time.Time) []write {
	GinkgoHelper()
	f, err := os.Open(auditLog)
	Expect(err).NotTo(HaveOccurred())
	defer func() { _ = f.Close() }()
	var out []write
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var ev struct {
			Verb      string
			User      struct{ Username string }
			SourceIPs []string
			ObjectRef struct{ Resource, Subresource, Namespace, Name string }
			Stage     string
			Received  metav1.MicroTime `json:"requestReceivedTimestamp"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.User.Username != user || ev.Stage != "ResponseComplete" ||
			ev.Received.Time.Before(since) || ev.ObjectRef.Namespace != ns || ev.ObjectRef.Resource == "events" {
			continue
		}
		out = append(out, write{at: ev.Received.Time, sourceIP: ev.SourceIPs[0],
			what: strings.Join([]string{ev.Verb, ev.ObjectRef.Resource, ev.ObjectRef.Subresource, ev.ObjectRef.Name}, " ")})
	}
	Expect(sc.Err()).NotTo(HaveOccurred())
	sort.SliceStable(out, func(i, j int) bool { return out[i].at.Before(out[j].at) })
	return out
}

func scaleOperator(n int32) {
	GinkgoHelper()
	Eventually(func() error {
		d := &appsv1.Deployment{}
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: operatorNamespace, Name: operatorDeployment}, d); err != nil {
			return err
		}
		d.Spec.Replicas = ptr.To(n)
		return k8s.Update(ctx, d)
	}).Should(Succeed())
	Eventually(func(g Gomega) {
		d := &appsv1.Deployment{}
		g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: operatorNamespace, Name: operatorDeployment}, d)).To(Succeed())
		g.Expect(d.Status.ObservedGeneration).To(Equal(d.Generation))
		g.Expect(d.Status.ReadyReplicas).To(Equal(n))
		g.Expect(d.Status.Replicas).To(Equal(n))
	}, 4*time.Minute).Should(Succeed(), "%d ready operator replicas", n)
}

// operatorPodIPs maps the IPs of the running operator pods to their names.
func operatorPodIPs() map[string]string {
	GinkgoHelper()
	pods := &corev1.PodList{}
	Expect(k8s.List(ctx, pods, client.InNamespace(operatorNamespace),
		client.MatchingLabels{"control-plane": "controller-manager"})).To(Succeed())
	out := map[string]string{}
	for _, p := range pods.Items {
		if p.DeletionTimestamp == nil && p.Status.PodIP != "" {
			out[p.Status.PodIP] = p.Name
		}
	}
	return out
}

// leaseHolder is the identity that holds the operator's leader election Lease (<pod>_<uuid>), or "".
func leaseHolder() string {
	lease := &coordinationv1.Lease{}
	key := client.ObjectKey{Namespace: operatorNamespace, Name: operator.LeaderElectionID}
	if err := k8s.Get(ctx, key, lease); err != nil {
		return ""
	}
	return ptr.Deref(lease.Spec.HolderIdentity, "")
}

// leaseHolderPod is the operator pod of pods that holds the Lease, or "".
func leaseHolderPod(pods map[string]string) string {
	holder := leaseHolder()
	for _, name := range pods {
		if strings.HasPrefix(holder, name+"_") {
			return name
		}
	}
	return ""
}

// readyWith waits until the WebApp runs image on n ready replicas and answers HTTP.
func readyWith(ns, name, image string, n int32) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		wa := &webappv1.WebApp{}
		g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, wa)).To(Succeed())
		g.Expect(wa.Spec.Image).To(Equal(image))
		g.Expect(wa.Status.ObservedGeneration).To(Equal(wa.Generation))
		g.Expect(wa.Status.ReadyReplicas).To(Equal(n))
		ready := meta.FindStatusCondition(wa.Status.Conditions, webappv1.ConditionReady)
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Status).To(Equal(metav1.ConditionTrue), "%s: %s", ready.Reason, ready.Message)
	}, 3*time.Minute).Should(Succeed())
}

// updateWebApp changes a WebApp, retrying on conflicts.
func updateWebApp(ns, name string, mutate func(*webappv1.WebApp)) {
	GinkgoHelper()
	wa := &webappv1.WebApp{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	updateObject(wa, func() { mutate(wa) })
}
