/*
Copyright 2026 The webapp-operator Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Package controller wires the WebApp reconciler: it fetches the WebApp, applies the children that
// package resources describes, and writes the status that package status computes.
package controller

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/internal/resources"
	"github.com/webapp-operator/webapp-operator/internal/status"
)

// WebAppReconciler reconciles a WebApp object.
type WebAppReconciler struct {
	// Client reads from the manager's cache, which holds only children labelled as ours.
	client.Client
	// APIReader reads straight from the API server; it is used only when the cache has no child
	// of the expected name, to tell "absent" from "present but not ours".
	APIReader client.Reader
	Recorder  events.EventRecorder
	// Now is the clock for condition transition times; tests may replace it.
	Now func() metav1.Time
	// TerminalRecheck is how often a WebApp stalled on a terminal problem (NameConflict,
	// InvalidSpec, ApplyDenied) looks again, plus up to half as much jitter so that many stalled
	// WebApps do not recheck together. What fixes them is often outside the watches: a foreign object
	// carries no managed-by label, so its deletion is not seen; a freed nodePort, a relaxed admission
	// policy or a raised quota are not objects the operator watches at all.
	TerminalRecheck time.Duration
	// MaxConcurrentReconciles is how many WebApps are reconciled in parallel (0: one).
	MaxConcurrentReconciles int
	// Unserved names the kinds of child (Child.Kind) whose API the cluster did not serve when the
	// operator started: they are neither cached nor watched, and a WebApp that asks for one is
	// Stalled with the child's MissingAPI problem.
	Unserved map[string]bool
	// WebApps reads the WebApps from the cache (webapps.go); the Client never reads them.
	WebApps *WebApps
	// Metrics, when set, hears of every pass that wrote a status (package metrics): what the
	// cache alone cannot tell, when a pass last succeeded and how long a rollout took.
	Metrics PassObserver
	// Config says how the Secrets the pods read are fingerprinted (config.go).
	Config ConfigOptions

	// digests are those of the ConfigMaps and Secrets the WebApps reference (config.go).
	digests configDigests
}

// PassObserver is told, after a pass, the status the WebApp had, the one the pass computed, and the
// pass's error.
type PassObserver interface {
	ObservePass(app metav1.Object, before, after webappv1.WebAppStatus, err error)
}

// DefaultTerminalRecheck is the default of WebAppReconciler.TerminalRecheck.
const DefaultTerminalRecheck = 2 * time.Minute

// +kubebuilder:rbac:groups=apps.webapp-operator.io,resources=webapps,verbs=get;list;watch
// +kubebuilder:rbac:groups=apps.webapp-operator.io,resources=webapps/status,verbs=patch
// Setting blockOwnerDeletion on a child needs update on the owner's finalizers subresource where
// the OwnerReferencesPermissionEnforcement admission plugin is on (OpenShift, hardened clusters).
// +kubebuilder:rbac:groups=apps.webapp-operator.io,resources=webapps/finalizers,verbs=update
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile is one pass of fetch, observe, diff, act, report.
func (r *WebAppReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	cached, undecodable := r.WebApps.get(req.NamespacedName)
	switch {
	case undecodable != nil:
		if undecodable.GetDeletionTimestamp() != nil {
			return ctrl.Result{}, nil
		}
		_, decodeErr := decode(undecodable)
		return r.reportUndecodable(ctx, undecodable, decodeErr)
	case cached == nil || cached.DeletionTimestamp != nil:
		// Deleted: the garbage collector removes the children through their owner references.
		return ctrl.Result{}, nil
	}
	app := cached.DeepCopy()

	obs, written, err := r.converge(ctx, app)
	r.recordDriftCorrection(app, written)
	next := status.Compute(app, obs, r.now())
	var recheck time.Duration
	if err == nil {
		var failure *status.Failure
		if failure, recheck = status.RolloutFailure(app, next, obs.Deployment, r.now()); failure != nil {
			if obs.RolledBack, err = r.rollBack(ctx, app, obs.Deployment, failure, r.now()); obs.RolledBack != nil {
				next = status.Compute(app, obs, r.now())
			}
		}
	}
	if err == nil && obs.RolledBack == nil && awaitingDeploymentController(obs, written, r.now().Time) {
		// Written status would only say "waiting for the Deployment controller", and be rewritten a
		// moment later: its status update (which the Owns watch sees) brings a truer one. The old
		// status says which generation it is for, so nobody mistakes it for this one's. A rollback
		// is reported at once.
		return ctrl.Result{RequeueAfter: deploymentControllerGrace}, nil
	}
	r.recordReadyChange(app, next)
	before := app.Status
	if statusErr := r.writeStatus(ctx, app, next); statusErr != nil {
		err = errors.Join(err, statusErr)
	}
	if r.Metrics != nil {
		r.Metrics.ObservePass(app, before, next, err)
	}
	if err == nil && obs.Problem != nil && obs.Problem.Terminal() {
		return ctrl.Result{RequeueAfter: r.terminalRecheck()}, nil
	}
	if err == nil && recheck > 0 {
		// failing pods do not always change (an image that cannot be pulled): look again when the
		// rollout would count as failed
		return ctrl.Result{RequeueAfter: recheck}, nil
	}
	return ctrl.Result{}, err
}

// deploymentControllerGrace is how long a pass waits for the Deployment controller to observe the
// Deployment the operator just wrote before it reports that it has not. Until then the status stays
// as it was, so a Ready WebApp that is scaled reads as Scaling, not as a rollout, on a busy control
// plane too: the Deployment controller usually observes within milliseconds.
const deploymentControllerGrace = 5 * time.Second

// awaitingDeploymentController reports whether the operator wrote the Deployment in this pass (written)
// or less than deploymentControllerGrace ago, and the Deployment controller has not observed it yet.
// The object an apply returns carries no managed fields, so this pass's write is known from written.
func awaitingDeploymentController(obs status.Observation, written []string, now time.Time) bool {
	d := obs.Deployment
	if obs.Problem != nil || d == nil || d.Status.ObservedGeneration >= d.Generation {
		return false
	}
	if slices.Contains(written, resources.Deployment.Kind()) {
		return true
	}
	for _, mf := range d.ManagedFields {
		if mf.Manager == resources.FieldOwner && mf.Operation == metav1.ManagedFieldsOperationApply && mf.Time != nil {
			return now.Sub(mf.Time.Time) < deploymentControllerGrace
		}
	}
	return false
}

func (r *WebAppReconciler) terminalRecheck() time.Duration {
	d := r.TerminalRecheck
	if d <= 0 {
		d = DefaultTerminalRecheck
	}
	return d + rand.N(d/2+1)
}

// converge brings every child in line, in order, and reports what it saw. Terminal problems (a
// foreign object in the way, a rendered object the API server refuses) are reported in the
// Observation, not returned as an error, so they become Stalled and are not retried in a hot loop:
// the next change to the WebApp or to a child triggers a new pass. Transient errors are returned
// too, so that controller-runtime retries them with exponential backoff. A child is not applied
// while one before it is blocked: no half-made WebApp.
func (r *WebAppReconciler) converge(ctx context.Context, app *webappv1.WebApp) (status.Observation, []string, error) {
	obs := status.Observation{Selector: resources.Selector(app), URL: resources.URL(app), SecretRolloutsOff: r.secretRolloutsOff(app)}
	var written []string
	// Before any child: a pod template that reads a missing object would give pods that cannot start,
	// so nothing is applied, and the pods that run keep running (status still reports them).
	configRevision, err := r.configRevision(ctx, app)
	if err != nil {
		obs.Deployment = r.liveDeployment(ctx, app)
	}
	for _, child := range resources.All {
		if err != nil {
			break
		}
		var desired runtime.ApplyConfiguration
		if desired, err = child.Desired(app); err != nil {
			if problem := (*status.Problem)(nil); !errors.As(err, &problem) {
				err = status.NewProblem(status.ReasonInvalidSpec, "%s", err)
			}
			break
		}
		desired = resources.WithConfigRevision(desired, configRevision)
		if r.Unserved[child.Kind()] {
			// Nothing of the kind can exist, so there is nothing to prune either. The children before
			// it are applied: the app runs, inside the cluster, without its route.
			if desired != nil {
				if err = status.NewProblem(status.ReasonInvalidSpec, "the cluster does not serve the %s API", child.Kind()); child.MissingAPI() != nil {
					err = child.MissingAPI()
				}
				break
			}
			continue
		}
		if desired == nil {
			// An optional child the WebApp does not ask for: not part of its health, and deleted
			// if we made it.
			if err = r.prune(ctx, app, child); err != nil {
				break
			}
			continue
		}
		if child.Kind() == resources.Deployment.Kind() {
			if obs.TemplateHeld, err = r.deploymentTemplate(ctx, app, desired, configRevision); err != nil {
				break
			}
		}
		var live client.Object
		var wrote bool
		if live, wrote, err = r.ensure(ctx, app, child, desired); err != nil {
			break
		}
		if wrote {
			written = append(written, child.Kind())
		}
		if live == nil {
			obs.Children = append(obs.Children, status.Absent(child.Kind()))
			continue
		}
		obs.Children = append(obs.Children, child.Health(app, live))
		if d, ok := live.(*appsv1.Deployment); ok {
			obs.Deployment = d
		}
	}
	if err == nil {
		obs.PodIssue, err = r.podIssue(ctx, app)
	}
	var problem *status.Problem
	switch {
	case errors.As(err, &problem):
		obs.Problem = problem
	case err != nil:
		obs.Problem = status.ReconcileError(err)
		return obs, written, err
	}
	return obs, written, nil
}

// writeStatus patches the status subresource once, and only when it changed. A merge patch without
// a resourceVersion precondition cannot fail with a conflict; the status is ours alone and was
// computed from the freshest observation, so last-writer-wins is right here.
func (r *WebAppReconciler) writeStatus(ctx context.Context, app *webappv1.WebApp, next webappv1.WebAppStatus) error {
	if equality.Semantic.DeepEqual(app.Status, next) {
		return nil
	}
	before := app.DeepCopy()
	app.Status = next
	if err := r.Status().Patch(ctx, app, client.MergeFrom(before)); err != nil {
		return client.IgnoreNotFound(fmt.Errorf("patching status: %w", err))
	}
	return nil
}

// The operator's events tell the story of a WebApp without an event on every pass or for every
// child. recordReadyChange emits one when the Ready condition changes status or reason (Warning when
// the WebApp stalled or hit an error); its first value counts only when it is Ready or a failure.
// Moves between serving states (Ready, Scaling, ScaledToZero, Paused) emit none: an autoscaled app
// scales all day, and each scale would otherwise cost two events.
func (r *WebAppReconciler) recordReadyChange(app *webappv1.WebApp, next webappv1.WebAppStatus) {
	was := meta.FindStatusCondition(app.Status.Conditions, webappv1.ConditionReady)
	now := meta.FindStatusCondition(next.Conditions, webappv1.ConditionReady)
	if now == nil {
		return
	}
	failure := meta.IsStatusConditionTrue(next.Conditions, webappv1.ConditionStalled) ||
		now.Reason == status.ReasonReconcileError || now.Reason == status.ReasonRollingBack
	first := was == nil && (now.Status == metav1.ConditionTrue || failure)
	changed := was != nil && (was.Reason != now.Reason || was.Status != now.Status)
	serving := was != nil && servingReasons[was.Reason] && servingReasons[now.Reason]
	if !first && (!changed || serving) {
		return
	}
	eventType := corev1.EventTypeNormal
	if failure {
		eventType = corev1.EventTypeWarning
	}
	r.Recorder.Eventf(app, nil, eventType, now.Reason, "Reconcile", "%s", now.Message)
}

// recordDriftCorrection emits one event when the pass wrote children although the WebApp's spec did
// not change since its last status: someone else changed what the operator owns, and it put it back.
func (r *WebAppReconciler) recordDriftCorrection(app *webappv1.WebApp, written []string) {
	if len(written) == 0 || app.Status.ObservedGeneration == 0 || app.Status.ObservedGeneration != app.Generation {
		return
	}
	r.Recorder.Eventf(app, nil, corev1.EventTypeNormal, ReasonDriftCorrected, "Apply",
		"re-applied the %s: %s no longer as the WebApp declares", strings.Join(written, " and the "), itThey(written))
}

// servingReasons are the Ready reasons of an app that serves as it should; a move between two of them
// records no event.
var servingReasons = map[string]bool{
	status.ReasonReady: true, status.ReasonScaling: true, status.ReasonScaledToZero: true, status.ReasonPaused: true,
}

// ReasonDriftCorrected is the reason of the event emitted when the operator puts back what someone
// else changed in its children.
const ReasonDriftCorrected = "DriftCorrected"

func itThey(kinds []string) string {
	if len(kinds) == 1 {
		return "it was"
	}
	return "they were"
}

func (r *WebAppReconciler) now() metav1.Time {
	if r.Now != nil {
		return r.Now()
	}
	return metav1.NewTime(time.Now().Truncate(time.Second))
}

// Watch says how the controller hears of a kind it watches (operator's table of watched kinds).
type Watch int

const (
	// WatchWebApp: the WebApps themselves, on a change of their generation.
	WatchWebApp Watch = iota
	// WatchOwned: a child, mapped to the WebApp that controls it.
	WatchOwned
	// WatchPods: the pods of the WebApps' Deployments, mapped through their instance label.
	WatchPods
	// WatchConfig: the ConfigMaps or Secrets the pods read, metadata only, mapped through the
	// WebApps' index of references (webapps.go).
	WatchConfig
)

// Watched is one kind the controller watches, and how.
type Watched struct {
	Object client.Object
	How    Watch
}

// SetupWithManager registers the controller with a watch of each kind in watched. Children are
// watched through their owner references, so a change to (or the deletion of) any child re-triggers
// its WebApp: no polling.
func (r *WebAppReconciler) SetupWithManager(mgr ctrl.Manager, watched []Watched) error {
	b := ctrl.NewControllerManagedBy(mgr)
	for _, w := range watched {
		switch w.How {
		case WatchWebApp:
			// Status writes do not bump the generation: without this predicate every status patch
			// would trigger one more (no-op) pass.
			b = b.For(w.Object, builder.WithPredicates(predicate.GenerationChangedPredicate{}))
		case WatchOwned:
			b = b.Owns(w.Object)
		case WatchPods:
			// Pods belong to ReplicaSets, not to the WebApp: map them back through the instance
			// label, so a pod that starts failing (or recovers) updates the WebApp's status.
			b = b.Watches(w.Object, handler.EnqueueRequestsFromMapFunc(podToWebApp))
		case WatchConfig:
			// a resync's update, with the same resourceVersion, changes nothing
			kind := w.Object.GetObjectKind().GroupVersionKind().Kind
			b = b.WatchesMetadata(w.Object, handler.EnqueueRequestsFromMapFunc(r.configToWebApps(kind)),
				builder.WithPredicates(predicate.ResourceVersionChangedPredicate{}))
		}
	}
	return b.
		WithOptions(controller.Options{MaxConcurrentReconciles: r.MaxConcurrentReconciles}).
		Named("webapp").
		Complete(r)
}
