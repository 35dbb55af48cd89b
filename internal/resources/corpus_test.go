package resources_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/api/v1beta1"
	"github.com/webapp-operator/webapp-operator/internal/resources"
	"github.com/webapp-operator/webapp-operator/internal/served"
	"github.com/webapp-operator/webapp-operator/internal/status"
	"github.com/webapp-operator/webapp-operator/internal/testenv"
)

// The corpus: v1alpha1 WebApps as the API server admits them (the samples and generated objects;
// api/v1alpha1's TestWriteRenderCorpus wrote them), and what the renderer made of each when it read
// v1alpha1 (rendered.jsonl, recorded before it moved to the hub). The renderer now reads each as the
// operator does, converted to the hub (served.ToHub), and any change of its output for any of them
// fails TestRenderCorpus.
var (
	corpusDir    = filepath.Join("testdata", "corpus")
	updateCorpus = flag.Bool("update-corpus", false, "rewrite testdata/corpus/rendered.jsonl from the renderer")
)

// rendering is what the operator reads from the renderer for one WebApp.
type rendering struct {
	Name string `json:"name"`
	// Children: each kind's desired object (the Deployment as DesiredDeployment decides it with no
	// live one), null when the WebApp wants none, or the error.
	Children map[string]json.RawMessage `json:"children"`
	Errors   map[string]string          `json:"errors,omitempty"`
	// RolledBack: the Deployment's annotations (stamp, record) after a rollback to a ReplicaSet's
	// template (RollBack); the template is the ReplicaSet's.
	RolledBack          json.RawMessage       `json:"rolledBack"`
	Selector            string                `json:"selector"`
	URL                 string                `json:"url"`
	ExternalURL         string                `json:"externalURL"`
	RouteURL            string                `json:"routeURL"`
	ConfigRefs          []resources.ConfigRef `json:"configRefs"`
	RollsOnConfigChange bool                  `json:"rollsOnConfigChange"`
	Autoscaled          bool                  `json:"autoscaled"`
	MetricsPort         string                `json:"metricsPort"`
	MetricsExposed      string                `json:"metricsExposed"`
	// RolloutFailure: the rollback policy's verdict on a canned failing rollout.
	RolloutFailure *status.Failure `json:"rolloutFailure"`
	Recheck        time.Duration   `json:"recheck"`
}

// TestRenderCorpus renders every WebApp of the corpus and compares the result with what was recorded.
func TestRenderCorpus(t *testing.T) {
	apps := readCorpus(t)
	var got bytes.Buffer
	seen := map[string]int{}
	for _, alpha := range apps {
		app, err := served.ToHub(alpha)
		if err != nil {
			t.Fatal(err)
		}
		if _, carried := app.Annotations[webappv1.AlphaCarrierAnnotation]; carried {
			seen["carrier"]++
		}
		r := render(t, app)
		r.count(seen)
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		// the conversion's carrier is the WebApp's business, never its children's
		if bytes.Contains(b, []byte(webappv1.AlphaCarrierAnnotation)) {
			t.Errorf("%s: the carrier annotation leaks into what the renderer makes: %s", app.Name, b)
		}
		got.Write(append(b, '\n'))
	}
	// a corpus that never renders some kind of child, or never reaches the rollback, proves nothing of it
	for _, what := range append(kinds(), "configRefs", "metricsExposed", "rolloutFailure", "recheck", "carrier") {
		if seen[what] == 0 {
			t.Errorf("no WebApp of the corpus has a %s", what)
		}
	}
	golden := filepath.Join(corpusDir, "rendered.jsonl")
	if *updateCorpus {
		if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	wantLines, gotLines := bytes.Split(want, []byte("\n")), bytes.Split(got.Bytes(), []byte("\n"))
	if len(wantLines) != len(gotLines) {
		t.Fatalf("%d renderings, %d recorded", len(gotLines)-1, len(wantLines)-1)
	}
	failed := 0
	for i := range wantLines {
		if !bytes.Equal(wantLines[i], gotLines[i]) {
			failed++
			if failed <= 3 {
				t.Errorf("%s renders otherwise:\ngot  %s\nwant %s", apps[i].Name, gotLines[i], wantLines[i])
			}
		}
	}
	if failed > 0 {
		t.Errorf("%d of %d WebApps render otherwise than recorded", failed, len(apps))
	}
}

func kinds() []string {
	out := make([]string, 0, len(resources.All))
	for _, child := range resources.All {
		out = append(out, child.Kind())
	}
	return out
}

// count counts in seen what r has.
func (r *rendering) count(seen map[string]int) {
	for kind, c := range r.Children {
		if string(c) != "null" {
			seen[kind]++
		}
	}
	for what, has := range map[string]bool{"configRefs": len(r.ConfigRefs) > 0, "metricsExposed": r.MetricsExposed != "",
		"rolloutFailure": r.RolloutFailure != nil, "recheck": r.Recheck > 0} {
		if has {
			seen[what]++
		}
	}
}

func readCorpus(t *testing.T) []*webappv1.WebApp {
	t.Helper()
	apps, err := testenv.Corpus()
	if err != nil {
		t.Fatal(err)
	}
	return apps
}

func render(t *testing.T, app *v1beta1.WebApp) rendering {
	t.Helper()
	r := rendering{Name: app.Name, Children: map[string]json.RawMessage{}, Errors: map[string]string{}}
	spec, err := served.TemplateSpec(app)
	if err != nil {
		t.Fatal(err)
	}
	d, _, err := resources.DesiredDeployment(resources.DeploymentInputs{App: app, ConfigRevision: "0123456789abcdef",
		TemplateSpec: spec})
	r.child(t, resources.Deployment.Kind(), d, err)
	for _, child := range resources.Children {
		desired, err := child.Desired(app)
		r.child(t, child.Kind(), desired, err)
	}
	if d != nil {
		rollback := v1beta1.RollbackStatus{Generation: 1, Image: "broken", Reason: status.ReasonPodFailing, Message: "m",
			To: v1beta1.Revision{Revision: 1, Generation: 1, Image: "nginx"}}
		err := resources.RollBack(d, spec, replicaSetTemplate(), rollback)
		r.RolledBack = marshal(t, d.Annotations, err)
	}
	r.Selector, r.URL = resources.Selector(app), resources.URL(app)
	r.ExternalURL, r.RouteURL = resources.ExternalURL(app), resources.RouteURL(app)
	r.ConfigRefs, r.RollsOnConfigChange, r.Autoscaled = resources.ConfigRefs(app), resources.RollsOnConfigChange(app), resources.Autoscaled(app)
	port, exposed, err := resources.MetricsPort(app)
	r.MetricsPort = port
	if exposed != nil {
		r.MetricsExposed = exposed.Name
	}
	if err != nil {
		r.Errors["metricsPort"] = err.Error()
	}
	r.RolloutFailure, r.Recheck = failingRollout(app)
	return r
}

func (r *rendering) child(t *testing.T, kind string, desired any, err error) {
	if err != nil {
		r.Errors[kind] = err.Error()
		return
	}
	r.Children[kind] = marshal(t, desired, nil)
}

func marshal(t *testing.T, v any, err error) json.RawMessage {
	t.Helper()
	if err != nil {
		return json.RawMessage(`{"error":` + string(marshal(t, err.Error(), nil)) + `}`)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// replicaSetTemplate is an earlier revision's pod template, as a ReplicaSet keeps it.
func replicaSetTemplate() *corev1.PodTemplateSpec {
	return &corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{appsv1.DefaultDeploymentUniqueLabelKey: "abc123"},
			Annotations: map[string]string{"webapp-operator.io/config-revision": "fedcba9876543210"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx"}}},
	}
}

// failingRollout asks the rollback policy about a rollout whose pods have failed for 100 s, with an
// earlier Ready revision to go back to.
func failingRollout(app *v1beta1.WebApp) (*status.Failure, time.Duration) {
	now := metav1.NewTime(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC))
	next := v1beta1.WebAppStatus{
		Revisions: []v1beta1.Revision{{Revision: 1, Generation: 1, Image: "nginx"}},
		Conditions: []metav1.Condition{{Type: v1beta1.ConditionReady, Status: metav1.ConditionFalse, Reason: status.ReasonPodFailing,
			Message: "pods fail", LastTransitionTime: metav1.NewTime(now.Add(-100 * time.Second))}},
	}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{status.RevisionAnnotation: "2"}}}
	return status.RolloutFailure(app, next, d, now)
}
