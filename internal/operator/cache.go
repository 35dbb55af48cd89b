package operator

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/webapp-operator/webapp-operator/internal/controller"
	"github.com/webapp-operator/webapp-operator/internal/resources"
)

// watched is one kind the operator caches and its controller watches. This table builds the cache's
// options, the informers the readiness probe waits for, and the controller's watches, so a new kind
// is one entry.
type watched struct {
	controller.Watched
	// cache scopes and trims what the cache holds of the kind.
	cache cache.ByObject
}

// watchedKinds are the WebApps, their pods, the ConfigMaps and (when secrets) Secrets the pods read, and each kind of
// child the cluster serves (a kind it does not serve, by Child.Kind in unserved, is left out: its
// informer would fail to list forever).
//
// The cache keeps only the children and pods that carry our labels, so the operator's memory does not
// grow with unrelated workloads. Pods and WebApps are kept with the fields the operator reads alone;
// the children with what their readers read and a digest of the fields the operator owns, which the
// no-op check compares (resources.Child.Trim).
func watchedKinds(unserved map[string]bool, secrets bool) []watched {
	kinds := []watched{
		{controller.Watched{Object: controller.NewWebAppObject(), How: controller.WatchWebApp},
			cache.ByObject{Transform: trimWebApp}},
		{controller.Watched{Object: &corev1.Pod{}, How: controller.WatchPods},
			cache.ByObject{Label: controller.PodCacheSelector(), Transform: trimPod}},
	}
	// every ConfigMap (and Secret, when secrets) of the namespaces, as its identity alone (controller/config.go)
	for _, m := range controller.ConfigMetadata(secrets) {
		kinds = append(kinds, watched{controller.Watched{Object: m, How: controller.WatchConfig},
			cache.ByObject{Transform: trimToIdentity}})
	}
	for _, child := range resources.All {
		if !unserved[child.Kind()] {
			kinds = append(kinds, watched{controller.Watched{Object: child.New(), How: controller.WatchOwned},
				cache.ByObject{Label: child.CacheSelector(), Transform: child.Trim}})
		}
	}
	return kinds
}

// cacheOptions scope the cache to the watched namespaces and to what kinds says of each kind.
func cacheOptions(namespaces []string, kinds []watched) cache.Options {
	opts := cache.Options{ByObject: map[client.Object]cache.ByObject{}}
	for _, k := range kinds {
		opts.ByObject[k.Object] = k.cache
	}
	if len(namespaces) > 0 {
		opts.DefaultNamespaces = map[string]cache.Config{}
		for _, ns := range namespaces {
			opts.DefaultNamespaces[ns] = cache.Config{}
		}
	}
	return opts
}

// trimToIdentity keeps of a ConfigMap or a Secret its name, UID and resourceVersion: what tells the
// operator that its data may have changed. A metadata-only watch still sends the labels, the
// annotations and the managed fields; the annotations can be large, and kubectl's last-applied
// annotation of a Secret holds its data, so none of it is kept. A typed ConfigMap or Secret (which the
// operator never reads through the cache) loses its data the same way: Secret data is never cached.
func trimToIdentity(obj any) (any, error) {
	identity := func(m metav1.ObjectMeta) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: m.Name, Namespace: m.Namespace, UID: m.UID, ResourceVersion: m.ResourceVersion}
	}
	switch o := obj.(type) {
	case *metav1.PartialObjectMetadata:
		return &metav1.PartialObjectMetadata{TypeMeta: o.TypeMeta, ObjectMeta: identity(o.ObjectMeta)}, nil
	case *corev1.Secret:
		return &corev1.Secret{TypeMeta: o.TypeMeta, ObjectMeta: identity(o.ObjectMeta)}, nil
	case *corev1.ConfigMap:
		return &corev1.ConfigMap{TypeMeta: o.TypeMeta, ObjectMeta: identity(o.ObjectMeta)}, nil
	}
	return obj, nil
}

// trimPod keeps what the operator reads of a pod: its identity, labels and owners (to map it to its
// WebApp), whether it is going away, and its scheduling condition and container states (to say why
// it cannot become ready).
func trimPod(obj any) (any, error) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return obj, nil
	}
	out := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: pod.Name, Namespace: pod.Namespace, UID: pod.UID, ResourceVersion: pod.ResourceVersion,
			Labels: pod.Labels, OwnerReferences: pod.OwnerReferences, DeletionTimestamp: pod.DeletionTimestamp,
		},
		Status: corev1.PodStatus{Phase: pod.Status.Phase},
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled {
			out.Status.Conditions = append(out.Status.Conditions, corev1.PodCondition{
				Type: c.Type, Status: c.Status, Reason: c.Reason, Message: c.Message})
		}
	}
	out.Status.ContainerStatuses = trimContainerStatuses(pod.Status.ContainerStatuses)
	out.Status.InitContainerStatuses = trimContainerStatuses(pod.Status.InitContainerStatuses)
	return out, nil
}

func trimContainerStatuses(in []corev1.ContainerStatus) []corev1.ContainerStatus {
	if len(in) == 0 {
		return nil
	}
	out := make([]corev1.ContainerStatus, len(in))
	for i, cs := range in {
		out[i] = corev1.ContainerStatus{Name: cs.Name, Ready: cs.Ready, RestartCount: cs.RestartCount,
			State: corev1.ContainerState{Waiting: cs.State.Waiting, Terminated: cs.State.Terminated}}
	}
	return out
}

// trimWebApp drops a WebApp's managed fields and kubectl's last-applied annotation (the operator reads
// neither, and they are often larger than the spec), and keeps it as its Go type when it decodes
// (controller.CacheForm).
func trimWebApp(obj any) (any, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return obj, nil // a deletion's last known state, or already trimmed
	}
	u.SetManagedFields(nil)
	if a := u.GetAnnotations(); a != nil {
		if _, found := a[corev1.LastAppliedConfigAnnotation]; found {
			delete(a, corev1.LastAppliedConfigAnnotation)
			u.SetAnnotations(a)
		}
	}
	return controller.CacheForm(u), nil
}
