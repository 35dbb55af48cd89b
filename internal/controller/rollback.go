package controller

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/webapp-operator/webapp-operator/api/v1beta1"
	"github.com/webapp-operator/webapp-operator/internal/resources"
	"github.com/webapp-operator/webapp-operator/internal/status"
)

// Automatic rollback (spec.rollout.onFailure: Rollback; docs/design.md, "Rollback"): status.RolloutFailure
// decides, this file reads the ReplicaSet of the revision to go back to, and resources.RollBack puts
// its template in the Deployment the pass applies.

// The old pod templates live in the Deployment's ReplicaSets, as for `kubectl rollout undo`. They
// are listed straight from the API server, only when a rollout has failed: caching every
// ReplicaSet of the cluster for that would cost memory on every pass of every WebApp.
// +kubebuilder:rbac:groups=apps,resources=replicasets,verbs=list

// rollBackIfFailed decides whether p's rollout failed (status.RolloutFailure) and, if so, makes d,
// the Deployment the pass applies, go back to the revision the failure names. A rollout is judged
// only while the live Deployment is as decided: a pass that applies a new template starts a new
// rollout instead. When the ReplicaSet of that revision is gone (the Deployment's
// revisionHistoryLimit), nothing changes and the WebApp reports the failure as it is.
func (r *WebAppReconciler) rollBackIfFailed(ctx context.Context, p *pass, d *appsv1ac.DeploymentApplyConfiguration) error {
	app, live := p.app, p.deployment
	if live == nil || app.Spec.Rollout.OnFailure != v1beta1.RolloutFailureRollback {
		return nil
	}
	now := status.Compute(app, status.Observation{Children: []status.Health{resources.Deployment.Health(app, live)},
		Deployment: live, PodIssue: p.podIssue, RolledBack: resources.RolledBackFor(app, live)}, p.now)
	failure, recheck := status.RolloutFailure(app, now, live, p.now)
	p.recheck = recheck
	if failure == nil {
		return nil
	}
	if !resources.Deployment.UpToDate(live, d) {
		return nil
	}
	list := &appsv1.ReplicaSetList{}
	if err := r.APIReader.List(ctx, list, client.InNamespace(app.Namespace),
		client.MatchingLabels(resources.SelectorLabels(app))); err != nil {
		return fmt.Errorf("listing the ReplicaSets of Deployment %s: %w", app.Name, err)
	}
	rs := replicaSetOfRevision(list.Items, live, failure.To.Revision)
	if rs == nil {
		logf.FromContext(ctx).Info("Cannot roll back: the ReplicaSet of the revision is gone",
			"revision", failure.To.Revision, "reason", failure.Reason)
		return nil
	}
	rollback := v1beta1.RollbackStatus{Generation: app.Generation, Image: app.Spec.Container.Image, Reason: failure.Reason,
		Message: failure.Message, To: failure.To, At: p.now}
	if err := resources.RollBack(d, p.templateSpec, &rs.Spec.Template, rollback); err != nil {
		return err
	}
	p.template, p.rolledBack = resources.TemplateRolledBack, &rollback
	logf.FromContext(ctx).Info("Rolling back", "revision", failure.To.Revision, "image", failure.To.Image,
		"reason", failure.Reason)
	return nil
}

// replicaSetOfRevision is d's ReplicaSet that ran revision: its revision now, or one of its
// earlier ones (a ReplicaSet rolled back to is renumbered).
func replicaSetOfRevision(sets []appsv1.ReplicaSet, d *appsv1.Deployment, revision int64) *appsv1.ReplicaSet {
	want := strconv.FormatInt(revision, 10)
	for i := range sets {
		rs := &sets[i]
		if !metav1.IsControlledBy(rs, d) {
			continue
		}
		if rs.Annotations[status.RevisionAnnotation] == want ||
			slices.Contains(strings.Split(rs.Annotations[status.RevisionHistoryAnnotation], ","), want) {
			return rs
		}
	}
	return nil
}
