package webhook

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/webapp-operator/webapp-operator/internal/certs"
)

// TestPrepareFromTheCertDir: what the operator does with the cert dir when it does not issue the
// certificate itself. Neither file: no webhook, and no error (the default install). A usable pair:
// a server. Half a pair or a broken one: an error, since someone meant to configure it.
func TestPrepareFromTheCertDir(t *testing.T) {
	ca, err := certs.NewCA("ca", time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	serving, err := certs.NewServing(ca, []string{"localhost"}, time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		files     map[string][]byte
		noDir     bool
		certDir   string
		wantOn    bool
		wantError string
	}{
		{name: "no cert dir given", certDir: "-"},
		{name: "an empty cert dir"},
		{name: "a cert dir that does not exist", noDir: true},
		{name: "a certificate and its key", files: map[string][]byte{"tls.crt": serving.CertPEM, "tls.key": serving.KeyPEM},
			wantOn: true},
		{name: "a certificate alone", files: map[string][]byte{"tls.crt": serving.CertPEM}, wantError: "tls.key"},
		{name: "a key alone", files: map[string][]byte{"tls.key": serving.KeyPEM}, wantError: "tls.crt"},
		{name: "another certificate's key", files: map[string][]byte{"tls.crt": serving.CertPEM, "tls.key": ca.KeyPEM},
			wantError: "private key does not match"},
		{name: "other files only", files: map[string][]byte{"ca.crt": ca.CertPEM}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if c.noDir {
				dir = filepath.Join(dir, "missing")
			}
			for name, data := range c.files {
				if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if c.certDir == "-" {
				dir = ""
			}
			w, err := Prepare(nil, nil, Options{CertDir: dir})
			switch {
			case c.wantError != "":
				if err == nil || !strings.Contains(err.Error(), c.wantError) {
					t.Errorf("error %v, want one about %q", err, c.wantError)
				}
			case err != nil:
				t.Errorf("error %v", err)
			case (w.Server() != nil) != c.wantOn:
				t.Errorf("serving %v, want %v", w.Server() != nil, c.wantOn)
			case w != nil && isRenewing(w.Server()):
				t.Error("a certificate from the cert dir is renewed by the operator")
			}
		})
	}
	if _, err := Prepare(nil, nil, Options{SelfManaged: true, CertDir: t.TempDir()}); err == nil ||
		!strings.Contains(err.Error(), "namespace") {
		t.Errorf("self-managed without a namespace: %v", err)
	}
}

func isRenewing(s any) bool {
	_, ok := s.(*renewingServer)
	return ok
}

var secretKey = types.NamespacedName{Namespace: "ops", Name: SecretName}

func newSelfManaged(c client.Client, now time.Time) *selfManaged {
	return &selfManaged{client: c, secret: secretKey, crd: CRDName, hosts: certs.ServiceHosts(ServiceName, "ops"),
		policy: certs.DefaultPolicy, now: func() time.Time { return now }, maxWait: time.Hour, log: logr.Discard()}
}

func testScheme(t *testing.T) *runtime.Scheme {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestConvergeTakesTheSecretAnotherReplicaCreated: two replicas start at once; the one whose create
// finds the Secret made uses that Secret, not the certificates it made itself.
func TestConvergeTakesTheSecretAnotherReplicaCreated(t *testing.T) {
	now := time.Now()
	var theirs certs.Set
	base := fake.NewClientBuilder().WithScheme(testScheme(t)).Build()
	c := interceptor.NewClient(base, interceptor.Funcs{
		Create: func(ctx context.Context, cl client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			if theirs.CA == nil { // the other replica creates it first
				var err error
				if theirs, err = certs.DefaultPolicy.Apply(certs.Set{}, certs.RenewCA, certs.ServiceHosts(ServiceName, "ops"),
					now); err != nil {
					return err
				}
				other := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: secretKey.Namespace, Name: secretKey.Name},
					Data: theirs.Data()}
				if err := cl.Create(ctx, other); err != nil {
					return err
				}
			}
			return cl.Create(ctx, obj, opts...)
		},
	})
	got, err := newSelfManaged(c, now).converge(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !got.Serving.Cert.Equal(theirs.Serving.Cert) {
		t.Error("the replica kept its own certificates, not those of the Secret the other replica created")
	}
}

// TestConvergeTakesTheRenewalOfAnotherReplica: two replicas renew at once; the one whose update
// conflicts reads the Secret again and takes the other's renewal without renewing it again.
func TestConvergeTakesTheRenewalOfAnotherReplica(t *testing.T) {
	now := time.Now()
	hosts := certs.ServiceHosts(ServiceName, "ops")
	old, err := certs.DefaultPolicy.Apply(certs.Set{}, certs.RenewCA, hosts, now.Add(-80*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: secretKey.Namespace, Name: secretKey.Name},
		Data: old.Data()}
	base := fake.NewClientBuilder().WithScheme(testScheme(t)).WithObjects(secret).Build()
	var theirs certs.Set
	updates := 0
	c := interceptor.NewClient(base, interceptor.Funcs{
		Update: func(ctx context.Context, cl client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			updates++
			if theirs.CA == nil { // the other replica renews first
				if theirs, err = certs.DefaultPolicy.Apply(old, certs.RenewServing, hosts, now); err != nil {
					return err
				}
				s := &corev1.Secret{}
				if err := cl.Get(ctx, secretKey, s); err != nil {
					return err
				}
				s.Data = theirs.Data()
				if err := cl.Update(ctx, s); err != nil {
					return err
				}
				return apierrors.NewConflict(schema.GroupResource{Resource: "secrets"}, secretKey.Name, nil)
			}
			return cl.Update(ctx, obj, opts...)
		},
	})
	got, err := newSelfManaged(c, now).converge(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !got.Serving.Cert.Equal(theirs.Serving.Cert) || updates != 1 {
		t.Errorf("after a conflict: the other replica's certificate %v, updates %d; want it, and 1 update",
			got.Serving.Cert.Equal(theirs.Serving.Cert), updates)
	}
}

// TestWriteSwitchesBothFilesAtOnce: the cert dir gets the serving pair through the ..data link; a
// write of the same pair changes nothing (no reload for nothing), a new pair switches the link and
// removes the old pair.
func TestWriteSwitchesBothFilesAtOnce(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "certs")
	m := &selfManaged{certDir: dir}
	first, err := certs.DefaultPolicy.Apply(certs.Set{}, certs.RenewCA, []string{"a"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	second, err := certs.DefaultPolicy.Apply(first, certs.RenewServing, []string{"a"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "..data")
	targets := make([]string, 0, 3)
	for _, set := range []certs.Set{first, first, second} {
		if err := m.write(set); err != nil {
			t.Fatal(err)
		}
		kp, err := certs.ParseKeyPair(must(os.ReadFile(filepath.Join(dir, certs.KeyCert))),
			must(os.ReadFile(filepath.Join(dir, certs.KeyKey))))
		if err != nil || !kp.Cert.Equal(set.Serving.Cert) {
			t.Fatalf("the cert dir does not hold the pair written (%v)", err)
		}
		target, err := os.Readlink(data)
		if err != nil {
			t.Fatal(err)
		}
		targets = append(targets, target)
	}
	if targets[0] != targets[1] || targets[1] == targets[2] {
		t.Errorf("..data pointed at %v: want it kept for the same pair, switched for a new one", targets)
	}
	entries, _ := os.ReadDir(dir)
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{"..data", targets[2], "tls.crt", "tls.key"}; strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("the cert dir holds %v, want %v", names, want)
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
