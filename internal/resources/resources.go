// Package resources describes the objects the operator creates for a WebApp, one file per kind
// (Knative's resources/ pattern). Each file holds everything about its kind: how a WebApp renders to
// it, which of its fields the operator owns, how it reads as ready, its RBAC markers. The reconciler
// and the manager only walk All: adding a kind of child is one new file and one line in All.
//
// Every function here is pure: the same WebApp always renders the same apply configurations, which
// is what lets the reconciler skip a write when the live object already carries exactly these fields.
// Apply configurations (rather than typed objects) are used because server-side apply needs to send
// only the fields we own; a typed object would also send zero values such as `strategy: {}`.
package resources

import (
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/webapp-operator/webapp-operator/api/v1beta1"
	"github.com/webapp-operator/webapp-operator/internal/served"
	"github.com/webapp-operator/webapp-operator/internal/status"
)

// All are the kinds of child a WebApp has, in the order the reconciler applies them: the workload,
// the Deployment, first (once every child is ready, its Health speaks for the WebApp), then Children.
var All = append([]Child{Deployment}, Children...)

// Children are the kinds of child besides the Deployment, rendered from the WebApp alone, in order.
// HTTPRoute and ServiceMonitor come last: they are the children whose API a cluster may lack (see
// Child.MissingAPI), and a child that cannot be applied holds back those after it. The ServiceMonitor
// is the very last, as the one the app can best run without, and after the Service it selects.
var Children = []Child{Service, Ingress, PodDisruptionBudget, HorizontalPodAutoscaler, NetworkPolicy, HTTPRoute, ServiceMonitor}

// Child is one kind of object the operator creates for a WebApp, named like the WebApp.
type Child interface {
	// Kind names the child in messages, events and logs ("Deployment").
	Kind() string
	// New returns an empty object of the kind, for the cache, the watch and reads.
	New() client.Object
	// Desired renders app's object. A nil configuration with a nil error means that app wants no
	// such object.
	Desired(app *v1beta1.WebApp) (runtime.ApplyConfiguration, error)
	// Owned extracts from live, read whole from the API server, the fields that FieldOwner manages,
	// in the shape of Desired.
	Owned(live client.Object) (runtime.ApplyConfiguration, error)
	// UpToDate reports whether the fields that FieldOwner manages on live, as the cache keeps it
	// (Trim) or whole, are exactly desired: then nothing needs to be applied.
	UpToDate(live client.Object, desired runtime.ApplyConfiguration) bool
	// Trim is the cache's transform of the kind: it keeps of a child what the operator reads, and a
	// digest of the fields that FieldOwner manages (UpToDate) in place of every managed field. An
	// object that is not of the kind, or is trimmed already, is returned as it is.
	Trim(obj any) (any, error)
	// Health reads live, which app controls.
	Health(app *v1beta1.WebApp, live client.Object) status.Health
	// CacheSelector selects the objects of the kind the operator caches and watches.
	CacheSelector() labels.Selector
	// Handover returns what to apply under HandoverFieldOwner before app's desired object is applied
	// over live: the fields that FieldOwner owns on live and now leaves to another controller, with
	// their live values, so that they keep them. Nil when there are none.
	Handover(app *v1beta1.WebApp, live client.Object) (runtime.ApplyConfiguration, error)
	// MissingAPI is the problem of a WebApp that asks for the child in a cluster that does not serve
	// its kind, for a kind that comes from a CRD the cluster may lack (the Gateway API's, the Prometheus
	// Operator's); nil for the
	// built-in kinds, which every cluster serves. The operator looks such kinds up when it starts and
	// neither caches nor watches those the cluster does not serve.
	MissingAPI() *status.Problem
}

// kind implements Child for a typed object T and its apply configuration AC.
type kind[T client.Object, AC runtime.ApplyConfiguration] struct {
	name string
	// newObj returns an empty T.
	newObj func() T
	// wanted reports whether app wants the object at all; nil means always.
	wanted func(*v1beta1.WebApp) bool
	render func(*v1beta1.WebApp) (AC, error)
	// extract is client-go's Extract<Kind>: the fields a field manager owns.
	extract func(T, string) (AC, error)
	// health reads the live object; nil means "ready as soon as it exists".
	health func(*v1beta1.WebApp, T) status.Health
	// handover returns the fields to hand over before applying (see Child.Handover), and whether
	// there are any; nil means never. It is called only when handsOver says that FieldOwner owns them.
	handover func(*v1beta1.WebApp, T) (AC, bool, error)
	// handsOver reports whether the owned fields include those that handover hands over.
	handsOver func(AC) bool
	// slim is what the cache keeps of a live T besides the digest of its owned fields: what Health,
	// handover and the reconciler read. Nil keeps the whole object.
	slim func(T) T
	// missingAPI: see Child.MissingAPI; nil for a built-in kind.
	missingAPI func() *status.Problem
}

func (k kind[T, AC]) Kind() string       { return k.name }
func (k kind[T, AC]) New() client.Object { return k.newObj() }

func (k kind[T, AC]) Desired(app *v1beta1.WebApp) (runtime.ApplyConfiguration, error) {
	if k.wanted != nil && !k.wanted(app) {
		return nil, nil
	}
	return k.render(app)
}

func (k kind[T, AC]) Owned(live client.Object) (runtime.ApplyConfiguration, error) {
	t, ok := live.(T)
	if !ok {
		return nil, fmt.Errorf("%s: got a %T", k.name, live)
	}
	return k.extract(t, FieldOwner)
}

func (k kind[T, AC]) UpToDate(live client.Object, desired runtime.ApplyConfiguration) bool {
	want, err := k.digestOf(desired)
	if err != nil {
		return false
	}
	if d, ok := cachedDigest(live); ok {
		return d.Sum == want
	}
	owned, err := k.Owned(live)
	if err != nil {
		return false
	}
	have, err := k.digestOf(owned)
	return err == nil && have == want
}

func (k kind[T, AC]) Trim(obj any) (any, error) {
	t, ok := obj.(T)
	if !ok || Trimmed(t) {
		return obj, nil
	}
	d, err := k.digest(t)
	if err != nil {
		// Kept whole, but for the other managers' fields: UpToDate then extracts the owned ones.
		t.SetManagedFields(ownEntries(t.GetManagedFields()))
		return t, nil
	}
	if k.slim != nil {
		t = k.slim(t)
	}
	t.SetManagedFields([]metav1.ManagedFieldsEntry{d})
	return t, nil
}

// digest is the entry that Trim leaves of live's managed fields.
func (k kind[T, AC]) digest(live T) (metav1.ManagedFieldsEntry, error) {
	owned, err := k.extract(live, FieldOwner)
	if err != nil {
		return metav1.ManagedFieldsEntry{}, err
	}
	sum, err := k.digestOf(owned)
	if err != nil {
		return metav1.ManagedFieldsEntry{}, err
	}
	return digestEntry(ownedDigest{Sum: sum, HandsOver: k.handsOver != nil && k.handsOver(owned)}, live)
}

// ownEntries is a new slice of FieldOwner's entries: one that shared the decoded array would keep
// the dropped entries alive.
func ownEntries(in []metav1.ManagedFieldsEntry) []metav1.ManagedFieldsEntry {
	var kept []metav1.ManagedFieldsEntry
	for _, mf := range in {
		if mf.Manager == FieldOwner {
			kept = append(kept, mf)
		}
	}
	return kept
}

func (k kind[T, AC]) Health(app *v1beta1.WebApp, live client.Object) status.Health {
	t, ok := live.(T)
	if !ok || k.health == nil {
		return status.Health{Kind: k.name, Ready: ok}
	}
	h := k.health(app, t)
	h.Kind = k.name
	return h
}

func (k kind[T, AC]) Handover(app *v1beta1.WebApp, live client.Object) (runtime.ApplyConfiguration, error) {
	t, ok := live.(T)
	if !ok || k.handover == nil {
		return nil, nil
	}
	if owns, err := k.ownsHandedOver(t); err != nil || !owns {
		return nil, err
	}
	ac, some, err := k.handover(app, t)
	if err != nil || !some {
		return nil, err
	}
	return ac, nil
}

// ownsHandedOver reports whether FieldOwner owns on live what handover hands over: as the digest
// recorded it on a trimmed object, from the managed fields on a whole one.
func (k kind[T, AC]) ownsHandedOver(live T) (bool, error) {
	if k.handsOver == nil {
		return true, nil
	}
	if d, ok := cachedDigest(live); ok {
		return d.HandsOver, nil
	}
	owned, err := k.extract(live, FieldOwner)
	if err != nil {
		return false, err
	}
	return k.handsOver(owned), nil
}

func (k kind[T, AC]) MissingAPI() *status.Problem {
	if k.missingAPI == nil {
		return nil
	}
	return k.missingAPI()
}

// CacheSelector: every child carries the managed-by label, so the operator's memory does not grow
// with the unrelated objects of the cluster.
func (k kind[T, AC]) CacheSelector() labels.Selector {
	return labels.SelectorFromSet(labels.Set{LabelManagedBy: ManagedBy})
}

const (
	// FieldOwner is the single server-side apply field manager of every object the operator writes.
	FieldOwner = "webapp-operator"
	// HandoverFieldOwner holds, for a moment, the fields the operator hands over to another
	// controller (a Deployment's replicas, to the autoscaler): see Child.Handover.
	HandoverFieldOwner = "webapp-operator-handover"

	// LabelName, LabelInstance and LabelManagedBy are the standard app.kubernetes.io labels.
	// Name and instance form the pod selector, which must never change for the life of a
	// Deployment, so it never contains the image or anything else that varies.
	LabelName      = "app.kubernetes.io/name"
	LabelInstance  = "app.kubernetes.io/instance"
	LabelManagedBy = "app.kubernetes.io/managed-by"

	// AppName is the value of app.kubernetes.io/name on every child object.
	AppName = "webapp"
	// ManagedBy is the value of app.kubernetes.io/managed-by; the operator caches only objects carrying it.
	ManagedBy = "webapp-operator"
)

// SelectorLabels are the labels that select the pods of app. They are stable across every spec change.
func SelectorLabels(app *v1beta1.WebApp) map[string]string {
	return map[string]string{LabelName: AppName, LabelInstance: app.Name}
}

// Selector is SelectorLabels in string form, as the scale subresource wants it.
func Selector(app *v1beta1.WebApp) string {
	return labels.SelectorFromSet(SelectorLabels(app)).String()
}

// objectLabels are the labels of the child objects themselves.
func objectLabels(app *v1beta1.WebApp) map[string]string {
	l := SelectorLabels(app)
	l[LabelManagedBy] = ManagedBy
	return l
}

// ownerReference makes app the controller of a child, so the garbage collector deletes the
// child with the WebApp and so a child is recognisably ours. It names the WebApp in the version
// the API server serves the operator (package served), not in the hub's.
func ownerReference(app *v1beta1.WebApp) *metav1ac.OwnerReferenceApplyConfiguration {
	return metav1ac.OwnerReference().
		WithAPIVersion(served.OwnerAPIVersion).
		WithKind(served.Kind).
		WithName(app.Name).
		WithUID(app.UID).
		WithController(true).
		WithBlockOwnerDeletion(true)
}

// convert copies a core/v1 value into its apply configuration. Both share one JSON shape and the
// typed values use omitempty, so the result holds exactly the fields the user set.
func convert(in, out any) error {
	data, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, out)
}
