package webhook_test

import (
	"crypto/x509"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/api/v1beta1"
	"github.com/webapp-operator/webapp-operator/internal/certs"
	"github.com/webapp-operator/webapp-operator/internal/testenv"
	"github.com/webapp-operator/webapp-operator/internal/webhook"
)

var _ = Describe("The conversion webhook", func() {
	Context("with self-managed certificates", func() {
		BeforeEach(forgetCertificates)

		It("issues them into a Secret, puts the CA into the CRD, and converts both ways as the functions do", func() {
			DeferCleanup(startOperator(selfManaged()))

			data := secretData()
			Expect(data).NotTo(BeNil(), "no Secret %s", webhook.SecretName)
			set := certs.FromData(data)
			Expect(set.CA).NotTo(BeNil())
			Expect(set.Serving).NotTo(BeNil())
			Expect(certs.Hosts(set.Serving.Cert)).To(ContainElements(
				"webapp-operator-webhook-service.webapp-operator-system.svc", "127.0.0.1"))
			Expect(crdCABundle()).To(Equal(data[certs.KeyTrust]), "the CRD's caBundle is the Secret's trusted CAs")
			Expect(caBundleManagers()).To(ConsistOf(webhook.FieldOwner), "the caBundle is applied by its own field owner")
			Eventually(servedSerial, timeout, interval).Should(Equal(set.Serving.Cert.SerialNumber.String()))

			ns := newNamespace()
			alpha := testenv.FullWebApp(ns, "from-alpha")
			Expect(k8sClient.Create(ctx, alpha)).To(Succeed())
			beta := expectConvertsAsTheFunctions(client.ObjectKeyFromObject(alpha))
			Expect(beta.Spec.Container.Image).To(Equal(alpha.Spec.Image))
			Expect(beta.Spec.Pod.Sidecars).To(HaveLen(1))

			created := betaWebApp(ns, "from-beta")
			Expect(k8sClient.Create(ctx, created)).To(Succeed())
			expectConvertsAsTheFunctions(client.ObjectKeyFromObject(created))
			read := &webappv1.WebApp{}
			Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(created), read)).To(Succeed())
			Expect(read.Spec.Image).To(Equal(created.Spec.Container.Image))
			Expect(read.Spec.RolloutOnConfigChange).To(HaveValue(BeFalse()), "onConfigChange: Ignore")
			Expect(read.Spec.Rollout).NotTo(BeNil())
			Expect(read.Spec.Rollout.AutoRollback).To(BeTrue(), "onFailure: Rollback")
		})

		It("has every replica serve the one certificate of the Secret", func() {
			other, err := testenv.FreePort()
			Expect(err).NotTo(HaveOccurred())
			var wg sync.WaitGroup
			for _, p := range []int{port, other} {
				wg.Go(func() {
					defer GinkgoRecover()
					opts := selfManaged()
					opts.Port = p
					DeferCleanup(startOperator(opts))
				})
			}
			wg.Wait()
			serial := certs.FromData(secretData()).Serving.Cert.SerialNumber.String()
			for _, p := range []int{port, other} {
				Eventually(func() string { return serialAt(p) }, timeout, interval).Should(Equal(serial),
					"the replica on port %d serves another certificate than the Secret's", p)
			}
			expectConvertsAsTheFunctions(client.ObjectKeyFromObject(createAlpha()))
		})

		It("renews a serving certificate at two thirds of its life, and serves the new one without a restart", func() {
			// a serving certificate of 30 s, 15 s old: renewed 5 s from now
			now := time.Now()
			ca, err := certs.NewCA("test-ca", now.Add(-time.Hour), now.Add(24*time.Hour))
			Expect(err).NotTo(HaveOccurred())
			seed := seedSecret(ca, now.Add(-15*time.Second), now.Add(15*time.Second))
			DeferCleanup(startOperator(selfManaged()))
			Eventually(servedSerial, 3*time.Second, interval).Should(Equal(seed.Serving.Cert.SerialNumber.String()),
				"the Secret's certificate at first")

			var renewed certs.Set
			Eventually(func() string {
				renewed = certs.FromData(secretData())
				return serialOf(renewed.Serving)
			}, timeout, interval).ShouldNot(Equal(serialOf(seed.Serving)))
			Expect(renewed.Serving.Cert.NotAfter).To(BeTemporally(">", now.Add(24*time.Hour-time.Minute)),
				"the new certificate lives as long as the policy says, up to the CA's end")
			Expect(renewed.CA.Cert.Equal(ca.Cert)).To(BeTrue(), "same CA")
			Eventually(servedSerial, timeout, interval).Should(Equal(renewed.Serving.Cert.SerialNumber.String()))
			expectConvertsAsTheFunctions(client.ObjectKeyFromObject(createAlpha()))
		})

		It("renews the CA at two thirds of its life, trusting the old one too until it expires", func() {
			// a CA of 90 s, 55 s old: renewed 5 s from now
			now := time.Now()
			ca, err := certs.NewCA("test-ca", now.Add(-55*time.Second), now.Add(35*time.Second))
			Expect(err).NotTo(HaveOccurred())
			seed := seedSecret(ca, now.Add(-55*time.Second), now.Add(35*time.Second))
			DeferCleanup(startOperator(selfManaged()))
			Eventually(servedSerial, 3*time.Second, interval).Should(Equal(seed.Serving.Cert.SerialNumber.String()),
				"the Secret's certificate at first")

			var renewed certs.Set
			Eventually(func() bool {
				renewed = certs.FromData(secretData())
				return renewed.CA != nil && !renewed.CA.Cert.Equal(ca.Cert)
			}, timeout, interval).Should(BeTrue(), "the CA was not renewed")
			Expect(renewed.Trust).To(HaveLen(2))
			Expect(renewed.Trust[0].Equal(renewed.CA.Cert)).To(BeTrue())
			Expect(renewed.Trust[1].Equal(ca.Cert)).To(BeTrue(), "the old CA stays trusted")
			Expect(renewed.Serving.Cert.CheckSignatureFrom(renewed.CA.Cert)).To(Succeed())
			Eventually(crdCABundle, timeout, interval).Should(Equal(certs.EncodeCerts(renewed.Trust)))
			Eventually(servedSerial, timeout, interval).Should(Equal(renewed.Serving.Cert.SerialNumber.String()))
			expectConvertsAsTheFunctions(client.ObjectKeyFromObject(createAlpha()))
		})
	})

	Context("with the certificate of the cert dir (OLM's way)", func() {
		BeforeEach(forgetCertificates)

		It("serves it, reloads it when the files change, and never touches the CRD", func() {
			dir := GinkgoT().TempDir()
			first := writeCertDir(dir)
			setCABundle(first.CA.CertPEM)
			DeferCleanup(startOperator(webhook.Options{CertDir: dir}))
			Eventually(servedSerial, timeout, interval).Should(Equal(first.Serving.Cert.SerialNumber.String()))
			key := client.ObjectKeyFromObject(createAlpha())
			expectConvertsAsTheFunctions(key)

			// a new CA and certificate, as OLM or cert-manager rotates them: the CRD trusts both first
			second := certs.Set{}
			second.CA, second.Serving = newPair()
			setCABundle(append(append([]byte{}, first.CA.CertPEM...), second.CA.CertPEM...))
			writeFile(filepath.Join(dir, certs.KeyKey), second.Serving.KeyPEM)
			writeFile(filepath.Join(dir, certs.KeyCert), second.Serving.CertPEM)
			Eventually(servedSerial, timeout, interval).Should(Equal(second.Serving.Cert.SerialNumber.String()))
			expectConvertsAsTheFunctions(key)

			Expect(caBundleManagers()).NotTo(ContainElement(webhook.FieldOwner))
			Expect(secretData()).To(BeNil(), "a Secret of certificates was made")
		})
	})

	Context("without a certificate and without self-managed certificates", func() {
		BeforeEach(forgetCertificates)

		It("serves no webhook, and reconciles WebApps of the stored version, v1beta1", func() {
			DeferCleanup(startOperator(webhook.Options{CertDir: GinkgoT().TempDir()}))
			app := betaWebApp(newNamespace(), "shop")
			Expect(k8sClient.Create(ctx, app)).To(Succeed())
			Expect(k8sClient.Create(ctx, testenv.WebApp(app.Namespace, "old"))).To(
				MatchError(ContainSubstring("conversion webhook")), "v1alpha1 needs the webhook")
			Eventually(func() error {
				return k8sClient.Get(ctx, client.ObjectKeyFromObject(app), &appsv1.Deployment{})
			}, timeout, interval).Should(Succeed(), "the WebApp is reconciled")
			Consistently(servedSerial, 2*time.Second, interval).Should(BeEmpty(), "something serves on the port")
			Expect(crdCABundle()).To(BeEmpty())
			Expect(secretData()).To(BeNil())
		})
	})
})

func serialOf(kp *certs.KeyPair) string {
	if kp == nil {
		return ""
	}
	return kp.Cert.SerialNumber.String()
}

func servedSerial() string { return serialAt(port) }

func serialAt(p int) string {
	if c := servedCert(p); c != nil {
		return c.SerialNumber.String()
	}
	return ""
}

// expectConvertsAsTheFunctions reads the WebApp key as v1alpha1 and as v1beta1, at one
// resourceVersion, and expects each to be what api/v1alpha1's ConvertTo and ConvertFrom make of the
// other: spec, status, labels and annotations (the conversion's carriers among them).
func expectConvertsAsTheFunctions(key types.NamespacedName) *v1beta1.WebApp {
	beta := &v1beta1.WebApp{}
	Eventually(func(g Gomega) {
		alpha := &webappv1.WebApp{}
		g.Expect(k8sClient.Get(ctx, key, alpha)).To(Succeed())
		g.Expect(k8sClient.Get(ctx, key, beta)).To(Succeed())
		g.Expect(beta.ResourceVersion).To(Equal(alpha.ResourceVersion), "read again: it changed in between")
		toBeta := &v1beta1.WebApp{}
		g.Expect(alpha.ConvertTo(toBeta)).To(Succeed())
		g.Expect(convertible(beta)).To(MatchJSON(convertible(toBeta)), "v1beta1 as served, and ConvertTo of v1alpha1")
		toAlpha := &webappv1.WebApp{}
		g.Expect(toAlpha.ConvertFrom(beta)).To(Succeed())
		g.Expect(convertible(alpha)).To(MatchJSON(convertible(toAlpha)), "v1alpha1 as served, and ConvertFrom of v1beta1")
	}, timeout, interval).Should(Succeed())
	return beta
}

// convertible is the JSON of what a conversion writes: spec, status, labels and annotations.
func convertible(obj client.Object) string {
	raw, err := json.Marshal(obj)
	Expect(err).NotTo(HaveOccurred())
	var m map[string]any
	Expect(json.Unmarshal(raw, &m)).To(Succeed())
	meta := m["metadata"].(map[string]any)
	out, err := json.Marshal(map[string]any{"spec": m["spec"], "status": m["status"],
		"labels": meta["labels"], "annotations": meta["annotations"]})
	Expect(err).NotTo(HaveOccurred())
	return string(out)
}

func createAlpha() *webappv1.WebApp {
	app := testenv.WebApp(newNamespace(), "shop")
	Expect(k8sClient.Create(ctx, app)).To(Succeed())
	return app
}

// betaWebApp is written in v1beta1, with what v1alpha1 says otherwise: a second Service port by
// name, and the rollout's policies as enums.
func betaWebApp(ns, name string) *v1beta1.WebApp {
	return &v1beta1.WebApp{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"team": "shop"}},
		Spec: v1beta1.WebAppSpec{
			Container: v1beta1.AppContainer{
				Image: "example.com/shop:2.0",
				Ports: []v1beta1.ContainerPort{{Name: "http", ContainerPort: 8080}, {Name: "admin", ContainerPort: 9000}},
			},
			Exposure: v1beta1.Exposure{Service: v1beta1.Service{
				Ports: []v1beta1.ServicePort{{Name: "http", Port: 80}, {Name: "admin", Port: 9000}}}},
			Rollout: v1beta1.Rollout{OnFailure: v1beta1.RolloutFailureRollback, OnConfigChange: v1beta1.ConfigChangeIgnore},
		},
	}
}

// seedSecret stores a Set of ca and a serving certificate it signs, valid from from to to, as a
// Secret an operator wrote earlier.
func seedSecret(ca *certs.KeyPair, from, to time.Time) certs.Set {
	serving, err := certs.NewServing(ca, hosts(), from, to)
	Expect(err).NotTo(HaveOccurred())
	set := certs.Set{CA: ca, Serving: serving, Trust: []*x509.Certificate{ca.Cert}}
	Expect(k8sClient.Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: operatorNS, Name: webhook.SecretName},
		Type:       corev1.SecretTypeTLS, Data: set.Data(),
	})).To(Succeed())
	setCABundle(ca.CertPEM)
	return set
}

func hosts() []string {
	return append(certs.ServiceHosts(webhook.ServiceName, operatorNS), "127.0.0.1")
}

// newPair is a CA and a serving certificate for 127.0.0.1, as an outside issuer would make them.
func newPair() (*certs.KeyPair, *certs.KeyPair) {
	now := time.Now()
	ca, err := certs.NewCA("outside-ca", now.Add(-time.Hour), now.Add(time.Hour))
	Expect(err).NotTo(HaveOccurred())
	serving, err := certs.NewServing(ca, []string{"127.0.0.1"}, now.Add(-time.Hour), now.Add(time.Hour))
	Expect(err).NotTo(HaveOccurred())
	return ca, serving
}

func writeCertDir(dir string) certs.Set {
	var s certs.Set
	s.CA, s.Serving = newPair()
	writeFile(filepath.Join(dir, certs.KeyCert), s.Serving.CertPEM)
	writeFile(filepath.Join(dir, certs.KeyKey), s.Serving.KeyPEM)
	return s
}

// writeFile replaces path whole, as the kubelet updates a Secret volume.
func writeFile(path string, data []byte) {
	tmp := path + ".new"
	Expect(os.WriteFile(tmp, data, 0o600)).To(Succeed())
	Expect(os.Rename(tmp, path)).To(Succeed())
}

// caBundleManagers are the field managers that own the CRD's caBundle.
func caBundleManagers() []string {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	Expect(k8sClient.Get(ctx, types.NamespacedName{Name: webhook.CRDName}, crd)).To(Succeed())
	var out []string
	for _, mf := range crd.ManagedFields {
		if mf.FieldsV1 != nil && strings.Contains(mf.FieldsV1.GetRawString(), `"f:caBundle"`) {
			out = append(out, mf.Manager)
		}
	}
	return out
}
