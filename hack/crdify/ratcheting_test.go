package crdify

import (
	"context"
	"os"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// The API server ratchets CEL rules: a WebApp that a new rule would refuse may still be updated as
// long as the refused value stays as it was. docs/development.md relies on it.
func TestAPIServerRatchetsANewRule(t *testing.T) {
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		t.Skip("KUBEBUILDER_ASSETS is not set (make test sets it)")
	}
	env := &envtest.Environment{CRDDirectoryPaths: []string{"../../config/crd/bases"}, ErrorIfCRDPathMissing: true}
	cfg, err := env.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = env.Stop() }()
	if err := apiextensionsv1.AddToScheme(scheme.Scheme); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	webapp := func(name string, port int64) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: object{"apiVersion": "apps.webapp-operator.io/v1alpha1", "kind": "WebApp",
			"metadata": object{"name": name, "namespace": "default"}, "spec": object{"image": "nginx", "port": port}}}
	}
	// No conversion webhook runs here: v1alpha1, the version this test writes, is made the stored one,
	// so that the API server keeps its objects whole.
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := c.Get(ctx, client.ObjectKey{Name: "webapps.apps.webapp-operator.io"}, crd); err != nil {
		t.Fatal(err)
	}
	for i := range crd.Spec.Versions {
		crd.Spec.Versions[i].Storage = crd.Spec.Versions[i].Name == "v1alpha1"
	}
	if err := c.Update(ctx, crd); err != nil {
		t.Fatal(err)
	}
	old := webapp("old", 22)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		probe := webapp("probe", 80)
		if err := c.Create(ctx, probe, client.DryRunAll); err == nil {
			if image, _, _ := unstructured.NestedString(probe.Object, "spec", "image"); image == "nginx" {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("v1alpha1 is not the storage version after 30 s")
		}
	}
	if err := c.Create(ctx, old); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, client.ObjectKey{Name: "webapps.apps.webapp-operator.io"}, crd); err != nil {
		t.Fatal(err)
	}
	port := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["port"]
	port.XValidations = apiextensionsv1.ValidationRules{{Rule: "self != 22", Message: "not ssh"}}
	crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["port"] = port
	if err := c.Update(ctx, crd); err != nil {
		t.Fatal(err)
	}
	// the new rule is in force once a new WebApp on port 22 is refused
	deadline := time.Now().Add(30 * time.Second)
	for c.Create(ctx, webapp("new", 22), client.DryRunAll) == nil {
		if time.Now().After(deadline) {
			t.Fatal("the new rule is not enforced after 30 s")
		}
		time.Sleep(200 * time.Millisecond)
	}

	if err := unstructured.SetNestedField(old.Object, int64(3), "spec", "replicas"); err != nil {
		t.Fatal(err)
	}
	if err := c.Update(ctx, old); err != nil {
		t.Fatalf("an update that keeps port 22 is refused: %v", err)
	}
	if err := unstructured.SetNestedField(old.Object, int64(23), "spec", "port"); err != nil {
		t.Fatal(err)
	}
	if err := c.Update(ctx, old); err != nil {
		t.Fatal(err)
	}
	if err := unstructured.SetNestedField(old.Object, int64(22), "spec", "port"); err != nil {
		t.Fatal(err)
	}
	if err := c.Update(ctx, old); err == nil {
		t.Fatal("port 22 set again on update is admitted")
	}
}
