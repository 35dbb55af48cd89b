package metrics

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/webapp-operator/webapp-operator/api/v1beta1"
)

var t0 = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

func cond(typ string, st metav1.ConditionStatus, reason string, at time.Time) metav1.Condition {
	return metav1.Condition{Type: typ, Status: st, Reason: reason, LastTransitionTime: metav1.NewTime(at)}
}

func ready(st metav1.ConditionStatus, reason string, at time.Time) v1beta1.WebAppStatus {
	return v1beta1.WebAppStatus{Conditions: []metav1.Condition{cond(v1beta1.ConditionReady, st, reason, at)}}
}

func TestRolloutTime(t *testing.T) {
	for _, tc := range []struct {
		name          string
		before, after v1beta1.WebAppStatus
		want          time.Duration
		ok            bool
	}{
		{"False to True: the time it stayed False", ready("False", "RolloutInProgress", t0),
			ready("True", "Ready", t0.Add(90*time.Second)), 90 * time.Second, true},
		{"still False", ready("False", "RolloutInProgress", t0), ready("False", "PodFailing", t0), 0, false},
		{"still True", ready("True", "Ready", t0), ready("True", "Ready", t0), 0, false},
		{"True to False starts a rollout, ends none", ready("True", "Ready", t0),
			ready("False", "RolloutInProgress", t0.Add(time.Minute)), 0, false},
		{"a first status that is Ready: since the creation", v1beta1.WebAppStatus{},
			ready("True", "Ready", t0.Add(time.Minute)), 70 * time.Second, true},
		{"a first status that is not Ready", v1beta1.WebAppStatus{}, ready("False", "Creating", t0), 0, false},
		{"Unknown to True counts as not Ready", ready("Unknown", "Creating", t0),
			ready("True", "ScaledToZero", t0.Add(5*time.Second)), 5 * time.Second, true},
		{"a clock that went back is no negative duration", ready("False", "Creating", t0),
			ready("True", "Ready", t0.Add(-time.Second)), 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := RolloutTime(t0.Add(-10*time.Second), tc.before, tc.after)
			if got != tc.want || ok != tc.ok {
				t.Errorf("RolloutTime = %v, %v; want %v, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

// fakeLister lists the given WebApps (written unstructured, as the API server sends them), or fails.
type fakeLister struct {
	items []unstructured.Unstructured
	err   error
}

func (f *fakeLister) ListWebApps() ([]*v1beta1.WebApp, error) {
	if f.err != nil {
		return nil, f.err
	}
	out := make([]*v1beta1.WebApp, len(f.items))
	for i := range f.items {
		out[i] = &v1beta1.WebApp{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(f.items[i].Object, out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func webApp(ns, name, uid string, spec map[string]any, status map[string]any) unstructured.Unstructured {
	u := unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	if status != nil {
		u.Object["status"] = status
	}
	u.SetGroupVersionKind(v1beta1.GroupVersion.WithKind("WebApp"))
	u.SetNamespace(ns)
	u.SetName(name)
	u.SetUID(types.UID(uid))
	return u
}

func conditions(c ...[3]string) []any {
	out := make([]any, 0, len(c))
	for _, x := range c {
		out = append(out, map[string]any{"type": x[0], "status": x[1], "reason": x[2], "message": "m",
			"lastTransitionTime": "2026-12-01T10:00:00Z"})
	}
	return out
}

func TestCollector(t *testing.T) {
	readyApp := webApp("shop", "web", "u1", map[string]any{"image": "nginx:1", "replicas": int64(3)}, map[string]any{
		"readyReplicas": int64(3), "availableReplicas": int64(2),
		"conditions": conditions([3]string{"Ready", "True", "Ready"}, [3]string{"Stalled", "False", "Ready"}),
	})
	stalled := func(ns, name, uid, reason string) unstructured.Unstructured {
		return webApp(ns, name, uid, map[string]any{"replicas": int64(1)}, map[string]any{
			"conditions": conditions([3]string{"Ready", "False", reason}, [3]string{"Stalled", "True", reason}),
		})
	}
	all := []string{ConditionName, SpecReplicasName, ReadyReplicasName, AvailableReplicasName, LastSuccessName,
		StalledName}
	for _, tc := range []struct {
		name  string
		items []unstructured.Unstructured
		last  map[types.UID]time.Time
		want  string
	}{
		{name: "no WebApps, no series", want: ""},
		{name: "a Ready WebApp: its conditions, replicas and last success; no message, no image",
			items: []unstructured.Unstructured{readyApp}, last: map[types.UID]time.Time{"u1": t0},
			want: `
# HELP webapp_condition The WebApp's status conditions: 1 for the current status and reason of each condition type.
# TYPE webapp_condition gauge
webapp_condition{name="web",namespace="shop",reason="Ready",status="False",type="Stalled"} 1
webapp_condition{name="web",namespace="shop",reason="Ready",status="True",type="Ready"} 1
# HELP webapp_last_successful_reconcile_timestamp_seconds When this operator process last finished a pass over the WebApp without error (Unix time); absent until the first such pass.
# TYPE webapp_last_successful_reconcile_timestamp_seconds gauge
webapp_last_successful_reconcile_timestamp_seconds{name="web",namespace="shop"} 1.7961192e+09
# HELP webapp_spec_replicas The number of replicas the WebApp asks for (spec.replicas).
# TYPE webapp_spec_replicas gauge
webapp_spec_replicas{name="web",namespace="shop"} 3
# HELP webapp_status_replicas_available The number of the WebApp's pods available for at least minReadySeconds (status.availableReplicas).
# TYPE webapp_status_replicas_available gauge
webapp_status_replicas_available{name="web",namespace="shop"} 2
# HELP webapp_status_replicas_ready The number of the WebApp's pods that pass their readiness probe (status.readyReplicas).
# TYPE webapp_status_replicas_ready gauge
webapp_status_replicas_ready{name="web",namespace="shop"} 3
`},
		{name: "stalled WebApps are counted by reason; the pass time of another UID is not theirs",
			items: []unstructured.Unstructured{stalled("a", "x", "u2", "NameConflict"), stalled("b", "x", "u3", "NameConflict"),
				stalled("a", "y", "u4", "InvalidSpec")},
			last: map[types.UID]time.Time{"u1": t0},
			want: `
# HELP webapp_condition The WebApp's status conditions: 1 for the current status and reason of each condition type.
# TYPE webapp_condition gauge
webapp_condition{name="x",namespace="a",reason="NameConflict",status="False",type="Ready"} 1
webapp_condition{name="x",namespace="a",reason="NameConflict",status="True",type="Stalled"} 1
webapp_condition{name="x",namespace="b",reason="NameConflict",status="False",type="Ready"} 1
webapp_condition{name="x",namespace="b",reason="NameConflict",status="True",type="Stalled"} 1
webapp_condition{name="y",namespace="a",reason="InvalidSpec",status="False",type="Ready"} 1
webapp_condition{name="y",namespace="a",reason="InvalidSpec",status="True",type="Stalled"} 1
# HELP webapp_spec_replicas The number of replicas the WebApp asks for (spec.replicas).
# TYPE webapp_spec_replicas gauge
webapp_spec_replicas{name="x",namespace="a"} 1
webapp_spec_replicas{name="x",namespace="b"} 1
webapp_spec_replicas{name="y",namespace="a"} 1
# HELP webapp_stalled The number of WebApps whose Stalled condition is True, by reason: problems only a change can fix.
# TYPE webapp_stalled gauge
webapp_stalled{reason="InvalidSpec"} 1
webapp_stalled{reason="NameConflict"} 2
# HELP webapp_status_replicas_available The number of the WebApp's pods available for at least minReadySeconds (status.availableReplicas).
# TYPE webapp_status_replicas_available gauge
webapp_status_replicas_available{name="x",namespace="a"} 0
webapp_status_replicas_available{name="x",namespace="b"} 0
webapp_status_replicas_available{name="y",namespace="a"} 0
# HELP webapp_status_replicas_ready The number of the WebApp's pods that pass their readiness probe (status.readyReplicas).
# TYPE webapp_status_replicas_ready gauge
webapp_status_replicas_ready{name="x",namespace="a"} 0
webapp_status_replicas_ready{name="x",namespace="b"} 0
webapp_status_replicas_ready{name="y",namespace="a"} 0
`},
		{name: "no status yet, replicas defaulted: gauges without conditions",
			items: []unstructured.Unstructured{webApp("a", "new", "u5", map[string]any{}, nil)},
			want: `
# HELP webapp_spec_replicas The number of replicas the WebApp asks for (spec.replicas).
# TYPE webapp_spec_replicas gauge
webapp_spec_replicas{name="new",namespace="a"} 1
# HELP webapp_status_replicas_available The number of the WebApp's pods available for at least minReadySeconds (status.availableReplicas).
# TYPE webapp_status_replicas_available gauge
webapp_status_replicas_available{name="new",namespace="a"} 0
# HELP webapp_status_replicas_ready The number of the WebApp's pods that pass their readiness probe (status.readyReplicas).
# TYPE webapp_status_replicas_ready gauge
webapp_status_replicas_ready{name="new",namespace="a"} 0
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCollector(&fakeLister{items: tc.items})
			for k, v := range tc.last {
				c.lastSuccess[k] = v
			}
			if err := testutil.CollectAndCompare(c, strings.NewReader(tc.want), all...); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestCollectorReportsAListError(t *testing.T) {
	c := NewCollector(&fakeLister{err: errors.New("cache not synced")})
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	if _, err := reg.Gather(); err == nil || !strings.Contains(err.Error(), "cache not synced") {
		t.Errorf("Gather error = %v, want the list error", err)
	}
}

func TestPassTimesOfDeletedWebAppsAreDropped(t *testing.T) {
	r := &fakeLister{items: []unstructured.Unstructured{webApp("a", "x", "u1", nil, nil), webApp("a", "y", "u2", nil, nil)}}
	c := NewCollector(r)
	c.now = func() time.Time { return t0 }
	c.ObservePass(withUID("u1"), v1beta1.WebAppStatus{}, v1beta1.WebAppStatus{}, nil)
	c.ObservePass(withUID("u2"), v1beta1.WebAppStatus{}, v1beta1.WebAppStatus{}, nil)
	if n := testutil.CollectAndCount(c, LastSuccessName); n != 2 {
		t.Fatalf("%d last-success series, want 2", n)
	}
	r.items = r.items[1:]
	if n := testutil.CollectAndCount(c, LastSuccessName); n != 1 {
		t.Errorf("%d last-success series once u1 is gone, want 1", n)
	}
	if _, ok := c.lastSuccess["u1"]; ok {
		t.Error("the pass time of the deleted WebApp is still kept")
	}
}

func rolloutCount(t *testing.T) uint64 {
	t.Helper()
	var m dto.Metric
	if err := RolloutDuration.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetHistogram().GetSampleCount()
}

func TestObservePass(t *testing.T) {
	rollout := [2]v1beta1.WebAppStatus{ready("False", "RolloutInProgress", t0), ready("True", "Ready", t0.Add(time.Minute))}
	for _, tc := range []struct {
		name        string
		status      [2]v1beta1.WebAppStatus
		err         error
		wantLast    bool
		wantRollout uint64
	}{
		{"a pass that ends a rollout", rollout, nil, true, 1},
		{"a pass that ends nothing", [2]v1beta1.WebAppStatus{rollout[1], rollout[1]}, nil, true, 0},
		{"a failed pass: no success, and its status may not be written", rollout, errors.New("conflict"), false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCollector(&fakeLister{})
			c.now = func() time.Time { return t0 }
			n := rolloutCount(t)
			c.ObservePass(withUID("u1"), tc.status[0], tc.status[1], tc.err)
			if _, ok := c.lastSuccess["u1"]; ok != tc.wantLast {
				t.Errorf("last success recorded: %v, want %v", ok, tc.wantLast)
			}
			if got := rolloutCount(t) - n; got != tc.wantRollout {
				t.Errorf("%d rollouts observed, want %d", got, tc.wantRollout)
			}
		})
	}
	var nilCollector *Collector
	nilCollector.ObservePass(withUID("u1"), rollout[0], rollout[1], nil) // no collector, no panic
}

func withUID(uid string) *metav1.ObjectMeta { return &metav1.ObjectMeta{UID: types.UID(uid)} }

func TestStartRegistersWhileLeadingAndToleratesASecondManager(t *testing.T) {
	reg := prometheus.NewRegistry()
	items := []unstructured.Unstructured{webApp("a", "x", "u1", nil, nil)}
	first, second := NewCollector(&fakeLister{items: items}), NewCollector(&fakeLister{items: items})
	first.registerer, second.registerer = reg, reg
	series := func() int {
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		return len(mfs)
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); !ok(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal(what)
			}
		}
	}
	ctx1, stop1 := context.WithCancel(context.Background())
	done1 := make(chan error)
	go func() { done1 <- first.Start(ctx1) }()
	waitFor("the collector never registered", func() bool { return series() > 0 })

	ctx2, stop2 := context.WithCancel(context.Background())
	done2 := make(chan error)
	go func() { done2 <- second.Start(ctx2) }()
	stop2()
	if err := <-done2; err != nil {
		t.Errorf("a second collector on the same registry: %v", err)
	}
	if series() == 0 {
		t.Error("the second collector's stop unregistered the first")
	}
	stop1()
	if err := <-done1; err != nil {
		t.Errorf("Start: %v", err)
	}
	if n := series(); n != 0 {
		t.Errorf("%d metric families left after the manager stopped, want none", n)
	}
}

// Only the leader reconciles; a standby that reported its cache too would double every series.
func TestOnlyTheLeaderReports(t *testing.T) {
	if !NewCollector(&fakeLister{}).NeedLeaderElection() {
		t.Error("the collector would report on every replica")
	}
}
