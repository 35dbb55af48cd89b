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
// package render describes, and writes the status that package status computes.
package controller

import (
	"context"
	"errors"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/internal/render"
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
	// ConflictRecheck is how often a WebApp stalled on a NameConflict looks again. The foreign
	// object carries no managed-by label, so it is outside the cache and its deletion cannot be
	// watched; a slow recheck of just these WebApps is the price of a label-scoped cache.
	ConflictRecheck time.Duration
}

// DefaultConflictRecheck is the default of WebAppReconciler.ConflictRecheck.
const DefaultConflictRecheck = 30 * time.Second

// +kubebuilder:rbac:groups=apps.webapp-operator.io,resources=webapps,verbs=get;list;watch
// +kubebuilder:rbac:groups=apps.webapp-operator.io,resources=webapps/status,verbs=get;patch
// Setting blockOwnerDeletion on a child needs update on the owner's finalizers subresource where
// the OwnerReferencesPermissionEnforcement admission plugin is on (OpenShift, hardened clusters).
// +kubebuilder:rbac:groups=apps.webapp-operator.io,resources=webapps/finalizers,verbs=update
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;patch
// +kubebuilder:rbac:groups="",resources=services,verbs=get;list;watch;create;patch
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile is one pass of fetch, observe, diff, act, report.
func (r *WebAppReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	app := &webappv1.WebApp{}
	if err := r.Get(ctx, req.NamespacedName, app); err != nil {
		// Deleted: the garbage collector removes the children through their owner references.
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !app.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}

	obs, err := r.converge(ctx, app)
	next := status.Compute(app, obs, r.now())
	r.recordTransitions(app, next)
	if statusErr := r.writeStatus(ctx, app, next); statusErr != nil {
		err = errors.Join(err, statusErr)
	}
	if err == nil && obs.Conflict != "" {
		return ctrl.Result{RequeueAfter: r.conflictRecheck()}, nil
	}
	return ctrl.Result{}, err
}

func (r *WebAppReconciler) conflictRecheck() time.Duration {
	if r.ConflictRecheck > 0 {
		return r.ConflictRecheck
	}
	return DefaultConflictRecheck
}

// converge brings both children in line and reports what it saw. Terminal problems (a foreign
// object in the way, a rendered object the API server refuses) are returned in the Observation,
// not as an error, so they are reported as Stalled and not retried in a hot loop: the next
// change to the WebApp or to a child triggers a new pass. Transient errors are returned too, so
// controller-runtime retries them with exponential backoff.
func (r *WebAppReconciler) converge(ctx context.Context, app *webappv1.WebApp) (status.Observation, error) {
	var obs status.Observation
	desiredDeployment, err := render.Deployment(app)
	if err != nil {
		obs.Invalid = err.Error()
		return obs, nil
	}
	dep, err := ensure(ctx, r, app, deploymentKind, desiredDeployment)
	if err == nil {
		obs.Deployment = dep
		obs.Service, err = ensure(ctx, r, app, serviceKind, render.Service(app))
	}
	if err == nil {
		obs.PodIssue, err = r.podIssue(ctx, app)
	}
	var terminal *terminalError
	switch {
	case errors.As(err, &terminal) && terminal.conflict:
		obs.Conflict = terminal.msg
	case errors.As(err, &terminal):
		obs.Invalid = terminal.msg
	case err != nil:
		obs.Error = err.Error()
		return obs, err
	}
	return obs, nil
}

// podIssue reports a pod of app that cannot become ready on its own, so that status can say why
// a rollout is stuck (ImagePullBackOff, CrashLoopBackOff, Unschedulable...) rather than only that it is.
func (r *WebAppReconciler) podIssue(ctx context.Context, app *webappv1.WebApp) (string, error) {
	var pods corev1.PodList
	if err := r.List(ctx, &pods, client.InNamespace(app.Namespace), client.MatchingLabels(render.SelectorLabels(app))); err != nil {
		return "", fmt.Errorf("listing pods: %w", err)
	}
	return status.PodIssue(pods.Items), nil
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

// recordTransitions emits an event when the Ready condition changes reason, so that `kubectl
// describe` tells the story of a WebApp without an event on every pass.
func (r *WebAppReconciler) recordTransitions(app *webappv1.WebApp, next webappv1.WebAppStatus) {
	was := meta.FindStatusCondition(app.Status.Conditions, webappv1.ConditionReady)
	now := meta.FindStatusCondition(next.Conditions, webappv1.ConditionReady)
	if now == nil || (was != nil && was.Reason == now.Reason && was.Status == now.Status) {
		return
	}
	eventType := corev1.EventTypeNormal
	if stalled := meta.FindStatusCondition(next.Conditions, webappv1.ConditionStalled); stalled != nil &&
		stalled.Status == metav1.ConditionTrue || now.Reason == status.ReasonReconcileError {
		eventType = corev1.EventTypeWarning
	}
	r.Recorder.Eventf(app, nil, eventType, now.Reason, "Reconcile", "%s", now.Message)
}

func (r *WebAppReconciler) now() metav1.Time {
	if r.Now != nil {
		return r.Now()
	}
	return metav1.NewTime(time.Now().Truncate(time.Second))
}

// Options tune the controller.
type Options struct {
	MaxConcurrentReconciles int
}

// SetupWithManager registers the controller. Children are watched through their owner references,
// so a change to (or the deletion of) a Deployment or Service re-triggers its WebApp: no polling.
func (r *WebAppReconciler) SetupWithManager(mgr ctrl.Manager, opts Options) error {
	return ctrl.NewControllerManagedBy(mgr).
		// Status writes do not bump the generation: without this predicate every status patch
		// would trigger one more (no-op) pass.
		For(&webappv1.WebApp{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Owns(&appsv1.Deployment{}).
		Owns(&corev1.Service{}).
		// Pods belong to ReplicaSets, not to the WebApp: map them back through the instance label,
		// so a pod that starts failing (or recovers) updates the WebApp's status.
		Watches(&corev1.Pod{}, handler.EnqueueRequestsFromMapFunc(podToWebApp)).
		WithOptions(controller.Options{MaxConcurrentReconciles: opts.MaxConcurrentReconciles}).
		Named("webapp").
		Complete(r)
}

// podToWebApp maps a pod to the WebApp named by its instance label.
func podToWebApp(_ context.Context, pod client.Object) []reconcile.Request {
	name := pod.GetLabels()[render.LabelInstance]
	if name == "" || pod.GetLabels()[render.LabelName] != render.AppName {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: pod.GetNamespace(), Name: name}}}
}

// childKind describes one kind of child object for ensure.
type childKind[T client.Object, AC runtime.ApplyConfiguration] struct {
	name    string
	newObj  func() T
	extract func(T, string) (AC, error)
}

var (
	deploymentKind = childKind[*appsv1.Deployment, *appsv1ac.DeploymentApplyConfiguration]{
		name: "Deployment", newObj: func() *appsv1.Deployment { return &appsv1.Deployment{} },
		extract: appsv1ac.ExtractDeployment,
	}
	serviceKind = childKind[*corev1.Service, *corev1ac.ServiceApplyConfiguration]{
		name: "Service", newObj: func() *corev1.Service { return &corev1.Service{} },
		extract: corev1ac.ExtractService,
	}
)

// terminalError is a failure that retrying cannot fix; only a user change can.
type terminalError struct {
	conflict bool
	msg      string
}

func (e *terminalError) Error() string { return e.msg }

// ensure makes the live child carry the desired fields and returns it.
//
//   - A same-name object that app does not control is never touched (sample-controller's rule):
//     the result is a NameConflict.
//   - When the fields that our field manager owns already equal desired, nothing is sent.
//   - Otherwise desired is server-side applied with force: our manager owns every field it sets, so
//     drift in any of them is corrected, while fields other managers set (an HPA, a mesh injector's
//     annotations) are left alone.
func ensure[T client.Object, AC runtime.ApplyConfiguration](
	ctx context.Context, r *WebAppReconciler, app *webappv1.WebApp, kind childKind[T, AC], desired AC,
) (T, error) {
	var zero T
	live, found, err := r.getChild(ctx, app, kind.newObj())
	if err != nil {
		return zero, fmt.Errorf("reading %s %s: %w", kind.name, app.Name, err)
	}
	if found {
		// By UID: a WebApp deleted and re-created under the same name does not inherit the
		// children of its namesake while the garbage collector removes them.
		if !metav1.IsControlledBy(live, app) {
			return zero, &terminalError{conflict: true, msg: fmt.Sprintf(
				"a %s named %q already exists and is not controlled by this WebApp; it is left untouched: "+
					"delete it or rename the WebApp", kind.name, app.Name)}
		}
		owned, err := kind.extract(live.(T), render.FieldOwner)
		if err == nil && equality.Semantic.DeepEqual(owned, desired) {
			return live.(T), nil
		}
	}

	if err := r.Apply(ctx, desired, client.FieldOwner(render.FieldOwner), client.ForceOwnership); err != nil {
		if apierrors.IsInvalid(err) {
			msg := fmt.Sprintf("the API server refused the %s: %v", kind.name, err)
			if found {
				// Server-side apply keeps list items that other field managers added, so a
				// hand edit (say, of a Service port number) can clash with what we apply.
				msg += fmt.Sprintf("; if the %s was edited by hand, delete it and the operator recreates it", kind.name)
			}
			return zero, &terminalError{msg: msg}
		}
		return zero, fmt.Errorf("applying %s %s: %w", kind.name, app.Name, err)
	}
	// The client decoded the API server's answer into desired: it is now the whole live object.
	applied := kind.newObj()
	if err := fromApplyConfiguration(desired, applied); err != nil {
		return zero, err
	}
	action := "Updated"
	if !found {
		action = "Created"
	}
	logf.FromContext(ctx).Info(action+" child", "kind", kind.name, "name", app.Name)
	r.Recorder.Eventf(app, applied, corev1.EventTypeNormal, action, "Apply", "%s %s %s", action, kind.name, app.Name)
	return applied, nil
}

// getChild looks for the child named like app. The cache only holds objects labelled as managed by
// us, so a miss there is confirmed against the API server: a foreign object of the same name (or
// one of ours whose label someone removed) must be seen before anything is applied.
func (r *WebAppReconciler) getChild(ctx context.Context, app *webappv1.WebApp, obj client.Object) (client.Object, bool, error) {
	key := client.ObjectKeyFromObject(app)
	err := r.Get(ctx, key, obj)
	if apierrors.IsNotFound(err) {
		err = r.APIReader.Get(ctx, key, obj)
	}
	switch {
	case apierrors.IsNotFound(err):
		return obj, false, nil
	case err != nil:
		return obj, false, err
	}
	return obj, true, nil
}

// fromApplyConfiguration converts an apply configuration into the typed object of the same kind.
func fromApplyConfiguration(ac runtime.ApplyConfiguration, obj client.Object) error {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ac)
	if err != nil {
		return fmt.Errorf("converting %T: %w", ac, err)
	}
	return runtime.DefaultUnstructuredConverter.FromUnstructured(u, obj)
}
