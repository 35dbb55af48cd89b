package status

import (
	"fmt"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/webapp-operator/webapp-operator/api/v1beta1"
)

// The rollback policy (spec.rollout.onFailure: Rollback) in pure functions: when a rollout counts as
// failed, what it goes back to, and how a WebApp that went back reads (docs/design.md, "Rollback").

// DefaultFailureSeconds is spec.rollout.failureSeconds' default.
const DefaultFailureSeconds = 120

// RevisionAnnotation is where the Deployment controller numbers a Deployment's and its ReplicaSets'
// pod templates; a ReplicaSet rolled back to gets a new number, and keeps its earlier ones in
// RevisionHistoryAnnotation.
const (
	RevisionAnnotation        = "deployment.kubernetes.io/revision"
	RevisionHistoryAnnotation = "deployment.kubernetes.io/revision-history"
)

// Failure is a rollout that counts as failed: why, and what to go back to.
type Failure struct {
	Reason, Message string
	To              v1beta1.Revision
}

// RolloutFailure decides, from the status a pass computed (next) and the live Deployment, whether
// app's rollout has failed and should be rolled back. It returns the failure, or how long to wait
// before asking again (0: nothing to wait for). A rollout has failed when the Deployment's progress
// deadline passed, when its pods can never start (ImageRunsAsRoot, InvalidImage), or when they have
// kept failing (PodFailing) for failureSeconds since the WebApp stopped being Ready. Only a WebApp that asks for it, is not rolled back already and has a
// Ready revision other than the one the Deployment runs goes back.
func RolloutFailure(app *v1beta1.WebApp, next v1beta1.WebAppStatus, d *appsv1.Deployment,
	now metav1.Time) (*Failure, time.Duration) {
	r := &app.Spec.Rollout
	if r.OnFailure != v1beta1.RolloutFailureRollback || next.RolledBack != nil || d == nil || r.Paused {
		return nil, 0
	}
	to := rollbackTarget(next.Revisions, deploymentRevision(d))
	if to == nil {
		return nil, 0
	}
	ready := meta.FindStatusCondition(next.Conditions, v1beta1.ConditionReady)
	if ready == nil || ready.Status == metav1.ConditionTrue {
		return nil, 0
	}
	switch ready.Reason {
	case ReasonProgressDeadlineExceeded, ReasonImageRunsAsRoot, ReasonInvalidImage:
		// no wait cures these: the new template's pods can never start
		return &Failure{Reason: ready.Reason, Message: ready.Message, To: *to}, 0
	case ReasonPodFailing:
		limit := time.Duration(ptr.Deref(r.FailureSeconds, DefaultFailureSeconds)) * time.Second
		if left := limit - now.Sub(ready.LastTransitionTime.Time); left > 0 {
			return nil, left
		}
		return &Failure{Reason: ready.Reason, Message: fmt.Sprintf("not Ready for %s while pods fail: %s",
			limit, ready.Message), To: *to}, 0
	}
	return nil, 0
}

// rollbackTarget is the newest Ready revision other than the running one.
func rollbackTarget(revisions []v1beta1.Revision, running int64) *v1beta1.Revision {
	for i := range revisions {
		if revisions[i].Revision != running {
			return &revisions[i]
		}
	}
	return nil
}

// deploymentRevision is the revision of the pod template the Deployment controller rolls out (0
// before it numbered one).
func deploymentRevision(d *appsv1.Deployment) int64 {
	n, _ := strconv.ParseInt(d.Annotations[RevisionAnnotation], 10, 64)
	return n
}

// recordRevision adds the Deployment's revision to revisions when the WebApp is Ready on it (v)
// for the first time, newest first, keeping MaxRevisions. Rolled back, the revision running is an
// earlier one under a new number, not the spec's: it is not recorded.
func recordRevision(revisions []v1beta1.Revision, app *v1beta1.WebApp, d *appsv1.Deployment, v verdict,
	rolledBack bool, now metav1.Time) []v1beta1.Revision {
	if d == nil || rolledBack || v.ready != metav1.ConditionTrue || (v.reason != ReasonReady && v.reason != ReasonScaledToZero) {
		return revisions
	}
	rev := deploymentRevision(d)
	if rev == 0 || len(revisions) > 0 && revisions[0].Revision == rev {
		return revisions
	}
	image := ""
	for _, c := range d.Spec.Template.Spec.Containers {
		if c.Name == "app" {
			image = c.Image
		}
	}
	out := append([]v1beta1.Revision{{Revision: rev, Generation: app.Generation, Image: image,
		ConfigRevision: d.Spec.Template.Annotations[v1beta1.ConfigRevisionAnnotation], ReadyAt: now}}, revisions...)
	if len(out) > v1beta1.MaxRevisions {
		out = out[:v1beta1.MaxRevisions]
	}
	return out
}

// rolledBackVerdict is how a rolled-back WebApp reads once its children are fine (workload, the
// Deployment's Health): Ready on the old revision but Stalled, since its spec is not what runs,
// or rolling back while the old revision's pods come back.
func rolledBackVerdict(rb *v1beta1.RollbackStatus, workload Health) verdict {
	msg := fmt.Sprintf("the rollout of generation %d (image %s) failed (%s: %s); revision %d (image %s), Ready "+
		"since %s, runs again; change the spec to roll out again", rb.Generation, rb.Image, rb.Reason, rb.Message,
		rb.To.Revision, rb.To.Image, rb.To.ReadyAt.UTC().Format(time.RFC3339))
	if !workload.Ready {
		return progressing(ReasonRollingBack, msg+"; "+workload.Message)
	}
	return verdict{ready: metav1.ConditionTrue, reason: ReasonRolledBack, message: msg, stalled: true}
}
