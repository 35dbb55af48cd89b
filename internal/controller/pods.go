package controller

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/internal/resources"
	"github.com/webapp-operator/webapp-operator/internal/status"
)

// Pods are read, never written: the operator lists them to say which pod keeps a rollout from
// progressing, and why.
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch

// PodCacheSelector selects the pods the operator caches. Pods carry only the selector labels (their
// template is ours, but the ReplicaSet creates them).
func PodCacheSelector() labels.Selector {
	return labels.SelectorFromSet(labels.Set{resources.LabelName: resources.AppName})
}

// podIssue reports a pod of app that cannot become ready on its own, so that status can say why
// a rollout is stuck (ImagePullBackOff, CrashLoopBackOff, Unschedulable...) rather than only that it is.
func (r *WebAppReconciler) podIssue(ctx context.Context, app *webappv1.WebApp) (string, error) {
	var pods corev1.PodList
	if err := r.List(ctx, &pods, client.InNamespace(app.Namespace), client.MatchingLabels(resources.SelectorLabels(app))); err != nil {
		return "", fmt.Errorf("listing pods: %w", err)
	}
	return status.PodIssue(pods.Items), nil
}

// podToWebApp maps a pod to the WebApp named by its instance label.
func podToWebApp(_ context.Context, pod client.Object) []reconcile.Request {
	name := pod.GetLabels()[resources.LabelInstance]
	if name == "" || pod.GetLabels()[resources.LabelName] != resources.AppName {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: pod.GetNamespace(), Name: name}}}
}
