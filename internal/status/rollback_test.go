package status_test

import (
	"strconv"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/webapp-operator/webapp-operator/api/v1beta1"
	. "github.com/webapp-operator/webapp-operator/internal/status"
)

// running returns a Deployment rolling out revision rev, with app's image in its app container.
func running(rev string, image string) *appsv1.Deployment {
	d := deployment(2, 3, 3, 3)
	d.Annotations = map[string]string{"deployment.kubernetes.io/revision": rev}
	d.Spec.Template.Spec.Containers = []corev1.Container{{Name: "app", Image: image}}
	d.Spec.Template.Annotations = map[string]string{v1beta1.ConfigRevisionAnnotation: "c" + rev}
	return d
}

func notReady(reason string, since metav1.Time) v1beta1.WebAppStatus {
	return v1beta1.WebAppStatus{
		Revisions:  []v1beta1.Revision{{Revision: 2, Image: "v2"}, {Revision: 1, Image: "v1"}},
		Conditions: []metav1.Condition{{Type: v1beta1.ConditionReady, Status: metav1.ConditionFalse, Reason: reason, LastTransitionTime: since}},
	}
}

func TestRolloutFailure(t *testing.T) {
	auto := func(mutate ...func(*v1beta1.WebApp)) *v1beta1.WebApp {
		a := app()
		a.Spec.Rollout = v1beta1.Rollout{OnFailure: v1beta1.RolloutFailureRollback, FailureSeconds: ptr.To[int32](60)}
		for _, m := range mutate {
			m(a)
		}
		return a
	}
	now := metav1.NewTime(t0.Add(10 * time.Minute))
	cases := []struct {
		name     string
		app      *v1beta1.WebApp
		next     v1beta1.WebAppStatus
		d        *appsv1.Deployment
		wantTo   int64 // 0: no failure
		wantWait time.Duration
	}{
		{"progress deadline: back to the newest other revision", auto(), notReady(ReasonProgressDeadlineExceeded, now),
			running("3", "broken"), 2, 0},
		{"pods failing past failureSeconds", auto(), notReady(ReasonPodFailing, metav1.NewTime(now.Add(-61*time.Second))),
			running("3", "broken"), 2, 0},
		{"pods failing, not long enough yet: wait the rest", auto(), notReady(ReasonPodFailing,
			metav1.NewTime(now.Add(-20*time.Second))), running("3", "broken"), 0, 40 * time.Second},
		{"the running revision is the newest Ready one: the one before", auto(), notReady(ReasonProgressDeadlineExceeded, now),
			running("2", "v2"), 1, 0},
		{"still rolling out: no failure", auto(), notReady(ReasonRolloutInProgress, t0), running("3", "broken"), 0, 0},
		{"not asked for", app(), notReady(ReasonProgressDeadlineExceeded, now), running("3", "broken"), 0, 0},
		{"only reported", auto(func(a *v1beta1.WebApp) { a.Spec.Rollout.OnFailure = v1beta1.RolloutFailureReport }),
			notReady(ReasonProgressDeadlineExceeded, now), running("3", "broken"), 0, 0},
		{"paused", auto(func(a *v1beta1.WebApp) { a.Spec.Rollout.Paused = true }), notReady(ReasonProgressDeadlineExceeded, now),
			running("3", "broken"), 0, 0},
		{"no Ready revision to go back to", auto(), v1beta1.WebAppStatus{Conditions: notReady(ReasonProgressDeadlineExceeded,
			now).Conditions}, running("3", "broken"), 0, 0},
		{"rolled back already", auto(), func() v1beta1.WebAppStatus {
			s := notReady(ReasonProgressDeadlineExceeded, now)
			s.RolledBack = &v1beta1.RollbackStatus{Generation: 4}
			return s
		}(), running("3", "broken"), 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, wait := RolloutFailure(c.app, c.next, c.d, now)
			switch {
			case c.wantTo == 0 && f != nil:
				t.Fatalf("failure %+v, want none", f)
			case c.wantTo != 0 && (f == nil || f.To.Revision != c.wantTo):
				t.Fatalf("failure %+v, want one back to revision %d", f, c.wantTo)
			case wait != c.wantWait:
				t.Fatalf("wait %s, want %s", wait, c.wantWait)
			}
		})
	}
}

func TestComputeRecordsReadyRevisions(t *testing.T) {
	a := app()
	ready := Observation{Children: []Health{{Kind: "Deployment", Ready: true, Reason: ReasonReady}},
		Deployment: running("7", "v7")}
	st := Compute(a, ready, t1)
	if len(st.Revisions) != 1 || st.Revisions[0] != (v1beta1.Revision{Revision: 7, Generation: 4, Image: "v7",
		ConfigRevision: "c7", ReadyAt: t1}) {
		t.Fatalf("revisions %+v", st.Revisions)
	}
	a.Status = st
	if again := Compute(a, ready, metav1.NewTime(t1.Add(time.Hour))); again.Revisions[0].ReadyAt != t1 || len(again.Revisions) != 1 {
		t.Fatalf("a revision is recorded once, when first Ready: %+v", again.Revisions)
	}
	for i := 8; i < 20; i++ {
		a.Status.Revisions = Compute(a, Observation{Children: ready.Children,
			Deployment: running(strconv.Itoa(i), "v")}, t1).Revisions
	}
	if len(a.Status.Revisions) != v1beta1.MaxRevisions {
		t.Fatalf("%d revisions kept, want %d", len(a.Status.Revisions), v1beta1.MaxRevisions)
	}
	paused := Observation{Children: []Health{{Kind: "Deployment", Ready: true, Reason: ReasonPaused}}, Deployment: running("30", "new")}
	if st := Compute(app(), paused, t1); len(st.Revisions) != 0 {
		t.Fatalf("a paused Deployment with pods on an earlier template is not a Ready revision: %+v", st.Revisions)
	}
}

func TestComputeReportsARollback(t *testing.T) {
	a := app()
	rb := v1beta1.RollbackStatus{Generation: 4, Image: "broken", Reason: ReasonProgressDeadlineExceeded, Message: "no progress",
		To: v1beta1.Revision{Revision: 2, Image: "v2", ReadyAt: t0}}
	d := running("5", "v2")

	back := Compute(a, Observation{Children: []Health{{Kind: "Deployment", Ready: true, Reason: ReasonReady}}, Deployment: d,
		RolledBack: &rb}, t1)
	if back.RolledBack == nil || back.RolledBack.To.Revision != 2 {
		t.Fatalf("rolledBack %+v", back.RolledBack)
	}
	if len(back.Revisions) != 0 {
		t.Fatalf("the revision rolled back to is not recorded as a new one: %+v", back.Revisions)
	}
	expectCondition(t, back, v1beta1.ConditionReady, metav1.ConditionTrue, ReasonRolledBack)
	expectCondition(t, back, v1beta1.ConditionStalled, metav1.ConditionTrue, ReasonRolledBack)
	expectCondition(t, back, v1beta1.ConditionReconciling, metav1.ConditionFalse, ReasonRolledBack)

	going := Compute(a, Observation{Children: []Health{{Kind: "Deployment", Reason: ReasonRolloutInProgress, Message: "1 of 3"}},
		Deployment: d, RolledBack: &rb}, t1)
	expectCondition(t, going, v1beta1.ConditionReady, metav1.ConditionFalse, ReasonRollingBack)
	expectCondition(t, going, v1beta1.ConditionStalled, metav1.ConditionFalse, ReasonRollingBack)

	// what runs is not known to be the WebApp's (a same-name Deployment of someone else's)
	conflict := Compute(a, Observation{Problem: NewProblem(ReasonNameConflict, "in the way"), Deployment: d, RolledBack: &rb}, t1)
	if conflict.RolledBack != nil {
		t.Fatalf("a rollback reported without a Deployment of the WebApp's: %+v", conflict.RolledBack)
	}
}

func expectCondition(t *testing.T, st v1beta1.WebAppStatus, condType string, s metav1.ConditionStatus, reason string) {
	t.Helper()
	for _, c := range st.Conditions {
		if c.Type == condType {
			if c.Status != s || c.Reason != reason {
				t.Fatalf("%s is %s/%s, want %s/%s (%s)", condType, c.Status, c.Reason, s, reason, c.Message)
			}
			return
		}
	}
	t.Fatalf("no %s condition", condType)
}
