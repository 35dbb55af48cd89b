/*
Copyright 2026 The webapp-operator Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package v1alpha1_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/randfill"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/api/v1beta1"
	"github.com/webapp-operator/webapp-operator/internal/testenv"
)

// TestConversionRoundTrip converts generated objects that the CRD admits both ways: every v1alpha1
// object to v1beta1 and back, and every v1beta1 object to v1alpha1 and back, must come back equal.
// The API server decides what "admitted" means: each generated object is created (dry run) in its
// version against a copy of the CRD that serves both versions, without conversion, and only what
// it admits, with its defaults applied, enters the round trip. CONVERSION_OBJECTS (default 300) is
// how many admitted objects each direction needs; CONVERSION_SEED replays a run.
func TestConversionRoundTrip(t *testing.T) {
	n := envInt(t, "CONVERSION_OBJECTS", 300)
	seed := int64(envInt(t, "CONVERSION_SEED", int(time.Now().UnixNano()%1_000_000)))
	t.Logf("seed %d (CONVERSION_SEED replays it), %d objects a direction", seed, n)
	env, err := testenv.StartWithCRD(serveBoth)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, webappv1.AddToScheme, v1beta1.AddToScheme, apiextensionsv1.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	c, err := client.New(env.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "conversion"}}); err != nil {
		t.Fatal(err)
	}
	a := &admitter{c: c, t: t}
	t.Run("v1alpha1", func(t *testing.T) { alphaRoundTrips(t, a, seed, n) })
	// The API server writes (dry runs too) through the storage version, and under strategy None
	// prunes to its schema: v1beta1 objects need v1beta1 stored.
	setStorage(t, c, "v1beta1")
	t.Run("v1beta1", func(t *testing.T) { betaRoundTrips(t, a, seed, n) })
}

// serveBoth serves every version, without conversion: the API server only rewrites apiVersion,
// which is all that admitting an object in its own version needs. v1alpha1 objects come first, so
// v1alpha1 is stored.
func serveBoth(crd *apiextensionsv1.CustomResourceDefinition) {
	for i := range crd.Spec.Versions {
		crd.Spec.Versions[i].Served = true
		crd.Spec.Versions[i].Storage = crd.Spec.Versions[i].Name == "v1alpha1"
	}
	crd.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.NoneConverter}
}

func alphaRoundTrips(t *testing.T, a *admitter, seed int64, n int) {
	r := rand.New(rand.NewSource(seed))
	f := newFiller(seed, alphaFuncs())
	cover := newCoverage(webappv1.WebAppSpec{}, 1)
	tried := 0
	for ; cover.objects < n; tried++ {
		if tried > 20*n {
			t.Fatalf("only %d of %d generated objects admitted", cover.objects, tried)
		}
		obj := &webappv1.WebApp{}
		f.Fill(&obj.Spec)
		fixAlpha(&obj.Spec, r)
		obj.ObjectMeta = genMeta(f, tried)
		admitted := &webappv1.WebApp{}
		if !a.admit(obj, admitted) {
			continue
		}
		f.Fill(&admitted.Status)
		cover.add(admitted.Spec)
		beta := &v1beta1.WebApp{}
		if err := admitted.ConvertTo(beta); err != nil {
			t.Fatal(err)
		}
		back := &webappv1.WebApp{}
		if err := back.ConvertFrom(beta); err != nil {
			t.Fatal(err)
		}
		admitted.TypeMeta = metav1.TypeMeta{}
		if !equality.Semantic.DeepEqual(admitted, back) {
			t.Fatalf("v1alpha1 -> v1beta1 -> v1alpha1 differs (-want +got):\n%s\nv1beta1:\n%s", cmp.Diff(admitted, back), dump(beta))
		}
	}
	cover.check(t)
	t.Logf("%d objects generated, %d admitted", tried, cover.objects)
}

func betaRoundTrips(t *testing.T, a *admitter, seed int64, n int) {
	r := rand.New(rand.NewSource(seed))
	f := newFiller(seed, betaFuncs())
	cover := newCoverage(v1beta1.WebAppSpec{}, 2)
	var carried int
	tried := 0
	for ; cover.objects < n; tried++ {
		if tried > 20*n {
			t.Fatalf("only %d of %d generated objects admitted", cover.objects, tried)
		}
		obj := &v1beta1.WebApp{}
		f.Fill(&obj.Spec)
		fixBeta(&obj.Spec, r)
		obj.ObjectMeta = genMeta(f, tried)
		admitted := &v1beta1.WebApp{}
		if !a.admit(obj, admitted) {
			continue
		}
		f.Fill(&admitted.Status)
		cover.add(admitted.Spec)
		alpha := &webappv1.WebApp{}
		if err := alpha.ConvertFrom(admitted); err != nil {
			t.Fatal(err)
		}
		if _, ok := alpha.Annotations[webappv1.BetaCarrierAnnotation]; ok {
			carried++
		}
		back := &v1beta1.WebApp{}
		if err := alpha.ConvertTo(back); err != nil {
			t.Fatal(err)
		}
		admitted.TypeMeta = metav1.TypeMeta{}
		if !equality.Semantic.DeepEqual(admitted, back) {
			t.Fatalf("v1beta1 -> v1alpha1 -> v1beta1 differs (-want +got):\n%s\nv1alpha1:\n%s", cmp.Diff(admitted, back), dump(alpha))
		}
	}
	cover.check(t)
	t.Logf("%d objects generated, %d admitted", tried, cover.objects)
	if carried == 0 {
		t.Errorf("no admitted v1beta1 object needed the v1beta1 carrier: the generator misses what v1alpha1 cannot say")
	}
	t.Logf("%d of %d objects carried v1beta1-only content to v1alpha1 in the annotation", carried, cover.objects)
}

func genMeta(f *randfill.Filler, i int) metav1.ObjectMeta {
	m := metav1.ObjectMeta{Name: fmt.Sprintf("app-%d", i), Namespace: "conversion"}
	var labels map[string]string
	f.Fill(&labels)
	m.Labels = labels
	if i%3 == 0 {
		m.Annotations = map[string]string{"example.com/note": "kept as it is"}
	}
	return m
}

// admitter dry-runs objects in their own version; a rejected field is dropped and the object tried
// again, a few times, so that one bad field does not waste the rest.
type admitter struct {
	c        client.Client
	t        *testing.T
	admitted int
	rejected int
}

func (a *admitter) admit(obj client.Object, out client.Object) bool {
	gvk, err := apiutilGVK(a.c, obj)
	if err != nil {
		a.t.Fatal(err)
	}
	raw, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		a.t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: raw}
	u.SetGroupVersionKind(gvk)
	unstructured.RemoveNestedField(u.Object, "status")
	for range 8 {
		try := u.DeepCopy()
		err = a.c.Create(context.Background(), try, client.DryRunAll)
		if err == nil {
			a.admitted++
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(try.Object, out); err != nil {
				a.t.Fatal(err)
			}
			return true
		}
		if !dropRejected(u, err) {
			break
		}
	}
	a.rejected++
	if a.rejected <= 3 {
		a.t.Logf("rejected (one of the first three): %v", err)
	}
	return false
}

// dropRejected removes from u each field that err names; false when there is nothing it can drop.
func dropRejected(u *unstructured.Unstructured, err error) bool {
	var status kerrors.APIStatus
	if !errors.As(err, &status) || status.Status().Details == nil {
		return false
	}
	causes := status.Status().Details.Causes
	fields := make([]string, 0, len(causes))
	for _, c := range causes {
		fields = append(fields, c.Field)
	}
	slices.Sort(fields)
	slices.Reverse(fields) // later list entries first, so that earlier indexes still hold
	dropped := false
	for _, f := range fields {
		path := parsePath(f)
		if len(path) < 2 || path[0] != "spec" {
			return false
		}
		if remove(u.Object, path) {
			dropped = true
		} else if remove(u.Object, path[:len(path)-1]) {
			dropped = true
		}
	}
	return dropped
}

// parsePath splits a field path such as spec.ports[0].name or spec.podLabels[a.b/c].
func parsePath(f string) []string {
	var out []string
	for f != "" {
		switch f[0] {
		case '.':
			f = f[1:]
		case '[':
			end := strings.IndexByte(f, ']')
			if end < 0 {
				return append(out, f)
			}
			out = append(out, f[:end+1])
			f = f[end+1:]
		default:
			end := strings.IndexAny(f, ".[")
			if end < 0 {
				end = len(f)
			}
			out = append(out, f[:end])
			f = f[end:]
		}
	}
	return out
}

func remove(obj any, path []string) bool {
	if len(path) == 0 {
		return false
	}
	key, rest := path[0], path[1:]
	switch o := obj.(type) {
	case map[string]any:
		k := strings.Trim(key, "[]")
		v, ok := o[k]
		if !ok {
			return false
		}
		if len(rest) == 0 {
			delete(o, k)
			return true
		}
		if l, isList := v.([]any); isList && len(rest) == 1 && strings.HasPrefix(rest[0], "[") {
			i, err := strconv.Atoi(strings.Trim(rest[0], "[]"))
			if err != nil || i >= len(l) {
				return false
			}
			o[k] = slices.Delete(l, i, i+1)
			return true
		}
		return remove(v, rest)
	case []any:
		i, err := strconv.Atoi(strings.Trim(key, "[]"))
		if err != nil || i >= len(o) {
			return false
		}
		return remove(o[i], rest)
	}
	return false
}

func apiutilGVK(c client.Client, obj client.Object) (schema.GroupVersionKind, error) {
	return c.GroupVersionKindFor(obj)
}

func setStorage(t *testing.T, c client.Client, version string) {
	ctx := context.Background()
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := c.Get(ctx, client.ObjectKey{Name: "webapps.apps.webapp-operator.io"}, crd); err != nil {
		t.Fatal(err)
	}
	for i := range crd.Spec.Versions {
		crd.Spec.Versions[i].Storage = crd.Spec.Versions[i].Name == version
	}
	if err := c.Update(ctx, crd); err != nil {
		t.Fatal(err)
	}
	// the API server rebuilds the storage of the CRD asynchronously: wait until a v1beta1 dry run
	// comes back whole
	probe := &v1beta1.WebApp{ObjectMeta: metav1.ObjectMeta{Name: "probe", Namespace: "conversion"},
		Spec: v1beta1.WebAppSpec{Container: v1beta1.AppContainer{Image: "nginx"}}}
	var last string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		out := probe.DeepCopy()
		err := c.Create(ctx, out, client.DryRunAll)
		if err == nil && out.Spec.Container.Image == "nginx" {
			return
		}
		last = fmt.Sprintf("%v: %s", err, dump(out))
	}
	t.Fatalf("the storage version did not become %s: %s", version, last)
}

// coverage counts, per field of a spec (depth 1) or of its groups (depth 2), the admitted objects
// in which it is set: every field must be exercised.
type coverage struct {
	depth   int
	objects int
	set     map[string]int
}

func newCoverage(spec any, depth int) *coverage {
	c := &coverage{depth: depth, set: map[string]int{}}
	walkFields(reflect.ValueOf(spec), "spec", depth, func(p string, _ reflect.Value) { c.set[p] = 0 })
	return c
}

func (c *coverage) add(spec any) {
	c.objects++
	walkFields(reflect.ValueOf(spec), "spec", c.depth, func(p string, v reflect.Value) {
		if !v.IsZero() {
			c.set[p]++
		}
	})
}

func (c *coverage) check(t *testing.T) {
	var never []string
	for p, k := range c.set {
		if k == 0 {
			never = append(never, p)
		}
	}
	slices.Sort(never)
	if len(never) > 0 {
		t.Errorf("fields never set in %d admitted objects: %v", c.objects, never)
	}
	t.Logf("%d admitted objects; %d fields, each set in at least one", c.objects, len(c.set))
}

// walkFields calls fn for each struct field down to depth, by JSON name; a struct field at depth 1
// of a deeper walk is entered instead.
func walkFields(v reflect.Value, prefix string, depth int, fn func(string, reflect.Value)) {
	t := v.Type()
	for i := range t.NumField() {
		name := strings.Split(t.Field(i).Tag.Get("json"), ",")[0]
		fv := v.Field(i)
		if depth > 1 && fv.Kind() == reflect.Struct {
			walkFields(fv, prefix+"."+name, depth-1, fn)
			continue
		}
		fn(prefix+"."+name, fv)
	}
}

func envInt(t *testing.T, key string, dflt int) int {
	s := os.Getenv(key)
	if s == "" {
		return dflt
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%s: %v", key, err)
	}
	return v
}

func dump(obj any) string {
	b, _ := json.MarshalIndent(obj, "", "  ")
	return string(b)
}
