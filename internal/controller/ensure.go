package controller

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/internal/resources"
	"github.com/webapp-operator/webapp-operator/internal/status"
)

// ensure makes the live child carry the desired fields and returns it; nil when app wants none.
//
//   - A same-name object that app does not control is never touched (sample-controller's rule):
//     the result is a NameConflict.
//   - When the fields that our field manager owns already equal desired, nothing is sent.
//   - Otherwise desired is server-side applied with force: our manager owns every field it sets, so
//     drift in any of them is corrected, while fields other managers set (an HPA, a mesh injector's
//     annotations) are left alone.
//
// Terminal failures are returned as a *status.Problem, transient ones as plain errors.
func (r *WebAppReconciler) ensure(ctx context.Context, app *webappv1.WebApp, child resources.Child) (client.Object, error) {
	desired, err := child.Desired(app)
	if err != nil {
		return nil, status.InvalidSpec("%s", err)
	}
	if desired == nil {
		return nil, nil
	}
	live, found, err := r.getChild(ctx, app, child.New())
	if err != nil {
		return nil, fmt.Errorf("reading %s %s: %w", child.Kind(), app.Name, err)
	}
	if found {
		// By UID: a WebApp deleted and re-created under the same name does not inherit the
		// children of its namesake while the garbage collector removes them.
		if !metav1.IsControlledBy(live, app) {
			return nil, status.NameConflict("a %s named %q already exists and is not controlled by this WebApp; "+
				"it is left untouched: delete it or rename the WebApp", child.Kind(), app.Name)
		}
		owned, err := child.Owned(live)
		if err == nil && equality.Semantic.DeepEqual(owned, desired) {
			return live, nil
		}
	}

	if err := r.Apply(ctx, desired, client.FieldOwner(resources.FieldOwner), client.ForceOwnership); err != nil {
		if apierrors.IsInvalid(err) {
			msg := fmt.Sprintf("the API server refused the %s: %v", child.Kind(), err)
			if found {
				// Server-side apply keeps list items that other field managers added, so a
				// hand edit (say, of a Service port number) can clash with what we apply.
				msg += fmt.Sprintf("; if the %s was edited by hand, delete it and the operator recreates it", child.Kind())
			}
			return nil, status.InvalidSpec("%s", msg)
		}
		if apierrors.IsForbidden(err) || apierrors.IsBadRequest(err) {
			// An admission webhook or policy, a quota or RBAC said no: retrying the same request
			// cannot help until someone changes them, so report it and recheck slowly.
			return nil, status.ApplyDenied("the API server denied the %s: %v", child.Kind(), err)
		}
		return nil, fmt.Errorf("applying %s %s: %w", child.Kind(), app.Name, err)
	}
	// The client decoded the API server's answer into desired: it is now the whole live object.
	applied := child.New()
	if err := fromApplyConfiguration(desired, applied); err != nil {
		return nil, err
	}
	action := "Updated"
	if !found {
		action = "Created"
	}
	logf.FromContext(ctx).Info(action+" child", "kind", child.Kind(), "name", app.Name)
	r.Recorder.Eventf(app, applied, corev1.EventTypeNormal, action, "Apply", "%s %s %s", action, child.Kind(), app.Name)
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
