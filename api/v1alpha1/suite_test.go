package v1alpha1_test

import (
	"context"
	"fmt"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/internal/testenv"
)

// These tests ask a real kube-apiserver, with the generated CRD installed, what it admits: its
// OpenAPI validation, its CEL rules and its defaults. No operator runs. test/bundle compiles the same
// rules for the oldest Kubernetes the bundle supports.

var (
	ctx       = context.Background()
	testEnv   *testenv.Env
	k8sClient client.Client
)

func TestAdmission(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Admission Suite")
}

var _ = BeforeSuite(func() {
	var err error
	// the optional APIs' CRDs too: the property tests dry-run the HTTPRoute and ServiceMonitor
	// that admitted WebApps render to
	testEnv, err = testenv.Start(true)
	Expect(err).NotTo(HaveOccurred())
	k8sClient = testEnv.Client
})

var _ = AfterSuite(func() {
	if testEnv != nil { // nil when BeforeSuite failed
		Expect(testEnv.Stop()).To(Succeed())
	}
})

var nsCount int

// newNamespace gives every test its own namespace, so tests cannot see each other's objects.
func newNamespace() string {
	nsCount++
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("test-%d-%d", GinkgoParallelProcess(), nsCount)}}
	Expect(k8sClient.Create(ctx, ns)).To(Succeed())
	return ns.Name
}

var newWebApp = testenv.WebApp

func fetch(ns, name string) *webappv1.WebApp {
	app := &webappv1.WebApp{}
	Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, app)).To(Succeed())
	return app
}
