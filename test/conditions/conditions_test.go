// Package conditions checks that docs/conditions.md, the operator's status code and the tools that
// read the status agree: every reason is documented once, the operator really produces it, and the
// verdict the table promises is the one sigs.k8s.io/cli-utils' kstatus (what Flux and Helm 4 use)
// computes from a WebApp carrying it.
package conditions

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/api/v1beta1"
	"github.com/webapp-operator/webapp-operator/internal/resources"
	"github.com/webapp-operator/webapp-operator/internal/served"
	webappstatus "github.com/webapp-operator/webapp-operator/internal/status"
	"github.com/webapp-operator/webapp-operator/test/framework"
)

// row is one line of the reasons table in docs/conditions.md.
type row struct {
	reason, ready, reconciling, stalled, kstatus string
}

func readTable(t *testing.T) map[string]row {
	t.Helper()
	framework.KeyCacheOnSources() // docs/ is outside the test module
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "conditions.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]row{}
	for _, line := range strings.Split(string(data), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 8 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		for i := range cells {
			cells[i] = strings.Trim(strings.TrimSpace(cells[i]), "`")
		}
		r := row{reason: cells[1], ready: cells[2], reconciling: cells[3], stalled: cells[4], kstatus: cells[5]}
		if _, dup := rows[r.reason]; dup {
			t.Errorf("docs/conditions.md lists %s twice", r.reason)
		}
		rows[r.reason] = r
	}
	return rows
}

func newApp() *webappv1.WebApp {
	return &webappv1.WebApp{
		TypeMeta:   metav1.TypeMeta{APIVersion: webappv1.GroupVersion.String(), Kind: "WebApp"},
		ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "ns", Generation: 3},
		Spec:       webappv1.WebAppSpec{Image: "img", Replicas: ptr.To[int32](2)},
	}
}

// deployment is the app's Deployment at generation 2 with the given status.
func deployment(replicas int32, observed int64, updated, available int32,
	conds ...appsv1.DeploymentCondition) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Generation: 2},
		Spec:       appsv1.DeploymentSpec{Replicas: ptr.To(replicas)},
		Status: appsv1.DeploymentStatus{ObservedGeneration: observed, Replicas: updated, UpdatedReplicas: updated,
			ReadyReplicas: available, AvailableReplicas: available, Conditions: conds},
	}
}

// hub is app in the form the operator reads it (served.ToHub).
func hub(app *webappv1.WebApp) *v1beta1.WebApp {
	h, err := served.ToHub(app)
	if err != nil {
		panic(err) // a fixture of this file that does not convert
	}
	return h
}

// observe is what the reconciler reports with our Deployment d and a Service.
func observe(app *webappv1.WebApp, d *appsv1.Deployment) webappstatus.Observation {
	return webappstatus.Observation{Deployment: d, Children: []webappstatus.Health{
		resources.Deployment.Health(hub(app), d), resources.Service.Health(hub(app), &corev1.Service{})}}
}

// observations make the operator report each reason.
func observations(app *webappv1.WebApp) map[string]webappstatus.Observation {
	cond := func(t appsv1.DeploymentConditionType, s corev1.ConditionStatus, reason string) appsv1.DeploymentCondition {
		return appsv1.DeploymentCondition{Type: t, Status: s, Reason: reason, Message: reason}
	}
	routed := app.DeepCopy()
	routed.Spec.Route = &webappv1.Route{Hostnames: []string{"shop.example.com"},
		ParentRefs: []webappv1.RouteParentRef{{Name: "public"}}}
	route := &unstructured.Unstructured{}
	route.SetGroupVersionKind(resources.HTTPRouteGVK)
	podFailing := observe(app, deployment(2, 2, 1, 1))
	podFailing.PodIssue = &webappstatus.PodIssue{Reason: webappstatus.ReasonPodFailing,
		Message: "pod shop-1: ImagePullBackOff: Back-off pulling image"}
	runsAsRoot := observe(app, deployment(2, 2, 2, 0))
	runsAsRoot.PodIssue = &webappstatus.PodIssue{Reason: webappstatus.ReasonImageRunsAsRoot,
		Message: "the image runs as root (pod shop-1: CreateContainerConfigError: ...)"}
	problem := func(reason, message string) webappstatus.Observation {
		return webappstatus.Observation{Problem: webappstatus.NewProblem(reason, "%s", message)}
	}
	wasReady := app.DeepCopy()
	wasReady.Status.Conditions = []metav1.Condition{{Type: webappv1.ConditionReady, Status: metav1.ConditionTrue,
		Reason: webappstatus.ReasonReady}}
	paused := deployment(2, 2, 0, 2)
	paused.Spec.Paused = true
	rolledBack := func(d *appsv1.Deployment) webappstatus.Observation {
		obs := observe(app, d)
		obs.RolledBack = &v1beta1.RollbackStatus{Generation: app.Generation, Image: "broken",
			Reason: webappstatus.ReasonProgressDeadlineExceeded, Message: "no progress", To: v1beta1.Revision{Revision: 1}}
		return obs
	}
	return map[string]webappstatus.Observation{
		webappstatus.ReasonReady:        observe(app, deployment(2, 2, 2, 2)),
		webappstatus.ReasonScaledToZero: observe(app, deployment(0, 2, 0, 0)),
		webappstatus.ReasonPaused:       observe(app, paused),
		webappstatus.ReasonRollingBack:  rolledBack(deployment(2, 2, 1, 1)),
		webappstatus.ReasonRolledBack:   rolledBack(deployment(2, 2, 2, 2)),
		webappstatus.ReasonCreating: {Children: []webappstatus.Health{
			webappstatus.Absent("Deployment"), webappstatus.Absent("Service")}},
		webappstatus.ReasonRolloutInProgress:   observe(app, deployment(2, 1, 2, 2)),
		webappstatus.ReasonReplicasUnavailable: observe(app, deployment(2, 2, 2, 1)),
		webappstatus.ReasonAddressPending: {Children: append(observe(app, deployment(2, 2, 2, 2)).Children,
			resources.Ingress.Health(hub(app), &networkingv1.Ingress{}))},
		webappstatus.ReasonRoutePending: {Children: append(observe(app, deployment(2, 2, 2, 2)).Children,
			resources.HTTPRoute.Health(hub(routed), route))},
		webappstatus.ReasonPodFailing:      podFailing,
		webappstatus.ReasonScaling:         observe(wasReady, deployment(2, 2, 2, 1)),
		webappstatus.ReasonImageRunsAsRoot: runsAsRoot,
		webappstatus.ReasonInvalidImage: problem(webappstatus.ReasonInvalidImage,
			`spec.container.image: image "NGINX:Latest" is not a valid image reference`),
		webappstatus.ReasonReconcileError: {
			Problem: webappstatus.ReconcileError(errors.New("etcdserver: request timed out"))},
		webappstatus.ReasonProgressDeadlineExceeded: observe(app, deployment(2, 2, 1, 1,
			cond(appsv1.DeploymentProgressing, corev1.ConditionFalse, "ProgressDeadlineExceeded"))),
		webappstatus.ReasonReplicaFailure: observe(app, deployment(2, 2, 0, 0,
			cond(appsv1.DeploymentReplicaFailure, corev1.ConditionTrue, "FailedCreate"))),
		webappstatus.ReasonNameConflict: problem(webappstatus.ReasonNameConflict, "a Deployment named shop exists"),
		webappstatus.ReasonConfigMissing: problem(webappstatus.ReasonConfigMissing,
			`ConfigMap "x" referenced by env FOO does not exist`),
		webappstatus.ReasonConfigWatchForbidden: problem(webappstatus.ReasonConfigWatchForbidden,
			"the pods read a Secret, and the operator may not get, list and watch Secrets"),
		webappstatus.ReasonInvalidSpec:          problem(webappstatus.ReasonInvalidSpec, "spec.container.resources: invalid"),
		webappstatus.ReasonApplyDenied:          problem(webappstatus.ReasonApplyDenied, "exceeded quota"),
		webappstatus.ReasonRouteAPIMissing:      {Problem: resources.HTTPRoute.MissingAPI()},
		webappstatus.ReasonMonitoringAPIMissing: {Problem: resources.ServiceMonitor.MissingAPI()},
	}
}

// withStatus returns app, as the API server would serve it, with the status the operator computes
// from obs.
func withStatus(t *testing.T, obs webappstatus.Observation) (*webappv1.WebApp, *unstructured.Unstructured) {
	t.Helper()
	app := newApp()
	computed := hub(app)
	computed.Status = webappstatus.Compute(computed, obs, metav1.NewTime(time.Unix(0, 0)))
	back := &webappv1.WebApp{} // the same status in app's version
	if err := back.ConvertFrom(computed); err != nil {
		t.Fatal(err)
	}
	app.Status = back.Status
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(app)
	if err != nil {
		t.Fatal(err)
	}
	return app, &unstructured.Unstructured{Object: u}
}

func TestEveryReasonIsDocumentedOnce(t *testing.T) {
	rows := readTable(t)
	for _, r := range webappstatus.ReadyReasons {
		if _, ok := rows[r]; !ok {
			t.Errorf("reason %s is not in the table of docs/conditions.md", r)
		}
	}
	for r := range rows {
		if !slices.Contains(webappstatus.ReadyReasons, r) {
			t.Errorf("docs/conditions.md documents %s, which the operator never reports", r)
		}
	}
	framework.KeyCacheOnSources()
	data, _ := os.ReadFile(filepath.Join("..", "..", "docs", "conditions.md"))
	for _, r := range webappstatus.AvailableReasons {
		if !strings.Contains(string(data), "`"+r+"`") {
			t.Errorf("Available reason %s is not documented", r)
		}
	}
}

func TestTheTableIsWhatTheOperatorAndKstatusSay(t *testing.T) {
	rows := readTable(t)
	obs := observations(newApp())
	for _, reason := range webappstatus.ReadyReasons {
		t.Run(reason, func(t *testing.T) {
			o, ok := obs[reason]
			if !ok {
				t.Fatalf("no observation makes the operator report %s: add one", reason)
			}
			app, u := withStatus(t, o)
			want := rows[reason]
			for _, c := range []struct{ typ, want string }{
				{webappv1.ConditionReady, want.ready}, {webappv1.ConditionReconciling, want.reconciling},
				{webappv1.ConditionStalled, want.stalled},
			} {
				got := meta.FindStatusCondition(app.Status.Conditions, c.typ)
				if got == nil || got.Reason != reason || string(got.Status) != c.want {
					t.Errorf("%s = %+v, the table says %s with reason %s", c.typ, got, c.want, reason)
				}
			}
			res, err := status.Compute(u)
			if err != nil {
				t.Fatal(err)
			}
			if res.Status.String() != want.kstatus {
				t.Errorf("kstatus says %s (%s), the table says %s", res.Status, res.Message, want.kstatus)
			}
		})
	}
}

// A status written for an older generation must read as InProgress whatever its conditions say:
// that is what observedGeneration is for.
func TestKstatusWaitsForTheCurrentGeneration(t *testing.T) {
	app, u := withStatus(t, observations(newApp())[webappstatus.ReasonReady])
	u.SetGeneration(app.Generation + 1)
	res, err := status.Compute(u)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != status.InProgressStatus {
		t.Errorf("a Ready status of an older generation reads %s, want InProgress", res.Status)
	}

}

// The Autoscaling condition has a table of its own (of four columns, not read as Ready reasons):
// every reason in it, documented once, and an app whose autoscaler cannot scale is still Current.
func TestAutoscalingReasonsAreDocumentedAndNeverFailTheApp(t *testing.T) {
	framework.KeyCacheOnSources() // docs/ is outside the test module
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "conditions.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range webappstatus.AutoscalingReasons {
		if n := strings.Count(string(data), "| `"+r+"` |"); n != 1 {
			t.Errorf("Autoscaling reason %s is in %d rows of docs/conditions.md, want 1", r, n)
		}
	}
	app := newApp()
	app.Spec.Autoscaling = &webappv1.Autoscaling{MaxReplicas: 4}
	obs := observe(app, deployment(2, 2, 2, 2))
	noMetrics := &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Generation: 1},
		Status: autoscalingv2.HorizontalPodAutoscalerStatus{ObservedGeneration: ptr.To[int64](1),
			Conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{
				{Type: autoscalingv2.AbleToScale, Status: corev1.ConditionTrue, Reason: "SucceededGetScale"},
				{Type: autoscalingv2.ScalingActive, Status: corev1.ConditionFalse, Reason: "FailedGetResourceMetric",
					Message: "unable to get metrics for resource cpu"},
			}},
	}
	obs.Children = append(obs.Children, resources.HorizontalPodAutoscaler.Health(hub(app), noMetrics))
	got, u := withStatus(t, obs)
	if c := meta.FindStatusCondition(got.Status.Conditions, webappv1.ConditionAutoscaling); c == nil ||
		c.Status != metav1.ConditionFalse || c.Reason != webappstatus.ReasonAutoscalingInactive {
		t.Fatalf("Autoscaling = %+v, want False %s", c, webappstatus.ReasonAutoscalingInactive)
	}
	res, err := status.Compute(u)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != status.CurrentStatus {
		t.Errorf("a serving app whose autoscaler has no metrics reads %s (%s), want Current", res.Status, res.Message)
	}
}
