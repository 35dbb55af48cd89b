package controller

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/webapp-operator/webapp-operator/api/v1beta1"
	"github.com/webapp-operator/webapp-operator/internal/resources"
	"github.com/webapp-operator/webapp-operator/internal/status"
)

// Pods are read, never written: the operator lists them to say which pod keeps a rollout from
// progressing, and why.
// +kubebuilder:rbac:groups="",resources=pods,verbs=list;watch

// PodCacheSelector selects the pods the operator caches: those its pod template labels, with
// managed-by as well as the common app.kubernetes.io/name=webapp (which unrelated pods may carry).
func PodCacheSelector() labels.Selector {
	return labels.SelectorFromSet(labels.Set{resources.LabelName: resources.AppName, resources.LabelManagedBy: resources.ManagedBy})
}

// podIssue reports a pod of app that cannot become ready on its own, so that status can say why
// a rollout is stuck (ImagePullBackOff, CrashLoopBackOff, Unschedulable...) rather than only that it is.
// Only pods of the Deployment's own ReplicaSets count (named <deployment>-<pod-template-hash>): a
// pod that merely carries the same labels is not the WebApp's.
func (r *WebAppReconciler) podIssue(ctx context.Context, app *v1beta1.WebApp) (*status.PodIssue, error) {
	var pods corev1.PodList
	if err := r.List(ctx, &pods, client.InNamespace(app.Namespace), client.MatchingLabels(resources.PodLabels(app))); err != nil {
		return nil, fmt.Errorf("listing pods: %w", err)
	}
	ours := pods.Items[:0]
	for _, p := range pods.Items {
		if ref := metav1.GetControllerOf(&p); ref != nil && ref.Kind == "ReplicaSet" &&
			ref.Name == app.Name+"-"+p.Labels[appsv1.DefaultDeploymentUniqueLabelKey] {
			ours = append(ours, p)
		}
	}
	return status.FindPodIssue(ours), nil
}

// podToWebApp maps a pod to the WebApp named by its instance label.
func podToWebApp(_ context.Context, pod client.Object) []reconcile.Request {
	l := pod.GetLabels()
	name := l[resources.LabelInstance]
	if name == "" || l[resources.LabelName] != resources.AppName || l[resources.LabelManagedBy] != resources.ManagedBy {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: pod.GetNamespace(), Name: name}}}
}
