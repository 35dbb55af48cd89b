package resources

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestOwnedFields(t *testing.T) {
	live := map[string]any{
		"metadata": map[string]any{
			"name": "shop", "labels": map[string]any{"ours": "1", "theirs": "2"},
			"ownerReferences": []any{
				map[string]any{"uid": "u1", "kind": "WebApp", "name": "shop"},
				map[string]any{"uid": "u2", "kind": "Other", "name": "x"},
			},
		},
		"spec": map[string]any{
			"hostnames":  []any{"a.example.com", "b.example.com"},
			"parentRefs": []any{map[string]any{"name": "gw", "group": "gateway.networking.k8s.io"}},
			"finalizers": []any{"ours", "theirs"},
			"ports":      []any{map[string]any{"port": int64(80), "name": "http"}, map[string]any{"port": int64(81)}},
			"order":      []any{"first", "second"},
			"extra":      "someone else's",
		},
		"status": map[string]any{"parents": []any{}},
	}
	entry := func(manager string, op metav1.ManagedFieldsOperationType, fields string) metav1.ManagedFieldsEntry {
		return metav1.ManagedFieldsEntry{Manager: manager, Operation: op, FieldsType: "FieldsV1",
			FieldsV1: metav1.NewFieldsV1(fields)}
	}
	tests := []struct {
		name    string
		entries []metav1.ManagedFieldsEntry
		want    map[string]any
	}{
		{name: "no entry of ours: nothing", entries: []metav1.ManagedFieldsEntry{
			entry("kubectl", metav1.ManagedFieldsOperationApply, `{"f:spec":{"f:extra":{}}}`)}, want: map[string]any{}},
		{name: "an update of ours does not count: only what we apply", entries: []metav1.ManagedFieldsEntry{
			entry(FieldOwner, metav1.ManagedFieldsOperationUpdate, `{"f:spec":{"f:extra":{}}}`)}, want: map[string]any{}},
		{name: "a leaf owns the whole value: an atomic list, with what the server defaulted in it",
			entries: []metav1.ManagedFieldsEntry{entry(FieldOwner, metav1.ManagedFieldsOperationApply,
				`{"f:spec":{"f:hostnames":{},"f:parentRefs":{}}}`)},
			want: map[string]any{"spec": map[string]any{
				"hostnames":  []any{"a.example.com", "b.example.com"},
				"parentRefs": []any{map[string]any{"name": "gw", "group": "gateway.networking.k8s.io"}}}}},
		{name: "map keys, list-map keys (numbers too), set values and indexes: only those items, in live order",
			entries: []metav1.ManagedFieldsEntry{entry(FieldOwner, metav1.ManagedFieldsOperationApply, `{
				"f:metadata":{"f:labels":{"f:ours":{}},"f:ownerReferences":{"k:{\"uid\":\"u1\"}":{".":{},"f:kind":{},"f:uid":{}}}},
				"f:spec":{"f:finalizers":{"v:\"theirs\"":{}},"f:ports":{"k:{\"port\":81}":{}},"f:order":{"i:1":{}},
				"f:gone":{}}}`)},
			want: map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"ours": "1"},
					"ownerReferences": []any{map[string]any{"uid": "u1", "kind": "WebApp"}}},
				"spec": map[string]any{"finalizers": []any{"theirs"}, "ports": []any{map[string]any{"port": int64(81)}},
					"order": []any{"second"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := &unstructured.Unstructured{Object: live}
			u.SetManagedFields(tt.entries)
			got, err := ownedFields(u, FieldOwner)
			if err != nil {
				t.Fatal(err)
			}
			expect(t, "owned", got, tt.want)
		})
	}
}
