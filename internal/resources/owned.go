package resources

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/webapp-operator/webapp-operator/internal/status"
)

func newUnstructured(gvk schema.GroupVersionKind) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	return u
}

// crdKind completes k, a child of kind gvk from a CRD the cluster may lack, which the operator
// handles as an unstructured object (docs/design.md, "Children"). api names the API in the
// MissingAPI problem, of reason, of a WebApp whose field needs it.
func crdKind(gvk schema.GroupVersionKind, api, field, reason string,
	k kind[*unstructured.Unstructured, runtime.ApplyConfiguration]) kind[*unstructured.Unstructured, runtime.ApplyConfiguration] {
	k.name = gvk.Kind
	k.newObj = func() *unstructured.Unstructured { return newUnstructured(gvk) }
	k.extract = extractUnstructured(k.newObj)
	k.missingAPI = func() *status.Problem {
		return status.NewProblem(reason, "%s (%s %s), which %s needs, is not installed: install its CRDs, then restart "+
			"the operator, which looks for them only when it starts", api, gvk.GroupVersion(), gvk.Kind, field)
	}
	return k
}

// extractUnstructured is client-go's Extract<Kind>, which client-go has only for built-in kinds, for
// the kinds the operator handles as unstructured objects (newObj returns an empty one): the fields
// that fieldManager applied (ownedFields), with the identity every apply carries.
func extractUnstructured(newObj func() *unstructured.Unstructured) func(*unstructured.Unstructured, string) (
	runtime.ApplyConfiguration, error) {
	return func(live *unstructured.Unstructured, fieldManager string) (runtime.ApplyConfiguration, error) {
		owned, err := ownedFields(live, fieldManager)
		if err != nil {
			return nil, err
		}
		u := newObj()
		u.Object = owned
		u.SetAPIVersion(live.GetAPIVersion())
		u.SetKind(live.GetKind())
		u.SetName(live.GetName())
		u.SetNamespace(live.GetNamespace())
		return client.ApplyConfigurationFromUnstructured(u), nil
	}
}

// ownedFields returns the fields of live that fieldManager set by server-side apply, in live's
// shape: what client-go's Extract<Kind> functions return for built-in kinds, which need the kind's
// compiled-in schema. Here the schema is the managed-fields entry itself: it is a tree of the owned
// paths (f:<field>, k:<list-map key>, v:<set value>, i:<index>) in which a leaf (an empty object)
// owns the whole value under it, as for an atomic list. Only apply operations count, as for Extract.
func ownedFields(live *unstructured.Unstructured, fieldManager string) (map[string]any, error) {
	for _, mf := range live.GetManagedFields() {
		if mf.Manager != fieldManager || mf.Operation != metav1.ManagedFieldsOperationApply || mf.Subresource != "" ||
			mf.FieldsV1 == nil {
			continue
		}
		var tree map[string]any
		if err := json.Unmarshal(mf.FieldsV1.GetRawBytes(), &tree); err != nil {
			return nil, fmt.Errorf("reading the managed fields of %s: %w", fieldManager, err)
		}
		return projectMap(live.Object, tree), nil
	}
	return map[string]any{}, nil
}

// projectMap keeps the owned fields of an object.
func projectMap(obj map[string]any, tree map[string]any) map[string]any {
	out := map[string]any{}
	for key, sub := range tree {
		name, ok := strings.CutPrefix(key, "f:")
		if !ok {
			continue
		}
		v, found := obj[name]
		if !found {
			continue
		}
		out[name] = project(v, sub)
	}
	return out
}

// project keeps the owned part of v, whose owned paths are sub.
func project(v, sub any) any {
	tree, _ := sub.(map[string]any)
	if len(withoutSelf(tree)) == 0 {
		return runtime.DeepCopyJSONValue(v)
	}
	switch v := v.(type) {
	case map[string]any:
		return projectMap(v, tree)
	case []any:
		return projectList(v, tree)
	}
	return runtime.DeepCopyJSONValue(v)
}

// projectList keeps, in live order, the owned items of a list.
func projectList(items []any, tree map[string]any) []any {
	out := []any{}
	for i, item := range items {
		for key, sub := range tree {
			if !itemMatches(key, i, item) {
				continue
			}
			out = append(out, project(item, sub))
			break
		}
	}
	return out
}

// itemMatches: the path element key (k:, v: or i:) names the i-th item of a list.
func itemMatches(key string, i int, item any) bool {
	switch {
	case strings.HasPrefix(key, "i:"):
		n, err := strconv.Atoi(key[2:])
		return err == nil && n == i
	case strings.HasPrefix(key, "v:"):
		return jsonEqual(key[2:], item)
	case strings.HasPrefix(key, "k:"):
		var keys map[string]any
		obj, ok := item.(map[string]any)
		if !ok || json.Unmarshal([]byte(key[2:]), &keys) != nil {
			return false
		}
		for k, want := range keys {
			if !jsonEqual(mustJSON(want), obj[k]) {
				return false
			}
		}
		return true
	}
	return false
}

// jsonEqual compares through JSON: the managed fields' keys decode numbers as float64, objects hold int64.
func jsonEqual(encoded string, v any) bool {
	var a, b any
	if json.Unmarshal([]byte(encoded), &a) != nil || json.Unmarshal([]byte(mustJSON(v)), &b) != nil {
		return false
	}
	return reflect.DeepEqual(a, b)
}

func mustJSON(v any) string {
	data, _ := json.Marshal(v)
	return string(data)
}

func withoutSelf(tree map[string]any) map[string]any {
	if _, ok := tree["."]; !ok {
		return tree
	}
	out := make(map[string]any, len(tree))
	for k, v := range tree {
		if k != "." {
			out[k] = v
		}
	}
	return out
}
