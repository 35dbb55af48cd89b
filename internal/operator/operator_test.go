package operator

import (
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/webapp-operator/webapp-operator/api/v1beta1"
	"github.com/webapp-operator/webapp-operator/internal/controller"
	"github.com/webapp-operator/webapp-operator/internal/resources"
)

func TestParseNamespaces(t *testing.T) {
	tests := map[string][]string{
		"":                nil, // OLM's AllNamespaces: the whole cluster
		"team-a":          {"team-a"},
		"team-a,team-b":   {"team-a", "team-b"},
		" team-a , ,b , ": {"team-a", "b"},
	}
	for in, want := range tests {
		if got := ParseNamespaces(in); !reflect.DeepEqual(got, want) {
			t.Errorf("ParseNamespaces(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCacheIsScopedToOurChildrenAndNamespaces(t *testing.T) {
	opts := cacheOptions([]string{"a", "b"}, watchedKinds(nil, true))
	if len(opts.DefaultNamespaces) != 2 {
		t.Errorf("namespaces %v, want a and b", opts.DefaultNamespaces)
	}
	ours := labels.Set{"app.kubernetes.io/managed-by": "webapp-operator"}
	foreign := labels.Set{"app.kubernetes.io/managed-by": "helm"}
	ourPod := labels.Set{"app.kubernetes.io/name": "webapp", "app.kubernetes.io/instance": "shop",
		"app.kubernetes.io/managed-by": "webapp-operator"}
	// app.kubernetes.io/name=webapp is a common label: another tool's pods may carry it
	foreignPod := labels.Set{"app.kubernetes.io/name": "webapp", "app.kubernetes.io/instance": "shop"}
	children := map[reflect.Type]bool{}
	for _, child := range resources.All {
		children[reflect.TypeOf(child.New())] = true
	}
	for obj, by := range opts.ByObject {
		want, notWant := ours, foreign
		switch obj := obj.(type) {
		case *corev1.Pod:
			want, notWant = ourPod, foreignPod
		case *metav1.PartialObjectMetadata:
			// the ConfigMaps and Secrets the pods read: all of them, their identity alone
			if by.Label != nil || by.Transform == nil {
				t.Errorf("%s metadata: selector %v, transform %v; want every one, trimmed", obj.Kind, by.Label, by.Transform != nil)
			}
			continue
		case *unstructured.Unstructured:
			if obj.GetKind() != "WebApp" {
				break // a child handled as unstructured (the HTTPRoute)
			}
			// WebApps: all of them, trimmed
			if by.Label != nil || by.Transform == nil {
				t.Errorf("WebApps: selector %v, transform %v; want every WebApp, trimmed", by.Label, by.Transform != nil)
			}
			continue
		default:
			if !children[reflect.TypeOf(obj)] {
				t.Errorf("unexpected cache scoping for %T", obj)
			}
		}
		if by.Transform == nil {
			t.Errorf("%T: no transform; every cached kind is trimmed", obj)
		}
		if by.Label == nil || !by.Label.Matches(want) || by.Label.Matches(notWant) || by.Label.Matches(labels.Set{}) {
			t.Errorf("%T cache selector %v does not select exactly our objects", obj, by.Label)
		}
	}
	if len(opts.ByObject) != 4+len(resources.All) {
		t.Errorf("want WebApps, Pods, ConfigMaps, Secrets and each kind of child configured, got %d kinds", len(opts.ByObject))
	}
	if all := cacheOptions(nil, watchedKinds(nil, true)); all.DefaultNamespaces != nil {
		t.Errorf("no namespaces must mean the whole cluster, got %v", all.DefaultNamespaces)
	}
	// a kind the cluster does not serve must not be cached: its informer would fail to list forever
	for obj := range cacheOptions(nil, watchedKinds(map[string]bool{"HTTPRoute": true}, true)).ByObject {
		if u, ok := obj.(*unstructured.Unstructured); ok && u.GetKind() == "HTTPRoute" {
			t.Errorf("the HTTPRoute is cached although the cluster does not serve it")
		}
	}
	// without Secret rollouts the operator needs no Secret permission: no informer of them
	for obj := range cacheOptions(nil, watchedKinds(nil, false)).ByObject {
		if m, ok := obj.(*metav1.PartialObjectMetadata); ok && m.Kind == "Secret" {
			t.Errorf("Secrets are cached although Secret rollouts are off")
		}
	}
}

func TestTrimPodKeepsWhatTheOperatorReads(t *testing.T) {
	now := metav1.Now()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", UID: "u", ResourceVersion: "7",
			Labels: map[string]string{"a": "b"}, Annotations: map[string]string{"big": "x"}, DeletionTimestamp: &now,
			OwnerReferences: []metav1.OwnerReference{{Kind: "ReplicaSet", Name: "rs"}},
			ManagedFields:   []metav1.ManagedFieldsEntry{{Manager: "kubelet"}}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "i"}}},
		Status: corev1.PodStatus{Phase: corev1.PodPending, PodIP: "10.0.0.1",
			Conditions: []corev1.PodCondition{
				{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable", Message: "no"},
				{Type: corev1.PodReady, Status: corev1.ConditionFalse}},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Image: "i", ImageID: "id",
				State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ErrImagePull", Message: "m"}}}}},
	}
	got, err := trimPod(pod)
	if err != nil {
		t.Fatal(err)
	}
	p := got.(*corev1.Pod)
	want := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", UID: "u", ResourceVersion: "7",
			Labels: map[string]string{"a": "b"}, DeletionTimestamp: &now,
			OwnerReferences: []metav1.OwnerReference{{Kind: "ReplicaSet", Name: "rs"}}},
		Status: corev1.PodStatus{Phase: corev1.PodPending,
			Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable", Message: "no"}},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "app",
				State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ErrImagePull", Message: "m"}}}}},
	}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("trimPod:\n got %+v\nwant %+v", p, want)
	}
}

// A metadata-only watch still sends a Secret's annotations, and kubectl's last-applied annotation
// holds its data: the cache keeps the identity alone.
func TestTrimToIdentityKeepsNoSecretData(t *testing.T) {
	meta := metav1.ObjectMeta{Name: "s", Namespace: "ns", UID: "u", ResourceVersion: "7",
		Labels:          map[string]string{"a": "b"},
		Annotations:     map[string]string{corev1.LastAppliedConfigAnnotation: `{"data":{"token":"czNjcmV0"}}`},
		ManagedFields:   []metav1.ManagedFieldsEntry{{Manager: "kubectl"}},
		OwnerReferences: []metav1.OwnerReference{{Kind: "X", Name: "x"}}}
	identity := metav1.ObjectMeta{Name: "s", Namespace: "ns", UID: "u", ResourceVersion: "7"}
	tm := metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"}
	for _, tc := range []struct{ in, want any }{
		{&metav1.PartialObjectMetadata{TypeMeta: tm, ObjectMeta: meta}, &metav1.PartialObjectMetadata{TypeMeta: tm, ObjectMeta: identity}},
		{&corev1.Secret{ObjectMeta: meta, Data: map[string][]byte{"token": []byte("s3cret")}}, &corev1.Secret{ObjectMeta: identity}},
		{&corev1.ConfigMap{ObjectMeta: meta, Data: map[string]string{"k": "v"}}, &corev1.ConfigMap{ObjectMeta: identity}},
	} {
		got, err := trimToIdentity(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("trimToIdentity(%T):\n got %+v\nwant %+v", tc.in, got, tc.want)
		}
	}
}

// The cache keeps of a child a digest of the operator's own managed fields, in place of every managed
// field: the other managers' entries, which nothing reads, go, and the no-op check reads the same
// as from the whole object.
func TestChildTransformKeepsADigestOfTheOperatorsFields(t *testing.T) {
	entry := func(manager string, op metav1.ManagedFieldsOperationType, sub, fields string) metav1.ManagedFieldsEntry {
		return metav1.ManagedFieldsEntry{Manager: manager, Operation: op, APIVersion: "apps/v1", Subresource: sub,
			FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(fields)}
	}
	live := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "team-a", ManagedFields: []metav1.ManagedFieldsEntry{
			entry("kube-controller-manager", metav1.ManagedFieldsOperationUpdate, "status",
				`{"f:status":{"f:replicas":{},"f:conditions":{}}}`),
			entry(resources.FieldOwner, metav1.ManagedFieldsOperationApply, "",
				`{"f:spec":{"f:replicas":{},"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{".":{},"f:image":{},"f:name":{}}}}}}}`),
			entry(resources.HandoverFieldOwner, metav1.ManagedFieldsOperationApply, "", `{"f:spec":{"f:replicas":{}}}`),
			entry("kubectl-edit", metav1.ManagedFieldsOperationUpdate, "", `{"f:spec":{"f:paused":{}}}`),
		}},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](2), Paused: true, Template: corev1.PodTemplateSpec{
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "shop:v1"}}}}},
		Status: appsv1.DeploymentStatus{Replicas: 2},
	}
	owned, err := resources.Deployment.Owned(live.DeepCopy())
	if err != nil {
		t.Fatal(err)
	}
	var transform toolscache.TransformFunc
	for _, k := range watchedKinds(nil, false) {
		if _, ok := k.Object.(*appsv1.Deployment); ok {
			transform = k.cache.Transform
		}
	}
	got, err := transform(live.DeepCopy())
	if err != nil {
		t.Fatal(err)
	}
	d := got.(*appsv1.Deployment)
	if len(d.ManagedFields) != 1 || !resources.Trimmed(d) {
		t.Errorf("managed fields after the transform: %+v, want the digest alone", d.ManagedFields)
	}
	if !resources.Deployment.UpToDate(d, owned) {
		t.Errorf("the cached Deployment is not up to date with its own owned fields")
	}
	if !d.Spec.Paused || d.Status.Replicas != 2 || d.Spec.Template.Spec.Containers[0].Image != "shop:v1" {
		t.Errorf("the transform dropped what the operator reads: %+v", d)
	}
}

// A WebApp is cached as the hub's Go type (v1beta1), without its managed fields and kubectl's
// last-applied annotation; one that does not decode stays unstructured, trimmed the same way.
func TestTrimWebApp(t *testing.T) {
	webApp := func(replicas any) *unstructured.Unstructured {
		u := controller.NewWebAppObject()
		u.SetNamespace("team-a")
		u.SetName("shop")
		u.SetAnnotations(map[string]string{corev1.LastAppliedConfigAnnotation: `{"spec":{}}`, "team": "a"})
		u.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply}})
		u.Object["spec"] = map[string]any{"container": map[string]any{"image": "shop:v1"}, "replicas": replicas}
		return u
	}
	got, err := trimWebApp(webApp(int64(2)))
	if err != nil {
		t.Fatal(err)
	}
	app, ok := got.(*v1beta1.WebApp)
	if !ok {
		t.Fatalf("a WebApp that decodes is cached as %T, want the hub's Go type", got)
	}
	if app.ManagedFields != nil || !reflect.DeepEqual(app.Annotations, map[string]string{"team": "a"}) ||
		*app.Spec.Replicas != 2 || app.Spec.Container.Image != "shop:v1" {
		t.Errorf("cached as %+v", app.ObjectMeta)
	}
	if again, _ := trimWebApp(app); again != app {
		t.Error("a WebApp already in its cached form is not kept as it is")
	}
	got, err = trimWebApp(webApp("many"))
	if err != nil {
		t.Fatal(err)
	}
	u, ok := got.(*unstructured.Unstructured)
	if !ok {
		t.Fatalf("an undecodable WebApp is cached as %T, want it unstructured", got)
	}
	if u.GetManagedFields() != nil || !reflect.DeepEqual(u.GetAnnotations(), map[string]string{"team": "a"}) {
		t.Errorf("an undecodable WebApp is cached with %+v, %v", u.GetManagedFields(), u.GetAnnotations())
	}
}
