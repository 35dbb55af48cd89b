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
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/internal/testenv"
)

// TestWriteRenderCorpus writes the WebApps that internal/resources' TestRenderCorpus renders: the
// samples of config/samples, the suites' WebApps (testenv) and RENDER_CORPUS_OBJECTS (default 150)
// objects of the round-trip generator (seed RENDER_CORPUS_SEED, default 1), each as the API server
// admits it, defaults applied. It is a generator, not a check: it runs only when RENDER_CORPUS names the file to write,
// one WebApp a line.
//
//	RENDER_CORPUS=$PWD/internal/resources/testdata/corpus/webapps.jsonl go test ./api/v1alpha1 -run TestWriteRenderCorpus
func TestWriteRenderCorpus(t *testing.T) {
	out := os.Getenv("RENDER_CORPUS")
	if out == "" {
		t.Skip("RENDER_CORPUS names the file to write")
	}
	n := envInt(t, "RENDER_CORPUS_OBJECTS", 150)
	seed := int64(envInt(t, "RENDER_CORPUS_SEED", 1))
	env, err := testenv.StartWithCRD(serveBoth)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, webappv1.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	c, err := client.New(env.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "conversion"}}); err != nil {
		t.Fatal(err)
	}
	a := &admitter{c: c, t: t}
	var lines bytes.Buffer
	write := func(app *webappv1.WebApp) {
		// what the API server makes up (UID, times, managed fields) would change with every run
		app.ObjectMeta = metav1.ObjectMeta{Name: app.Name, Namespace: app.Namespace, Labels: app.Labels,
			Annotations: app.Annotations, UID: types.UID("uid-" + app.Name), Generation: 1}
		app.TypeMeta = metav1.TypeMeta{APIVersion: webappv1.GroupVersion.String(), Kind: "WebApp"}
		b, err := json.Marshal(app)
		if err != nil {
			t.Fatal(err)
		}
		lines.Write(append(b, '\n'))
	}
	for _, sample := range shippedSamples(t) {
		admitted := &webappv1.WebApp{}
		if !a.admit(sample, admitted) {
			t.Fatalf("sample %s not admitted", sample.Name)
		}
		write(admitted)
	}
	// the suites' WebApps (the operator reads WebApps only as the API server serves them, defaults
	// applied)
	for _, app := range []*webappv1.WebApp{testenv.WebApp("conversion", "go-minimal"), testenv.FullWebApp("conversion", "go-full")} {
		admitted := &webappv1.WebApp{}
		if !a.admit(app, admitted) {
			t.Fatalf("%s not admitted", app.Name)
		}
		admitted.Name += "-admitted"
		write(admitted)
	}
	r := rand.New(rand.NewSource(seed))
	f := newFiller(seed, alphaFuncs())
	for tried, written := 0, 0; written < n; tried++ {
		if tried > 20*n {
			t.Fatalf("only %d of %d generated objects admitted", written, tried)
		}
		obj := &webappv1.WebApp{}
		f.Fill(&obj.Spec)
		thin(&obj.Spec, r)
		fixAlpha(&obj.Spec, r)
		obj.ObjectMeta = genMeta(f, tried)
		admitted := &webappv1.WebApp{}
		if a.admit(obj, admitted) {
			write(admitted)
			written++
		}
	}
	if err := os.WriteFile(out, lines.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d WebApps written to %s", strings.Count(lines.String(), "\n"), out)
}

// thin leaves each optional top-level field of s unset with a chance of one half: randfill sets
// most of them, and the renderer's behaviour for an unset field (a default) is as much its own.
func thin(s *webappv1.WebAppSpec, r *rand.Rand) {
	v := reflect.ValueOf(s).Elem()
	for i := range v.NumField() {
		switch f := v.Field(i); f.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map:
			if r.Intn(2) == 0 {
				f.SetZero()
			}
		}
	}
}

// shippedSamples are the WebApps of config/samples, in the namespace the generated ones use.
func shippedSamples(t *testing.T) []*webappv1.WebApp {
	files, err := filepath.Glob(filepath.Join("..", "..", "config", "samples", "apps_v1alpha1_*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no samples: %v", err)
	}
	out := make([]*webappv1.WebApp, 0, len(files))
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		app := &webappv1.WebApp{}
		if err := utilyaml.Unmarshal(data, app); err != nil {
			t.Fatal(fmt.Errorf("%s: %w", file, err))
		}
		app.Namespace = "conversion"
		out = append(out, app)
	}
	return out
}
