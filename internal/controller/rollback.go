package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/internal/resources"
	"github.com/webapp-operator/webapp-operator/internal/status"
)

// Automatic rollback (spec.rollout.autoRollback): status.RolloutFailure decides; this file reads
// the ReplicaSet of the revision to go back to and keeps the Deployment on it.

// The old pod templates live in the Deployment's ReplicaSets, as for `kubectl rollout undo`. They
// are listed straight from the API server, only when a rollout has failed: caching every
// ReplicaSet of the cluster for that would cost memory on every pass of every WebApp.
// +kubebuilder:rbac:groups=apps,resources=replicasets,verbs=list

// deploymentTemplate decides the pod template of app's rendered Deployment desired, against the
// live one: kept while a rollback holds (pinTemplate), kept when only the operator renders it
// otherwise (resources.TemplateFor: the upgrade policy), else as rendered; and stamps it with its
// inputs. It reports whether it kept a template the operator renders otherwise.
func (r *WebAppReconciler) deploymentTemplate(ctx context.Context, app *webappv1.WebApp,
	desired runtime.ApplyConfiguration, configRevision string) (bool, error) {
	inputs, err := resources.TemplateInputs(app, configRevision)
	if err != nil {
		return false, err
	}
	// absent, or not ours (ensure reports the NameConflict): a rollback gone with it is not made again
	live := r.liveDeployment(ctx, app)
	if live != nil {
		if pinned, err := pinTemplate(app, live, desired); err != nil || pinned {
			return false, err
		}
	}
	return resources.TemplateFor(desired, live, inputs)
}

// pinTemplate keeps a rolled-back WebApp's Deployment on the template it runs: desired, rendered
// from the spec whose rollout failed, gets the live Deployment's template (the fields our field
// manager owns), stamp and rollback record. Everything else is still rendered from the spec, and a
// pass that finds nothing else changed writes nothing. It reports whether live records a rollback
// for this generation of the WebApp.
func pinTemplate(app *webappv1.WebApp, live *appsv1.Deployment, desired runtime.ApplyConfiguration) (bool, error) {
	if status.RolledBackFor(app, live) == nil {
		return false, nil
	}
	owned, err := appsv1ac.ExtractDeployment(live, resources.FieldOwner)
	if err != nil {
		return false, err
	}
	if owned.Spec == nil || owned.Spec.Template == nil {
		return false, nil
	}
	err = resources.WithRollback(desired, owned.Spec.Template, live.Annotations[status.RollbackAnnotation],
		live.Annotations[resources.TemplateAnnotation])
	return err == nil, err
}

// rollBack applies app's Deployment with the template of the revision failure goes back to, read
// from the Deployment d's ReplicaSet of that revision. It returns the rollback to record, or nil
// when that ReplicaSet is gone (the Deployment's revisionHistoryLimit): then nothing changes and
// the WebApp reports the failure as it is.
func (r *WebAppReconciler) rollBack(ctx context.Context, app *webappv1.WebApp, d *appsv1.Deployment,
	failure *status.Failure, now metav1.Time) (*webappv1.RollbackStatus, error) {
	list := &appsv1.ReplicaSetList{}
	if err := r.APIReader.List(ctx, list, client.InNamespace(app.Namespace),
		client.MatchingLabels(resources.SelectorLabels(app))); err != nil {
		return nil, fmt.Errorf("listing the ReplicaSets of Deployment %s: %w", app.Name, err)
	}
	rs := replicaSetOfRevision(list.Items, d, failure.To.Revision)
	if rs == nil {
		logf.FromContext(ctx).Info("Cannot roll back: the ReplicaSet of the revision is gone",
			"revision", failure.To.Revision, "reason", failure.Reason)
		return nil, nil
	}
	template, err := resources.TemplateOf(&rs.Spec.Template)
	if err != nil {
		return nil, err
	}
	rollback := &webappv1.RollbackStatus{Generation: app.Generation, Image: app.Spec.Image, Reason: failure.Reason,
		Message: failure.Message, To: failure.To, At: now}
	record, err := json.Marshal(rollback)
	if err != nil {
		return nil, err
	}
	desired, err := resources.Deployment.Desired(app)
	if err != nil {
		return nil, err
	}
	if err := resources.WithRollback(desired, template, string(record), ""); err != nil {
		return nil, err
	}
	inputs, err := resources.TemplateInputs(app, rs.Spec.Template.Annotations[webappv1.ConfigRevisionAnnotation])
	if err != nil {
		return nil, err
	}
	if err := resources.StampTemplate(desired, inputs); err != nil {
		return nil, err
	}
	if err := r.Apply(ctx, desired, client.FieldOwner(resources.FieldOwner), client.ForceOwnership); err != nil {
		return nil, applyError(resources.Deployment, app, true, err)
	}
	logf.FromContext(ctx).Info("Rolled back", "revision", failure.To.Revision, "image", failure.To.Image,
		"reason", failure.Reason)
	return rollback, nil
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
