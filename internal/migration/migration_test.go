package migration_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr/funcr"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/api/v1beta1"
	"github.com/webapp-operator/webapp-operator/internal/migration"
	"github.com/webapp-operator/webapp-operator/internal/operator"
	"github.com/webapp-operator/webapp-operator/internal/testenv"
	"github.com/webapp-operator/webapp-operator/internal/testenv/specs"
)

var _ = Describe("The storage migration", func() {
	BeforeEach(reset)

	It("rewrites every WebApp in the storage version, then trims storedVersions; nothing else moves", func() {
		ns := newNamespace()
		names := createApps(ns)

		By("while v1alpha1 is the only stored version, there is nothing to do: one read of the CRD")
		w := &wire{}
		Expect(w.migrator().Start(ctx)).To(Succeed())
		Expect(w.requests()).To(Equal([]string{getCRDRequest}))
		Expect(storedIn(ns)).To(Equal(everyStoredIn(alpha, names)))

		By("the CRD stores v1beta1: the WebApps stay stored as v1alpha1")
		setStorage("v1beta1")
		Expect(storedVersions()).To(Equal([]string{"v1alpha1", "v1beta1"}))
		Expect(storedIn(ns)).To(Equal(everyStoredIn(alpha, names)))
		before := readAll(ns, names)

		By("the migration")
		w = &wire{}
		Expect(w.migrator().Start(ctx)).To(Succeed())
		Expect(storedIn(ns)).To(Equal(everyStoredIn(beta, names)))
		Expect(storedVersions()).To(Equal([]string{"v1beta1"}))
		Expect(w.writes()).To(ConsistOf(append(putRequests(ns, names), updateCRDRequest)),
			"one write of each WebApp and of the CRD's status, nothing else")
		lists := 0
		for _, r := range w.requests() {
			if r == "GET /apis/"+beta+"/webapps" {
				lists++
			}
		}
		Expect(lists).To(Equal(3), "7 WebApps listed 3 at a time")
		after := readAll(ns, names)
		for _, n := range names {
			expectSameContent(n, before[n], after[n])
			Expect(after[n].alpha.ResourceVersion).NotTo(Equal(before[n].alpha.ResourceVersion), "%s written", n)
		}

		By("a second start: one read of the CRD, no write")
		w = &wire{}
		Expect(w.migrator().Start(ctx)).To(Succeed())
		Expect(w.requests()).To(Equal([]string{getCRDRequest}))
		for n, again := range readAll(ns, names) {
			Expect(again.alpha.ResourceVersion).To(Equal(after[n].alpha.ResourceVersion), "%s not written again", n)
		}
	})

	It("stopped after two WebApps, leaves storedVersions; the next start rewrites the rest and trims", func() {
		ns := newNamespace()
		names := createPlain(ns, 5)
		setStorage("v1beta1")
		stopCtx, stop := context.WithCancel(ctx)
		puts := 0
		w := &wire{before: func(r *http.Request) (*http.Response, error) {
			if isWebAppPut(r) {
				if puts++; puts == 3 {
					stop() // the operator stops: its requests end with its context
					return nil, context.Canceled
				}
			}
			return nil, nil
		}}
		Expect(w.migrator().Start(stopCtx)).To(Succeed())
		Expect(storedVersions()).To(Equal([]string{"v1alpha1", "v1beta1"}))
		stored := storedIn(ns)
		Expect(countValues(stored)).To(Equal(map[string]int{alpha: 3, beta: 2}))
		before := readAll(ns, names)

		w = &wire{}
		Expect(w.migrator().Start(ctx)).To(Succeed())
		Expect(storedIn(ns)).To(Equal(everyStoredIn(beta, names)))
		Expect(storedVersions()).To(Equal([]string{"v1beta1"}))
		for n, after := range readAll(ns, names) {
			if stored[n] == beta {
				Expect(after.alpha.ResourceVersion).To(Equal(before[n].alpha.ResourceVersion),
					"%s, stored as v1beta1 already, is written back as it is stored: no write", n)
			}
		}
	})

	It("does not trim while a WebApp is not rewritten, rewrites the others, and retries until it is", func() {
		ns := newNamespace()
		names := createPlain(ns, 5)
		setStorage("v1beta1")
		failures := 0
		w := &wire{before: func(r *http.Request) (*http.Response, error) {
			if isPutOf(r, names[1]) && failures < 3 {
				failures++
				return failure(r, http.StatusInternalServerError), nil
			}
			return nil, nil
		}}
		m := w.migrator()
		Expect(m.Migrate(ctx)).To(MatchError(ContainSubstring("1 of 5 objects not rewritten")))
		Expect(storedVersions()).To(Equal([]string{"v1alpha1", "v1beta1"}))
		stored := storedIn(ns)
		Expect(stored).To(HaveKeyWithValue(names[1], alpha))
		Expect(countValues(stored)).To(Equal(map[string]int{alpha: 1, beta: 4}))
		Expect(w.writes()).NotTo(ContainElement(updateCRDRequest))

		By("the Runnable retries with backoff until the WebApp is written")
		Expect(m.Start(ctx)).To(Succeed())
		Expect(failures).To(Equal(3))
		Expect(storedIn(ns)).To(Equal(everyStoredIn(beta, names)))
		Expect(storedVersions()).To(Equal([]string{"v1beta1"}))
	})

	It("re-reads a WebApp changed since it was listed, and skips one deleted since", func() {
		ns := newNamespace()
		names := createPlain(ns, 4)
		setStorage("v1beta1")
		changed, deleted := names[1], names[2]
		var labelled, gone bool
		w := &wire{before: func(r *http.Request) (*http.Response, error) {
			switch {
			case isPutOf(r, changed) && !labelled:
				labelled = true
				app := &webappv1.WebApp{}
				Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: changed}, app)).To(Succeed())
				patch := client.MergeFrom(app.DeepCopy())
				app.Labels = map[string]string{"edited": "meanwhile"}
				Expect(k8sClient.Patch(ctx, app, patch)).To(Succeed())
			case isPutOf(r, deleted) && !gone:
				gone = true
				Expect(k8sClient.Delete(ctx, &webappv1.WebApp{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: deleted}})).
					To(Succeed())
			}
			return nil, nil
		}}
		Expect(w.migrator().Migrate(ctx)).To(Succeed())
		Expect(storedVersions()).To(Equal([]string{"v1beta1"}))
		Expect(storedIn(ns)).To(Equal(everyStoredIn(beta, []string{names[0], names[1], names[3]})))
		app := &webappv1.WebApp{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: changed}, app)).To(Succeed())
		Expect(app.Labels).To(HaveKeyWithValue("edited", "meanwhile"), "the change made meanwhile is kept")
		Expect(w.writes()).To(HaveEach(Not(HavePrefix("PATCH"))))
	})

	It("does not trim when the CRD's storage version moved during the pass; the next pass migrates what was written then",
		func() {
			ns := newNamespace()
			names := createPlain(ns, 3)
			setStorage("v1beta1")
			flipped := false
			w := &wire{before: func(r *http.Request) (*http.Response, error) {
				if isWebAppPut(r) && !flipped {
					flipped = true
					By("meanwhile the CRD stores v1alpha1 again, a WebApp is created, and the CRD stores v1beta1 again")
					setStorage("v1alpha1")
					Expect(k8sClient.Create(ctx, testenv.WebApp(ns, "late"))).To(Succeed())
					Expect(storedIn(ns)).To(HaveKeyWithValue("late", alpha))
					setStorage("v1beta1")
				}
				return nil, nil
			}}
			m := w.migrator()
			Expect(m.Migrate(ctx)).To(MatchError(migration.ErrCRDChanged))
			Expect(storedVersions()).To(Equal([]string{"v1alpha1", "v1beta1"}))
			Expect(storedIn(ns)).To(HaveKeyWithValue("late", alpha))

			Expect(m.Migrate(ctx)).To(Succeed())
			Expect(storedIn(ns)).To(Equal(everyStoredIn(beta, append(names, "late"))))
			Expect(storedVersions()).To(Equal([]string{"v1beta1"}))
		})

	It("logs a missing permission and returns, leaving storedVersions, rather than fail the operator", func() {
		ns := newNamespace()
		names := createPlain(ns, 2)
		setStorage("v1beta1")
		for _, tc := range []struct {
			user  string
			rules []rbacv1.PolicyRule
		}{
			{"no-permission", nil},
			{"no-update", []rbacv1.PolicyRule{
				{APIGroups: []string{"apiextensions.k8s.io"}, Resources: []string{"customresourcedefinitions"},
					ResourceNames: []string{crdName}, Verbs: []string{"get"}},
				{APIGroups: []string{group}, Resources: []string{"webapps"}, Verbs: []string{"get", "list"}}}},
		} {
			By(tc.user)
			m, err := migration.New(userConfig(tc.user, tc.rules), crdName)
			Expect(err).NotTo(HaveOccurred())
			logs := &logBuffer{}
			done := make(chan error, 1)
			go func() { done <- m.Start(logf.IntoContext(ctx, funcr.New(logs.write, funcr.Options{}))) }()
			Eventually(done, 10*time.Second).Should(Receive(BeNil()), "returns at once")
			Expect(logs.String()).To(ContainSubstring("The storage migration is not permitted"))
			Expect(logs.String()).To(ContainSubstring("forbidden"))
			Expect(storedVersions()).To(Equal([]string{"v1alpha1", "v1beta1"}))
			Expect(storedIn(ns)).To(Equal(everyStoredIn(alpha, names)))
		}
	})

	It("runs in the operator's manager when it starts, and leaves the WebApps' children alone", func() {
		ns := newNamespace()
		names := createPlain(ns, 3)
		stop := startOperator()
		children := func(g Gomega) map[string]string {
			out := map[string]string{}
			deployments := &appsv1.DeploymentList{}
			g.Expect(k8sClient.List(ctx, deployments, client.InNamespace(ns))).To(Succeed())
			for _, d := range deployments.Items {
				out["deployment/"+d.Name] = d.ResourceVersion
			}
			services := &corev1.ServiceList{}
			g.Expect(k8sClient.List(ctx, services, client.InNamespace(ns))).To(Succeed())
			for _, s := range services.Items {
				out["service/"+s.Name] = s.ResourceVersion
			}
			return out
		}
		Eventually(func(g Gomega) { g.Expect(children(g)).To(HaveLen(2 * len(names))) }, timeout, interval).
			Should(Succeed())
		stop()
		before, childrenBefore := readAll(ns, names), children(Default)

		By("the CRD stores v1beta1, and the operator starts again")
		setStorage("v1beta1")
		stop = startOperator()
		defer stop()
		Eventually(storedVersions, timeout, interval).Should(Equal([]string{"v1beta1"}))
		Expect(storedIn(ns)).To(Equal(everyStoredIn(beta, names)))
		Consistently(children, 3*time.Second, interval).Should(Equal(childrenBefore), "no child is written")
		after := readAll(ns, names)
		for _, n := range names {
			Expect(after[n].alpha.Generation).To(Equal(before[n].alpha.Generation), n)
			Expect(equality.Semantic.DeepEqual(after[n].alpha.Spec, before[n].alpha.Spec)).To(BeTrue(), n)
		}
	})
})

// createApps creates 7 WebApps as v1alpha1: one with every optional pod field, labels, annotations
// and a status; one whose CPU request is written "0.5" (the conversion writes quantities in their
// canonical form, "500m"); and plain ones.
func createApps(ns string) []string {
	GinkgoHelper()
	full := testenv.FullWebApp(ns, "full")
	full.Labels = map[string]string{"team": "shop"}
	full.Annotations = map[string]string{"note": "kept"}
	Expect(k8sClient.Create(ctx, full)).To(Succeed())
	full.Status = webappv1.WebAppStatus{ObservedGeneration: 1, Replicas: 2, ReadyReplicas: 1, Selector: "app=full"}
	Expect(k8sClient.Status().Update(ctx, full)).To(Succeed())

	quantity := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": alpha, "kind": "WebApp",
		"metadata": map[string]any{"namespace": ns, "name": "quantity"},
		"spec": map[string]any{"image": "example.com/shop:1.0",
			"resources": map[string]any{"requests": map[string]any{"cpu": "0.5"}}},
	}}
	Expect(k8sClient.Create(ctx, quantity)).To(Succeed())
	return append([]string{"full", "quantity"}, createPlain(ns, 5)...)
}

// createPlain creates n WebApps with an image and two replicas, as v1alpha1.
func createPlain(ns string, n int) []string {
	GinkgoHelper()
	names := make([]string, 0, n)
	for i := range n {
		app := testenv.WebApp(ns, fmt.Sprintf("app-%d", i))
		Expect(k8sClient.Create(ctx, app)).To(Succeed())
		names = append(names, app.Name)
	}
	return names
}

// read is a WebApp as read in each version.
type read struct {
	alpha *webappv1.WebApp
	beta  *v1beta1.WebApp
}

func readAll(ns string, names []string) map[string]read {
	GinkgoHelper()
	out := map[string]read{}
	for _, n := range names {
		r := read{alpha: &webappv1.WebApp{}, beta: &v1beta1.WebApp{}}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: n}, r.alpha)).To(Succeed())
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: n}, r.beta)).To(Succeed())
		out[n] = r
	}
	return out
}

// expectSameContent: in each version, the WebApp reads the same before and after, but for its
// resourceVersion and managedFields.
func expectSameContent(name string, before, after read) {
	GinkgoHelper()
	for _, pair := range [][2]client.Object{{before.alpha, after.alpha}, {before.beta, after.beta}} {
		was, is := pair[0].DeepCopyObject().(client.Object), pair[1].DeepCopyObject().(client.Object)
		Expect(is.GetGeneration()).To(Equal(was.GetGeneration()), "%s: generation", name)
		for _, o := range []client.Object{was, is} {
			o.SetResourceVersion("")
			o.SetManagedFields(nil)
		}
		Expect(equality.Semantic.DeepEqual(was, is)).To(BeTrue(), "%s reads differently:\nbefore %s\nafter  %s",
			name, dump(was), dump(is))
	}
}

func dump(o any) string {
	b, _ := json.Marshal(o)
	return string(b)
}

func countValues(m map[string]string) map[string]int {
	out := map[string]int{}
	for _, v := range m {
		out[v]++
	}
	return out
}

// isWebAppPut tells whether r writes a WebApp.
func isWebAppPut(r *http.Request) bool {
	return r.Method == http.MethodPut && strings.Contains(r.URL.Path, "/webapps/")
}

// userConfig is the config of a new user granted rules cluster-wide.
func userConfig(name string, rules []rbacv1.PolicyRule) *rest.Config {
	GinkgoHelper()
	if rules != nil {
		Expect(k8sClient.Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules})).
			To(Succeed())
		Expect(k8sClient.Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
			Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: name}}})).To(Succeed())
	}
	user, err := testEnv.AddUser(envtest.User{Name: name}, nil)
	Expect(err).NotTo(HaveOccurred())
	return user.Config()
}

// logBuffer collects a logger's lines.
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) write(prefix, args string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.WriteString(prefix + " " + args + "\n")
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startOperator starts the operator's manager as cmd/main.go builds it, and returns its stop.
func startOperator() (stop func()) {
	GinkgoHelper()
	mgr, err := operator.NewManager(testEnv.Config, operator.Options{
		Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		// every start builds the same controller again in this process
		SkipControllerNameValidation: true,
	})
	Expect(err).NotTo(HaveOccurred())
	return specs.RunManager(ctx, mgr, timeout)
}
