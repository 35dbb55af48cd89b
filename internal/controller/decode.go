package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/webapp-operator/webapp-operator/api/v1beta1"
	"github.com/webapp-operator/webapp-operator/internal/served"
	"github.com/webapp-operator/webapp-operator/internal/status"
)

// WebApps are decoded one by one, so that one the Go types cannot hold fails only itself
// (docs/design.md, Undecodable WebApps).

// NewWebAppObject returns an empty WebApp in the form the operator lists and watches it: unstructured,
// in the version the API server serves it (package served).
func NewWebAppObject() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(served.GroupVersion.WithKind(served.Kind))
	return u
}

// decode converts a cached WebApp to the hub, once: the cache keeps what it returns, and every pass,
// the renderer, status and metrics read that. Its error names the first field that does not decode.
func decode(u *unstructured.Unstructured) (*v1beta1.WebApp, error) {
	if spec, version, t, ok := served.Undecodable(u.Object); ok {
		if path, fieldErr := undecodableField(spec, t, "spec"); path != "" {
			return nil, fmt.Errorf("%s: %v (in %s, where the WebApp reads as written)", path, fieldErr, version)
		}
		return nil, fmt.Errorf("spec: does not convert from %s (the WebApp reads as written there)", version)
	}
	app, err := served.Decode(u.Object)
	if err != nil {
		if path, fieldErr := undecodableField(u.Object["spec"], served.SpecType, "spec"); path != "" {
			return nil, fmt.Errorf("%s: %v", path, fieldErr)
		}
		return nil, err
	}
	return app, nil
}

// undecodableField finds the first field (in a stable order) of value that does not decode into a
// Go value of type t, and returns its path and the decoder's error.
func undecodableField(value any, t reflect.Type, path string) (string, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if value == nil {
		return "", nil
	}
	if _, custom := reflect.New(t).Interface().(json.Unmarshaler); custom || t.Kind() != reflect.Struct &&
		t.Kind() != reflect.Slice && t.Kind() != reflect.Map {
		return decodeLeaf(value, t, path)
	}
	switch t.Kind() {
	case reflect.Struct:
		m, ok := value.(map[string]any)
		if !ok {
			return decodeLeaf(value, t, path)
		}
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			if p, err := undecodableField(m[name], f.Type, path+"."+name); p != "" {
				return p, err
			}
		}
	case reflect.Slice:
		items, ok := value.([]any)
		if !ok {
			return decodeLeaf(value, t, path)
		}
		for i, item := range items {
			if p, err := undecodableField(item, t.Elem(), path+"["+strconv.Itoa(i)+"]"); p != "" {
				return p, err
			}
		}
	case reflect.Map:
		m, ok := value.(map[string]any)
		if !ok {
			return decodeLeaf(value, t, path)
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if p, err := undecodableField(m[k], t.Elem(), path+"["+strconv.Quote(k)+"]"); p != "" {
				return p, err
			}
		}
	}
	return "", nil
}

func decodeLeaf(value any, t reflect.Type, path string) (string, error) {
	data, err := json.Marshal(value)
	if err == nil {
		err = json.Unmarshal(data, reflect.New(t).Interface())
	}
	if err != nil {
		return path, err
	}
	return "", nil
}

// reportUndecodable reports a WebApp the operator cannot decode as Stalled with reason InvalidSpec,
// naming the field, without touching its children. If even that cannot be written, the log names it.
func (r *WebAppReconciler) reportUndecodable(ctx context.Context, u *unstructured.Unstructured, decodeErr error) (ctrl.Result, error) {
	log := logf.FromContext(ctx)
	app := undecodableStub(u) // enough for events and status
	problem := status.NewProblem(status.ReasonInvalidSpec, "%v; the WebApp was admitted by an earlier CRD that lacked the rule for this field: "+
		"correct the field, and the operator reconciles it again", decodeErr)
	next := status.Compute(app, status.Observation{Problem: problem, Selector: app.Status.Selector, URL: app.Status.URL}, r.now())
	r.recordReadyChange(app, next)
	if equality.Semantic.DeepEqual(app.Status, next) {
		return ctrl.Result{}, nil
	}
	patch, err := json.Marshal(map[string]any{"status": next})
	if err == nil {
		// a copy: u is the cache's, and the patch decodes the answer into its object. A WebApp the
		// conversion could not convert is patched in the version its spec was written in: only
		// there does the API server see the spec that validation ratchets, unchanged.
		obj := u.DeepCopy()
		if _, version, _, ok := served.Undecodable(u.Object); ok {
			obj.SetAPIVersion(version)
		}
		err = r.Status().Patch(ctx, obj, client.RawPatch(types.MergePatchType, patch))
	}
	if err != nil {
		log.Error(err, "cannot decode this WebApp, nor write that into its status", "webapp", client.ObjectKeyFromObject(u),
			"reason", problem.Message)
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	return ctrl.Result{}, nil
}
