package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/rand"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/test/framework"
)

// sampleImage stands in for the basic sample's public image, which the local cluster cannot pull:
// the demo app, packed by `make demo-images` with the same user configuration as
// nginx-unprivileged, the numeric non-root user 101. It serves / on 8080, as nginx does there.
var sampleImage = demoImage + ":uid101"

// The basic sample, config/samples/apps_v1beta1_webapp.yaml, as users apply it first: the
// operator runs every pod as non-root, and the kubelet starts a container under runAsNonRoot only
// when its image names a numeric user other than 0. So the sample only works with an image like
// its own, and here it runs with one of the same user, everything else as it ships.
var _ = Describe("The basic sample on a real node", func() {
	It("runs as it ships, with a stand-in image of the same user: Ready, and / answers through the Service", func() {
		ns := "e2e-sample-" + rand.String(5)
		Expect(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
		DeferCleanup(func() { _ = k8s.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}) })
		DeferCleanup(func() {
			if CurrentSpecReport().Failed() {
				out, err := exec.Command(kubectl, "-n", ns, "get", "webapps,deployments,pods,services,events", "-o", "wide").
					CombinedOutput()
				_, _ = fmt.Fprintf(GinkgoWriter, "\n----- objects of %s (err: %v)\n%s", ns, err, out)
			}
		})

		framework.KeyCacheOnSources() // config/ is outside the test module
		path := filepath.Join("..", "..", "config", "samples", "apps_v1beta1_webapp.yaml")
		data, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		obj := map[string]any{}
		Expect(utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096).Decode(&obj)).To(Succeed())
		sample := &unstructured.Unstructured{Object: obj}
		image, _, _ := unstructured.NestedString(sample.Object, "spec", "container", "image")
		Expect(image).To(HavePrefix("docker.io/nginxinc/nginx-unprivileged:"),
			"sampleImage copies this image's user (101): build it with the user of the sample's new image")
		sample.SetNamespace(ns)
		Expect(unstructured.SetNestedField(sample.Object, sampleImage, "spec", "container", "image")).To(Succeed())
		Expect(k8s.Create(ctx, sample, client.FieldValidation("Strict"))).To(Succeed())

		key := client.ObjectKey{Namespace: ns, Name: sample.GetName()}
		wa := &webappv1.WebApp{}
		Eventually(func(g Gomega) {
			g.Expect(k8s.Get(ctx, key, wa)).To(Succeed())
			ready := meta.FindStatusCondition(wa.Status.Conditions, webappv1.ConditionReady)
			g.Expect(ready).NotTo(BeNil())
			g.Expect(ready.ObservedGeneration).To(Equal(wa.Generation))
			g.Expect(ready.Status).To(Equal(metav1.ConditionTrue), "%s: %s", ready.Reason, ready.Message)
			g.Expect(wa.Status.ReadyReplicas).To(Equal(*wa.Spec.Replicas))
		}).Should(Succeed())
		Expect(*wa.Spec.Replicas).To(Equal(int32(2)))
		Expect(wa.Status.URL).To(Equal(fmt.Sprintf("http://%s.%s.svc:80", key.Name, ns)))

		pods := &corev1.PodList{}
		Expect(k8s.List(ctx, pods, client.InNamespace(ns),
			client.MatchingLabels{"app.kubernetes.io/instance": key.Name})).To(Succeed())
		Expect(pods.Items).To(HaveLen(2))
		for _, p := range pods.Items {
			Expect(p.Status.Phase).To(Equal(corev1.PodRunning))
			Expect(p.Spec.SecurityContext.RunAsNonRoot).To(Equal(ptr.To(true)))
			Expect(p.Spec.SecurityContext.RunAsUser).To(BeNil(), "the image's user runs it")
			for _, c := range p.Status.ContainerStatuses {
				// reported by kubelets and runtimes that support it
				if c.User != nil && c.User.Linux != nil {
					Expect(c.User.Linux.UID).To(Equal(int64(101)), "container %s of pod %s", c.Name, p.Name)
				}
			}
		}

		svc := &corev1.Service{}
		Expect(k8s.Get(ctx, key, svc)).To(Succeed())
		url := fmt.Sprintf("http://%s:%d/", svc.Spec.ClusterIP, svc.Spec.Ports[0].Port)
		Eventually(func(g Gomega) {
			code, body, err := get(url)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(code).To(Equal(200), body)
		}).Should(Succeed())
	})
})
