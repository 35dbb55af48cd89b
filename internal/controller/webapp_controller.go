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
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/webapp-operator/webapp-operator/api/v1beta1"
	"github.com/webapp-operator/webapp-operator/internal/resources"
	"github.com/webapp-operator/webapp-operator/internal/served"
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
	ObservePass(app metav1.Object, before, after v1beta1.WebAppStatus, err error)
}

// DefaultTerminalRecheck is the default of WebAppReconciler.TerminalRecheck.
const DefaultTerminalRecheck = 2 * time.Minute

// +kubebuilder:rbac:groups=apps.webapp-operator.io,resources=webapps,verbs=get;list;watch
// +kubebuilder:rbac:groups=apps.webapp-operator.io,resources=webapps/status,verbs=patch
// Setting blockOwnerDeletion on a child needs update on the owner's finalizers subresource where
// the OwnerReferencesPermissionEnforcement admission plugin is on (OpenShift, hardened clusters).
// +kubebuilder:rbac:groups=apps.webapp-operator.io,resources=webapps/finalizers,verbs=update
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile is one pass over a WebApp, in four phases: observe what is (the configuration its pods
// read, its children and pods, all from the cache), decide what should be (each child rendered, the
// Deployment's pod template decided, a failed rollout rolled back), act once (apply in order what
// differs), and report (events, status, metrics, when to look again).
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
	p := &pass{app: cached.DeepCopy(), now: r.now()}
	err := r.observe(ctx, p)
	if err == nil {
		if err = r.decide(ctx, p); err == nil {
			err = r.act(ctx, p)
		}
	}
	return r.report(ctx, p, err)
}

// pass is what one Reconcile observed, decided and did.
type pass struct {
	app *v1beta1.WebApp
	now metav1.Time

	// observed
	configRevision string
	live           map[string]client.Object // each child in the cache, by kind
	deployment     *appsv1.Deployment       // the WebApp's Deployment in the cache, or nil
	podIssue       *status.PodIssue

	// decided
	templateSpec []byte // what the Deployment's stamp fingerprints of the spec (served.TemplateSpec)
	steps        []step
	template     resources.TemplateSource
	rolledBack   *v1beta1.RollbackStatus // the rollback this pass makes
	recheck      time.Duration           // when a failing rollout would count as failed
	rollbackErr  error                   // reading the revision to go back to failed

	// done
	written  []string           // the kinds applied
	children []status.Health    // each child applied or found as desired, in order
	workload *appsv1.Deployment // the Deployment after the pass
}

// step is one child to bring in line: what it should be, or why it could not be rendered.
type step struct {
	child   resources.Child
	desired runtime.ApplyConfiguration // nil: the WebApp wants no such child
	err     error
}

// observe reads what the pass decides from. A pod template that reads a missing object would give
// pods that cannot start: then the pass applies nothing, and the pods that run keep running.
func (r *WebAppReconciler) observe(ctx context.Context, p *pass) error {
	if err := r.readChildren(ctx, p); err != nil {
		return err
	}
	var err error
	if p.configRevision, err = r.configRevision(ctx, p.app, p.deployment); err != nil {
		p.workload = p.deployment // status still reports the pods that run
		return err
	}
	p.podIssue, err = r.podIssue(ctx, p.app)
	return err
}

// readChildren reads each child of p's WebApp from the cache. Kinds the cluster does not serve are
// neither cached nor read.
func (r *WebAppReconciler) readChildren(ctx context.Context, p *pass) error {
	key := client.ObjectKeyFromObject(p.app)
	p.live = make(map[string]client.Object, len(resources.All))
	for _, child := range resources.All {
		if r.Unserved[child.Kind()] {
			continue
		}
		obj := child.New()
		if err := r.Get(ctx, key, obj); err != nil {
			if apierrors.IsNotFound(err) {
				continue
			}
			return fmt.Errorf("reading %s %s: %w", child.Kind(), key.Name, err)
		}
		p.live[child.Kind()] = obj
	}
	if d, ok := p.live[resources.Deployment.Kind()].(*appsv1.Deployment); ok && metav1.IsControlledBy(d, p.app) {
		p.deployment = d
	}
	return nil
}

// decide renders every child. The Deployment's pod template is decided against the live one
// (resources.DesiredDeployment), and goes back to an earlier revision when the rollout failed. It
// returns only a failure to read the Deployment; what cannot be rendered is a step's error.
func (r *WebAppReconciler) decide(ctx context.Context, p *pass) error {
	d, source, err := p.desiredDeployment()
	if errors.Is(err, resources.ErrLiveTemplateNeeded) {
		if err := r.readWholeDeployment(ctx, p); err != nil {
			return err
		}
		d, source, err = p.desiredDeployment()
	}
	if err != nil {
		p.steps = append(p.steps, step{child: resources.Deployment, err: err})
		return nil
	}
	p.template = source
	p.rollbackErr = r.rollBackIfFailed(ctx, p, d)
	p.steps = append(p.steps, step{child: resources.Deployment, desired: d})
	for _, child := range resources.Children {
		desired, err := child.Desired(p.app)
		p.steps = append(p.steps, step{child: child, desired: desired, err: err})
	}
	return nil
}

// readWholeDeployment reads p's Deployment from the API server, for a pass that keeps its live pod
// template (held or pinned), which the cache does not keep.
func (r *WebAppReconciler) readWholeDeployment(ctx context.Context, p *pass) error {
	d := &appsv1.Deployment{}
	p.deployment = nil
	if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(p.app), d); apierrors.IsNotFound(err) {
		delete(p.live, resources.Deployment.Kind()) // gone since the cache saw it
		return nil
	} else if err != nil {
		return fmt.Errorf("reading Deployment %s: %w", p.app.Name, err)
	}
	p.live[resources.Deployment.Kind()] = d
	if metav1.IsControlledBy(d, p.app) {
		p.deployment = d
	}
	return nil
}

// desiredDeployment decides the Deployment (resources.DesiredDeployment), stamped with what the upgrade
// policy has always fingerprinted of the spec (served.TemplateSpec).
func (p *pass) desiredDeployment() (*appsv1ac.DeploymentApplyConfiguration, resources.TemplateSource, error) {
	spec, err := served.TemplateSpec(p.app)
	if err != nil {
		return nil, resources.TemplateRendered, err
	}
	p.templateSpec = spec
	return resources.DesiredDeployment(resources.DeploymentInputs{
		App: p.app, Live: p.deployment, ConfigRevision: p.configRevision, TemplateSpec: spec})
}

// act brings each child in line, in order, and stops at the first that cannot be: no half-made
// WebApp. Terminal problems (a foreign object in the way, a rendered object the API server refuses)
// come back as a *status.Problem, which status reports as Stalled without a retry in a hot loop;
// transient errors come back as they are, for controller-runtime to retry with backoff.
func (r *WebAppReconciler) act(ctx context.Context, p *pass) error {
	for _, s := range p.steps {
		kind := s.child.Kind()
		switch {
		case s.err != nil:
			if problem := (*status.Problem)(nil); errors.As(s.err, &problem) {
				return problem
			}
			return status.NewProblem(status.ReasonInvalidSpec, "%s", s.err)
		case r.Unserved[kind] && s.desired != nil:
			// The children before it are applied: the app runs, inside the cluster, without it.
			if problem := s.child.MissingAPI(); problem != nil {
				return problem
			}
			return status.NewProblem(status.ReasonInvalidSpec, "the cluster does not serve the %s API", kind)
		case r.Unserved[kind]:
			continue // nothing of the kind can exist, so nothing to prune either
		case s.desired == nil:
			// An optional child the WebApp does not ask for: not part of its health, and deleted
			// if we made it.
			if err := r.prune(ctx, p.app, s.child, p.live[kind]); err != nil {
				return err
			}
			continue
		}
		live, wrote, err := r.ensure(ctx, p.app, s.child, p.live[kind], s.desired)
		if err != nil {
			return err
		}
		if wrote {
			p.written = append(p.written, kind)
		}
		p.children = append(p.children, s.child.Health(p.app, live))
		if d, ok := live.(*appsv1.Deployment); ok {
			p.workload = d
		}
	}
	return nil
}

// report records what the pass did: an event on a change that matters, the status, the metrics.
// It returns when to look again.
func (r *WebAppReconciler) report(ctx context.Context, p *pass, err error) (ctrl.Result, error) {
	app := p.app
	obs := p.observation(err)
	obs.SecretRolloutsOff = r.secretRolloutsOff(app)
	if problem := (*status.Problem)(nil); errors.As(err, &problem) {
		err = nil // reported in the status; nextRequeue says when to look again
	}
	err = errors.Join(err, p.rollbackErr)
	if p.rolledBack == nil { // a rollback is reported as such, below
		r.recordDriftCorrection(app, p.written)
	}
	next := status.Compute(app, obs, p.now)
	// Written now, the status would only say "waiting for the Deployment controller", and be
	// rewritten a moment later: its status update (which the Owns watch sees) brings a truer one.
	// The old status says which generation it is for, so nobody mistakes it for this one's.
	waiting := err == nil && p.rolledBack == nil && awaitingDeploymentController(obs, p.written, p.now.Time)
	if !waiting {
		r.recordReadyChange(app, next)
		before := app.Status
		err = errors.Join(err, r.writeStatus(ctx, app, next), p.rollbackErr)
		if r.Metrics != nil {
			r.Metrics.ObservePass(app, before, next, err)
		}
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{RequeueAfter: r.nextRequeue(p, obs, waiting)}, nil
}

// observation is what status is computed from, after the pass ended with err.
func (p *pass) observation(err error) status.Observation {
	obs := status.Observation{Selector: resources.Selector(p.app), URL: resources.URL(p.app), Children: p.children,
		Deployment: p.workload, TemplateHeld: p.template == resources.TemplateHeld, RolledBack: p.rolledBack}
	if obs.RolledBack == nil {
		obs.RolledBack = resources.RolledBackFor(p.app, p.workload)
	}
	var problem *status.Problem
	switch {
	case errors.As(err, &problem):
		obs.Problem = problem
	case err != nil:
		obs.Problem = status.ReconcileError(err)
	default:
		obs.PodIssue = p.podIssue
	}
	return obs
}

// nextRequeue is when to look again although no watch may fire: after the Deployment controller's
// grace; after TerminalRecheck for a WebApp stalled on a terminal problem, since what fixes one is
// often no object the operator watches; or when a failing rollout would count as failed, since
// failing pods do not always change (an image that cannot be pulled). Zero: when a watch fires.
func (r *WebAppReconciler) nextRequeue(p *pass, obs status.Observation, waiting bool) time.Duration {
	switch {
	case waiting:
		return deploymentControllerGrace
	case obs.Problem != nil && obs.Problem.Terminal():
		return r.terminalRecheck()
	}
	return p.recheck
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
	if at := resources.AppliedAt(d); at != nil {
		return now.Sub(at.Time) < deploymentControllerGrace
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

// writeStatus patches the status subresource once, and only when it changed. A merge patch without
// a resourceVersion precondition cannot fail with a conflict; the status is ours alone and was
// computed from the freshest observation, so last-writer-wins is right here. The patch holds what
// changed in the status, which has the same shape in every version, and goes to the served one.
func (r *WebAppReconciler) writeStatus(ctx context.Context, app *v1beta1.WebApp, next v1beta1.WebAppStatus) error {
	if equality.Semantic.DeepEqual(app.Status, next) {
		return nil
	}
	patch, err := client.MergeFrom(&v1beta1.WebApp{Status: app.Status}).Data(&v1beta1.WebApp{Status: next})
	if err == nil {
		err = r.Status().Patch(ctx, served.Object(app), client.RawPatch(types.MergePatchType, patch))
	}
	if err != nil {
		return client.IgnoreNotFound(fmt.Errorf("patching status: %w", err))
	}
	return nil
}

// The operator's events tell the story of a WebApp without an event on every pass or for every
// child. recordReadyChange emits one when the Ready condition changes status or reason (Warning when
// the WebApp stalled or hit an error); its first value counts only when it is Ready or a failure.
// Moves between serving states (Ready, Scaling, ScaledToZero, Paused) emit none: an autoscaled app
// scales all day, and each scale would otherwise cost two events.
func (r *WebAppReconciler) recordReadyChange(app *v1beta1.WebApp, next v1beta1.WebAppStatus) {
	was := meta.FindStatusCondition(app.Status.Conditions, v1beta1.ConditionReady)
	now := meta.FindStatusCondition(next.Conditions, v1beta1.ConditionReady)
	if now == nil {
		return
	}
	failure := meta.IsStatusConditionTrue(next.Conditions, v1beta1.ConditionStalled) ||
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
	r.Recorder.Eventf(served.Object(app), nil, eventType, now.Reason, "Reconcile", "%s", now.Message)
}

// recordDriftCorrection emits one event when the pass wrote children although the WebApp's spec did
// not change since its last status: someone else changed what the operator owns, and it put it back.
func (r *WebAppReconciler) recordDriftCorrection(app *v1beta1.WebApp, written []string) {
	if len(written) == 0 || app.Status.ObservedGeneration == 0 || app.Status.ObservedGeneration != app.Generation {
		return
	}
	r.Recorder.Eventf(served.Object(app), nil, corev1.EventTypeNormal, ReasonDriftCorrected, "Apply",
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
