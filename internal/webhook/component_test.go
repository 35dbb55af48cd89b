package webhook_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/webapp-operator/webapp-operator/internal/certs"
	"github.com/webapp-operator/webapp-operator/internal/webhook"
)

// repoRoot is the repository, seen from this package's directory (where go test runs it).
var repoRoot = filepath.Join("..", "..")

// rendered is what `make deploy` applies: config/default, which lists config/webhook among its
// components. KUSTOMIZE names the binary (make test sets it), else bin/kustomize.
type rendered []*unstructured.Unstructured

func renderWithWebhook() (rendered, error) {
	kustomize := os.Getenv("KUSTOMIZE")
	if kustomize == "" {
		kustomize = filepath.Join(repoRoot, "bin", "kustomize")
	}
	if _, err := os.Stat(kustomize); err != nil {
		return nil, fmt.Errorf("no kustomize (%w): run `make kustomize`, or set KUSTOMIZE", err)
	}
	var out, stderr bytes.Buffer
	cmd := exec.Command(kustomize, "build", filepath.Join(repoRoot, "config", "default"))
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("kustomize build: %w: %s", err, stderr.String())
	}
	var objs rendered
	dec := utilyaml.NewYAMLOrJSONDecoder(&out, 4096)
	for {
		u := &unstructured.Unstructured{}
		if err := dec.Decode(&u.Object); err != nil {
			if errors.Is(err, io.EOF) {
				return objs, nil
			}
			return nil, err
		}
		if len(u.Object) > 0 {
			objs = append(objs, u)
		}
	}
}

// one is the object of that kind and name, decoded into out; it fails unless there is exactly one.
func (r rendered) one(kind, name string, out any) error {
	var found []*unstructured.Unstructured
	for _, u := range r {
		if u.GetKind() == kind && u.GetName() == name {
			found = append(found, u)
		}
	}
	if len(found) != 1 {
		return fmt.Errorf("%d %s named %s rendered, want 1", len(found), kind, name)
	}
	return runtime.DefaultUnstructuredConverter.FromUnstructured(found[0].Object, out)
}

// TestComponentOnConfigDefault renders config/default, with its config/webhook component, and checks
// that the pieces fit: the Service is the one the certificate is for and the CRD calls, it reaches the
// manager's webhook port, the cert dir is writable, and the extra rules are exactly what the
// self-managed mode uses, bound to the operator's ServiceAccount.
func TestComponentOnConfigDefault(t *testing.T) {
	objs, err := renderWithWebhook()
	if err != nil {
		t.Fatal(err)
	}
	var deploy appsv1.Deployment
	if err := objs.one("Deployment", "webapp-operator-controller-manager", &deploy); err != nil {
		t.Fatal(err)
	}
	ns, pod := deploy.Namespace, deploy.Spec.Template.Spec
	manager := pod.Containers[0]

	var svc corev1.Service
	if err := objs.one("Service", webhook.ServiceName, &svc); err != nil {
		t.Fatal(err)
	}
	if svc.Namespace != ns {
		t.Errorf("the Service is in %q, the operator in %q: the certificate is for the operator's namespace", svc.Namespace, ns)
	}
	if !slices.Contains(certs.ServiceHosts(svc.Name, svc.Namespace), svc.Name+"."+svc.Namespace+".svc") {
		t.Error("the certificate does not name <service>.<namespace>.svc, which the API server checks")
	}
	for k, v := range svc.Spec.Selector {
		if deploy.Spec.Template.Labels[k] != v {
			t.Errorf("the Service selects %s=%s, which the operator's pods lack", k, v)
		}
	}
	if !svc.Spec.PublishNotReadyAddresses {
		t.Error("the Service routes to ready pods only: a starting operator's caches could not convert through it")
	}
	if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].TargetPort != intstr.FromString("webhook-server") {
		t.Fatalf("Service ports %v, want one, to the container port webhook-server", svc.Spec.Ports)
	}
	port := svc.Spec.Ports[0].Port
	if !slices.ContainsFunc(manager.Ports, func(p corev1.ContainerPort) bool {
		return p.Name == "webhook-server" && p.ContainerPort == webhook.DefaultPort
	}) {
		t.Errorf("the manager has no port webhook-server at %d: %v", webhook.DefaultPort, manager.Ports)
	}

	var crd apiextensionsv1.CustomResourceDefinition
	if err := objs.one("CustomResourceDefinition", webhook.CRDName, &crd); err != nil {
		t.Fatal(err)
	}
	conv := crd.Spec.Conversion
	want := apiextensionsv1.ServiceReference{Namespace: ns, Name: webhook.ServiceName, Path: new(webhook.Path), Port: new(port)}
	switch {
	case conv == nil || conv.Strategy != apiextensionsv1.WebhookConverter || conv.Webhook == nil ||
		conv.Webhook.ClientConfig == nil || conv.Webhook.ClientConfig.Service == nil:
		t.Errorf("the CRD's conversion is not a webhook Service: %+v", conv)
	case !equalRef(*conv.Webhook.ClientConfig.Service, want):
		t.Errorf("the CRD calls %+v, want %+v", *conv.Webhook.ClientConfig.Service, want)
	case !slices.Equal(conv.Webhook.ConversionReviewVersions, []string{"v1"}):
		t.Errorf("review versions %v, want v1", conv.Webhook.ConversionReviewVersions)
	case len(conv.Webhook.ClientConfig.CABundle) > 0:
		t.Error("the CRD carries a caBundle: the operator sets it, and a re-apply would take it back")
	}

	checkManagerPatch(t, manager, pod)
	checkRules(t, objs, ns, pod.ServiceAccountName)
}

func equalRef(a, b apiextensionsv1.ServiceReference) bool {
	return a.Namespace == b.Namespace && a.Name == b.Name && *a.Path == *b.Path && *a.Port == *b.Port
}

// checkManagerPatch: the manager is told to issue its certificate, into a writable cert dir at the
// default place, and stays restricted.
func checkManagerPatch(t *testing.T, manager corev1.Container, pod corev1.PodSpec) {
	t.Helper()
	if !slices.Contains(manager.Args, "--webhook-self-managed-certs") {
		t.Errorf("the manager's args %v lack --webhook-self-managed-certs", manager.Args)
	}
	if slices.ContainsFunc(manager.Args, func(a string) bool { return strings.HasPrefix(a, "--webhook-cert-dir") }) {
		t.Error("the cert dir is set: the mount below assumes the default")
	}
	mount := slices.IndexFunc(manager.VolumeMounts, func(m corev1.VolumeMount) bool { return m.MountPath == webhook.DefaultCertDir })
	if mount < 0 {
		t.Fatalf("nothing is mounted at %s, and the root file system is read-only", webhook.DefaultCertDir)
	}
	if manager.VolumeMounts[mount].ReadOnly {
		t.Error("the cert dir is mounted read-only")
	}
	vol := slices.IndexFunc(pod.Volumes, func(v corev1.Volume) bool { return v.Name == manager.VolumeMounts[mount].Name })
	if vol < 0 || pod.Volumes[vol].EmptyDir == nil || pod.Volumes[vol].EmptyDir.Medium != corev1.StorageMediumMemory {
		t.Error("the cert dir is not an emptyDir in memory")
	}
	if sc := manager.SecurityContext; sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
		t.Error("the manager's root file system is no longer read-only")
	}
}

// checkRules: the component's Role and ClusterRole hold exactly what the self-managed mode does,
// and are bound to the operator's ServiceAccount.
func checkRules(t *testing.T, objs rendered, ns, serviceAccount string) {
	t.Helper()
	var role rbacv1.Role
	if err := objs.one("Role", "webapp-operator-webhook-cert-role", &role); err != nil {
		t.Fatal(err)
	}
	if role.Namespace != ns {
		t.Errorf("the Secret's Role is in %q, not the operator's namespace %q", role.Namespace, ns)
	}
	wantRole := []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"create"}},
		{APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{webhook.SecretName},
			Verbs: []string{"get", "update"}},
	}
	if fmt.Sprint(role.Rules) != fmt.Sprint(wantRole) {
		t.Errorf("Role rules %v, want %v", role.Rules, wantRole)
	}
	var crdRole rbacv1.ClusterRole
	if err := objs.one("ClusterRole", "webapp-operator-webhook-crd-role", &crdRole); err != nil {
		t.Fatal(err)
	}
	wantCRD := []rbacv1.PolicyRule{{APIGroups: []string{"apiextensions.k8s.io"},
		Resources: []string{"customresourcedefinitions"}, ResourceNames: []string{webhook.CRDName}, Verbs: []string{"get", "patch"}}}
	if fmt.Sprint(crdRole.Rules) != fmt.Sprint(wantCRD) {
		t.Errorf("ClusterRole rules %v, want %v", crdRole.Rules, wantCRD)
	}
	sa := rbacv1.Subject{Kind: "ServiceAccount", Name: serviceAccount, Namespace: ns}
	var rb rbacv1.RoleBinding
	if err := objs.one("RoleBinding", "webapp-operator-webhook-cert-rolebinding", &rb); err != nil {
		t.Fatal(err)
	}
	if rb.Namespace != ns || rb.RoleRef.Kind != "Role" || rb.RoleRef.Name != role.Name || !slices.Equal(rb.Subjects, []rbacv1.Subject{sa}) {
		t.Errorf("the RoleBinding %s/%s binds %v to %v", rb.Namespace, rb.Name, rb.RoleRef, rb.Subjects)
	}
	var crb rbacv1.ClusterRoleBinding
	if err := objs.one("ClusterRoleBinding", "webapp-operator-webhook-crd-rolebinding", &crb); err != nil {
		t.Fatal(err)
	}
	if crb.RoleRef.Kind != "ClusterRole" || crb.RoleRef.Name != crdRole.Name || !slices.Equal(crb.Subjects, []rbacv1.Subject{sa}) {
		t.Errorf("the ClusterRoleBinding %s binds %v to %v", crb.Name, crb.RoleRef, crb.Subjects)
	}
}

// TestBundleNeverManagesItsCertificates: under OLM, OLM issues the certificate and sets the CRD's
// caBundle, so the bundle's operator must not do either (docs/api-design.md, "Certificates").
func TestBundleNeverManagesItsCertificates(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, "bundle", "manifests", "webapp-operator.clusterserviceversion.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var csv struct {
		Spec struct {
			Install struct {
				Spec struct {
					Deployments []struct {
						Spec appsv1.DeploymentSpec `json:"spec"`
					} `json:"deployments"`
					Permissions, ClusterPermissions []struct {
						Rules []rbacv1.PolicyRule `json:"rules"`
					}
				} `json:"spec"`
			} `json:"install"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(data, &csv); err != nil {
		t.Fatal(err)
	}
	install := csv.Spec.Install.Spec
	// OLM makes the webhook's Service from the CSV's webhookdefinitions; the bundle carries none
	if _, err := os.Stat(filepath.Join(repoRoot, "bundle", "manifests", webhook.ServiceName+"_v1_service.yaml")); err == nil {
		t.Errorf("the bundle carries config/webhook's Service %s", webhook.ServiceName)
	}
	if len(install.Deployments) == 0 || len(install.Permissions) == 0 || len(install.ClusterPermissions) == 0 {
		t.Fatal("the CSV's deployment or permissions were not read")
	}
	for _, d := range install.Deployments {
		for _, c := range d.Spec.Template.Spec.Containers {
			if slices.Contains(c.Args, "--webhook-self-managed-certs") {
				t.Errorf("container %s issues its own webhook certificate under OLM", c.Name)
			}
			// OLM mounts its certificate there: a second mount at the same path makes the pod invalid
			if slices.ContainsFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return m.MountPath == webhook.DefaultCertDir }) {
				t.Errorf("container %s mounts a volume of its own at %s, where OLM mounts the certificate", c.Name, webhook.DefaultCertDir)
			}
		}
	}
	for _, p := range append(install.Permissions, install.ClusterPermissions...) {
		for _, r := range p.Rules {
			if slices.Contains(r.Resources, "secrets") {
				t.Errorf("the CSV grants %v on Secrets: the self-managed certificate's Secret is not OLM's way", r.Verbs)
			}
			// reading its CRD, and trimming its status.storedVersions, are the storage migration's
			// (internal/migration); the caBundle is in the CRD's spec, which OLM owns
			writes := slices.ContainsFunc(r.Verbs, func(v string) bool { return v != "get" && v != "list" && v != "watch" })
			if slices.Contains(r.Resources, "customresourcedefinitions") && writes {
				t.Errorf("the CSV grants %v on CRDs: under OLM the operator never writes its CRD's spec", r.Verbs)
			}
		}
	}
}
