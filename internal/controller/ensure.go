package controller

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/webapp-operator/webapp-operator/api/v1beta1"
	"github.com/webapp-operator/webapp-operator/internal/resources"
	"github.com/webapp-operator/webapp-operator/internal/status"
)

// absentOnly is a resourceVersion no object has: an apply that carries it creates the object when
// none of that name exists, and fails with 409 Conflict, touching nothing, when one does.
const absentOnly = "18446744073709551615"

// ensure makes the child carry the desired fields and returns it, and whether it wrote it; cached
// is the child as the cache holds it, nil when it holds none.
//
//   - A child the cache does not hold is created in one request, on the condition that no object of
//     that name exists. Only if one does (the API server says 409) is it read: one of ours that lost
//     its managed-by label (the cache holds only labelled objects) is corrected below; anyone else's
//     is never touched (sample-controller's rule): the result is a NameConflict.
//   - When the fields that our field manager owns already equal desired, nothing is sent. The cache
//     keeps a digest of them (Child.Trim), computed as the child entered it: any change to the child
//     is a watch event that brings a new digest, so drift in any owned field is seen.
//   - Otherwise desired is server-side applied with force: our manager owns every field it sets, so
//     drift in any of them is corrected, while fields other managers set (an HPA, a mesh injector's
//     annotations) are left alone.
//
// Terminal failures are returned as a *status.Problem, transient ones as plain errors.
func (r *WebAppReconciler) ensure(ctx context.Context, app *v1beta1.WebApp, child resources.Child,
	cached client.Object, desired runtime.ApplyConfiguration) (client.Object, bool, error) {
	live := cached
	if live == nil {
		created, err := r.create(ctx, child, desired)
		if err == nil {
			logf.FromContext(ctx).Info("Created child", "kind", child.Kind(), "name", app.Name)
			return created, true, nil
		}
		if !apierrors.IsConflict(err) {
			return nil, false, applyError(child, app, false, err)
		}
		live = child.New()
		if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(app), live); err != nil {
			return nil, false, fmt.Errorf("reading %s %s: %w", child.Kind(), app.Name, err)
		}
	}

	// By UID: a WebApp deleted and re-created under the same name does not inherit the children of
	// its namesake while the garbage collector removes them.
	if !metav1.IsControlledBy(live, app) {
		return nil, false, status.NewProblem(status.ReasonNameConflict, "%s %s named %q already exists and is not controlled by this WebApp; "+
			"it is left untouched: delete it or rename the WebApp", article(child.Kind()), child.Kind(), app.Name)
	}
	if child.UpToDate(live, desired) {
		return live, false, nil
	}
	if handover, err := child.Handover(app, live); err != nil {
		return nil, false, fmt.Errorf("handing over fields of %s %s: %w", child.Kind(), app.Name, err)
	} else if handover != nil {
		if err := r.Apply(ctx, handover, client.FieldOwner(resources.HandoverFieldOwner)); err != nil {
			return nil, false, applyError(child, app, true, err)
		}
		logf.FromContext(ctx).Info("Handed fields over", "kind", child.Kind(), "name", app.Name)
	}
	if err := r.Apply(ctx, desired, client.FieldOwner(resources.FieldOwner), client.ForceOwnership); err != nil {
		return nil, false, applyError(child, app, true, err)
	}
	// The client decoded the API server's answer into desired: it is now the whole live object.
	applied := child.New()
	if err := fromApplyConfiguration(desired, applied); err != nil {
		return nil, false, err
	}
	logf.FromContext(ctx).Info("Updated child", "kind", child.Kind(), "name", app.Name)
	return applied, true, nil
}

// prune deletes live, app's child of this kind as the cache holds it (nil: none), which app no
// longer wants (an optional child switched off, a budget for a WebApp down to one replica). Only an
// object that app controls is deleted, on the condition that it is still the one the cache shows
// (its UID and resourceVersion): a same-name object of anyone else's is left alone, since the
// WebApp asks for nothing of that name. A pass over a WebApp that wants no such child sends no
// request at all.
func (r *WebAppReconciler) prune(ctx context.Context, app *v1beta1.WebApp, child resources.Child, live client.Object) error {
	if live == nil || !metav1.IsControlledBy(live, app) || live.GetDeletionTimestamp() != nil {
		return nil
	}
	uid, rv := live.GetUID(), live.GetResourceVersion()
	if err := r.Delete(ctx, live, client.Preconditions{UID: &uid, ResourceVersion: &rv}); err != nil {
		if apierrors.IsForbidden(err) {
			return status.NewProblem(status.ReasonApplyDenied, "the API server denied deleting the %s: %v", child.Kind(), err)
		}
		return client.IgnoreNotFound(err)
	}
	logf.FromContext(ctx).Info("Deleted child the WebApp no longer asks for", "kind", child.Kind(), "name", app.Name)
	return nil
}

// create applies desired on the condition that no object of its name exists (absentOnly).
func (r *WebAppReconciler) create(ctx context.Context, child resources.Child, desired runtime.ApplyConfiguration) (client.Object, error) {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(desired)
	if err != nil {
		return nil, fmt.Errorf("converting %T: %w", desired, err)
	}
	obj := &unstructured.Unstructured{Object: u}
	obj.SetResourceVersion(absentOnly)
	if err := r.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj), client.FieldOwner(resources.FieldOwner),
		client.ForceOwnership); err != nil {
		return nil, err
	}
	created := child.New()
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, created); err != nil {
		return nil, fmt.Errorf("converting the created %s: %w", child.Kind(), err)
	}
	return created, nil
}

// applyError sorts the API server's refusal of a write: a spec it refuses (422) and a denial by
// policy, quota or RBAC (403, 400) are terminal; anything else is transient.
func applyError(child resources.Child, app *v1beta1.WebApp, existed bool, err error) error {
	switch {
	case apierrors.IsInvalid(err):
		msg := fmt.Sprintf("the API server refused the %s: %v", child.Kind(), err)
		if existed {
			// Server-side apply keeps list items that other field managers added, so a hand edit
			// (say, of a Service port number) can clash with what we apply.
			msg += fmt.Sprintf("; if the %s was edited by hand, delete it and the operator recreates it", child.Kind())
		}
		return status.NewProblem(status.ReasonInvalidSpec, "%s", msg)
	case apierrors.IsForbidden(err) || apierrors.IsBadRequest(err):
		// An admission webhook or policy, a quota or RBAC said no: retrying the same request cannot
		// help until someone changes them, so report it and recheck slowly.
		return status.NewProblem(status.ReasonApplyDenied, "the API server denied the %s: %v", child.Kind(), err)
	}
	return fmt.Errorf("applying %s %s: %w", child.Kind(), app.Name, err)
}

// fromApplyConfiguration converts an apply configuration into the typed object of the same kind.
func fromApplyConfiguration(ac runtime.ApplyConfiguration, obj client.Object) error {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ac)
	if err != nil {
		return fmt.Errorf("converting %T: %w", ac, err)
	}
	return runtime.DefaultUnstructuredConverter.FromUnstructured(u, obj)
}

// article is the indefinite article before kind in a message: "an Ingress", "a Service", and "an
// HTTPRoute", which is read "aitch-tee-tee-pee".
func article(kind string) string {
	if kind != "" && strings.ContainsRune("AEIOU", rune(kind[0])) || strings.HasPrefix(kind, "HTTP") {
		return "an"
	}
	return "a"
}
