package resources

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// What the cache keeps of a child (Child.Trim). The no-op check compares the fields our field manager
// owns with the desired ones; it needs no more of them than a digest. So the cache keeps, in place of
// the child's managed fields, one entry that holds the digest of the owned fields, computed when the
// child enters the cache, and of the object itself only what some reader reads (the kind's slim).
// That is most of a child's memory: a Deployment's pod template and the managed fields that describe it.

// digestOperation marks the entry Trim leaves in a child's managed fields. The API server accepts
// only Apply and Update there, so no object it serves carries one, and a child read from the API
// server is never taken for a trimmed one.
const digestOperation metav1.ManagedFieldsOperationType = "Digest"

// ownedDigest is what the digest entry holds.
type ownedDigest struct {
	// Sum is digestOf the owned fields.
	Sum string `json:"sum"`
	// HandsOver: the owned fields include what the kind hands over (kind.handsOver).
	HandsOver bool `json:"handsOver,omitempty"`
}

// ErrLiveTemplateNeeded says that deciding a Deployment needs the pod template that our field manager
// owns on the live one, which the cache does not keep: the caller reads the Deployment from the API
// server and decides again. Only a held or pinned template needs it (DesiredDeployment).
var ErrLiveTemplateNeeded = errors.New("deciding the Deployment needs its live pod template, which the cache does not keep")

// digestOf is the SHA-256 of ac as the kind's Go type T reads it. Apply configurations omit what is
// unset, json sorts map keys, and a quantity marshals to its canonical form, as the API server stores
// it (1000m and 1 alike). Read through T, a zero that T drops (minReadySeconds: 0, readOnly: false)
// is the field left unset, as it is for the API server: so the desired object that sets such a zero
// and the owned fields extracted from a live object, where T has dropped it, agree.
func (k kind[T, AC]) digestOf(ac runtime.ApplyConfiguration) (string, error) {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ac)
	if err != nil {
		return "", err
	}
	t := k.newObj()
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u, t); err != nil {
		return "", err
	}
	data, err := json.Marshal(t)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}

// digestEntry is the managed-fields entry Trim leaves on a child: d, and when our field manager
// last applied the child (AppliedAt).
func digestEntry(d ownedDigest, live metav1.Object) (metav1.ManagedFieldsEntry, error) {
	raw, err := json.Marshal(d)
	if err != nil {
		return metav1.ManagedFieldsEntry{}, err
	}
	return metav1.ManagedFieldsEntry{Manager: FieldOwner, Operation: digestOperation, Time: AppliedAt(live),
		FieldsV1: metav1.NewFieldsV1(string(raw))}, nil
}

// cachedDigest reads the digest Trim left on obj; false when obj is not trimmed.
func cachedDigest(obj metav1.Object) (ownedDigest, bool) {
	for _, mf := range obj.GetManagedFields() {
		if mf.Manager != FieldOwner || mf.Operation != digestOperation || mf.FieldsV1 == nil {
			continue
		}
		var d ownedDigest
		if json.Unmarshal(mf.FieldsV1.GetRawBytes(), &d) != nil || d.Sum == "" {
			return ownedDigest{}, false
		}
		return d, true
	}
	return ownedDigest{}, false
}

// Trimmed reports whether obj is a child as the cache keeps it: with a digest of the owned fields
// in place of them.
func Trimmed(obj metav1.Object) bool {
	_, ok := cachedDigest(obj)
	return ok
}

// AppliedAt is when our field manager last applied obj, whole or trimmed; nil when unknown.
func AppliedAt(obj metav1.Object) *metav1.Time {
	for _, mf := range obj.GetManagedFields() {
		if mf.Manager == FieldOwner && (mf.Operation == metav1.ManagedFieldsOperationApply || mf.Operation == digestOperation) &&
			mf.Time != nil {
			return mf.Time
		}
	}
	return nil
}

// only is the entries of m under keys, nil when there are none: a map of its own, so that the
// decoded one, with every other entry, can be freed.
func only(m map[string]string, keys ...string) map[string]string {
	var out map[string]string
	for _, k := range keys {
		if v, ok := m[k]; ok {
			if out == nil {
				out = make(map[string]string, len(keys))
			}
			out[k] = v
		}
	}
	return out
}

// identity is the metadata every cached child keeps: what reads it by name, tells whether it is
// ours (IsControlledBy) and going away, and deletes it on a precondition (prune).
func identity(m *metav1.ObjectMeta) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: m.Name, Namespace: m.Namespace, UID: m.UID, ResourceVersion: m.ResourceVersion,
		Generation: m.Generation, DeletionTimestamp: m.DeletionTimestamp, OwnerReferences: m.OwnerReferences}
}
