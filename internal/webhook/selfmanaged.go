package webhook

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/webapp-operator/webapp-operator/internal/certs"
)

// selfManaged keeps one Secret of certificates (certs.Set) that every replica shares, the CRD's
// caBundle and the replica's own cert dir in line with it.
type selfManaged struct {
	client  client.Client
	secret  types.NamespacedName
	crd     string
	hosts   []string
	certDir string
	policy  certs.Policy
	now     func() time.Time
	maxWait time.Duration
	log     logr.Logger
}

// first is the sync at start-up. The webhook server has not started then, so there is nothing
// served that a caBundle not yet set could break: the files are written even when setting it fails
// (say, the CRD's conversion is not the webhook yet, or the operator may not patch it), and the
// renewer retries it.
func (m *selfManaged) first(ctx context.Context) (time.Time, error) {
	set, err := m.converge(ctx)
	if err != nil {
		return time.Time{}, err
	}
	injectErr := m.inject(ctx, set)
	if err := m.write(set); err != nil {
		return time.Time{}, err
	}
	if injectErr != nil {
		m.log.Error(injectErr, "Setting the CRD's caBundle; the API server cannot call the webhook until it is set. "+
			"Retrying", "crd", m.crd)
		return m.now(), nil
	}
	return m.nextCheck(set), nil
}

// sync brings the Secret, the CRD's caBundle and the cert dir up to date, in that order: the API
// server trusts a new CA before the replica serves a certificate it signed. It returns when to
// sync next.
func (m *selfManaged) sync(ctx context.Context) (time.Time, error) {
	set, err := m.converge(ctx)
	if err != nil {
		return time.Time{}, err
	}
	if err := m.inject(ctx, set); err != nil {
		return time.Time{}, fmt.Errorf("setting the caBundle of CRD %s: %w", m.crd, err)
	}
	if err := m.write(set); err != nil {
		return time.Time{}, err
	}
	return m.nextCheck(set), nil
}

func (m *selfManaged) nextCheck(set certs.Set) time.Time {
	next, limit := set.NextCheck(), m.now().Add(m.maxWait)
	if next.After(limit) {
		return limit
	}
	return next
}

// converge reads the Secret and returns its certificates, making or renewing them first when
// certs.Plan says so. Replicas agree through the API server: a create that finds the Secret made,
// or an update that finds it changed, reads it again and takes what another replica wrote.
func (m *selfManaged) converge(ctx context.Context) (certs.Set, error) {
	for range 5 {
		s := &corev1.Secret{}
		err := m.client.Get(ctx, m.secret, s)
		if apierrors.IsNotFound(err) {
			set, err := m.policy.Apply(certs.Set{}, certs.RenewCA, m.hosts, m.now())
			if err != nil {
				return certs.Set{}, err
			}
			s = &corev1.Secret{
				ObjectMeta: metav1.ObjectMeta{Namespace: m.secret.Namespace, Name: m.secret.Name,
					Labels: map[string]string{"app.kubernetes.io/name": "webapp-operator"}},
				Type: corev1.SecretTypeTLS, Data: set.Data(),
			}
			if err := m.client.Create(ctx, s); apierrors.IsAlreadyExists(err) {
				continue
			} else if err != nil {
				return certs.Set{}, fmt.Errorf("creating Secret %s: %w", m.secret, err)
			}
			m.log.Info("Issued the webhook's CA and serving certificate", "hosts", m.hosts)
			return set, nil
		}
		if err != nil {
			return certs.Set{}, fmt.Errorf("reading Secret %s: %w", m.secret, err)
		}
		set := certs.FromData(s.Data)
		action, why := certs.Plan(set, m.hosts, m.now())
		if action == certs.Keep {
			return set, nil
		}
		if set, err = m.policy.Apply(set, action, m.hosts, m.now()); err != nil {
			return certs.Set{}, err
		}
		s.Data = set.Data()
		if err := m.client.Update(ctx, s); apierrors.IsConflict(err) {
			continue
		} else if err != nil {
			return certs.Set{}, fmt.Errorf("updating Secret %s: %w", m.secret, err)
		}
		m.log.Info("Renewed the webhook's certificates", "action", action.String(), "why", why)
		return set, nil
	}
	return certs.Set{}, fmt.Errorf("the Secret %s kept changing while it was renewed", m.secret)
}

// inject sets the CRD's conversion caBundle to the trusted CAs with server-side apply, owning that
// one field: whoever applies the rest of the CRD (kubectl apply --server-side) keeps the rest. It
// reads the CRD first and applies only a change: the API server validates the whole CRD (its CEL
// rules compiled) on every write, a no-op one too.
func (m *selfManaged) inject(ctx context.Context, set certs.Set) error {
	crd := &unstructured.Unstructured{}
	crd.SetAPIVersion("apiextensions.k8s.io/v1")
	crd.SetKind("CustomResourceDefinition")
	bundle := base64.StdEncoding.EncodeToString(certs.EncodeCerts(set.Trust))
	caBundle := []string{"spec", "conversion", "webhook", "clientConfig", "caBundle"}
	if err := m.client.Get(ctx, types.NamespacedName{Name: m.crd}, crd); err != nil {
		return err
	}
	if current, _, _ := unstructured.NestedString(crd.Object, caBundle...); current == bundle {
		return nil
	}
	crd.Object = map[string]any{"apiVersion": crd.GetAPIVersion(), "kind": crd.GetKind(),
		"metadata": map[string]any{"name": m.crd}}
	if err := unstructured.SetNestedField(crd.Object, bundle, caBundle...); err != nil {
		return err
	}
	if err := m.client.Apply(ctx, client.ApplyConfigurationFromUnstructured(crd), client.FieldOwner(FieldOwner),
		client.ForceOwnership); err != nil {
		return err
	}
	m.log.Info("Set the CRD's caBundle", "crd", m.crd, "cas", len(set.Trust))
	return nil
}

// write puts the serving certificate into the cert dir, where the webhook server's certificate
// watcher picks it up. The pair is written into a directory of its own, and tls.crt and tls.key are
// links through ..data to it, as the kubelet lays out a Secret volume: switching ..data (one rename)
// switches both files at once, so the watcher never reads the key of one pair with the certificate
// of another. A pair already there is left alone.
func (m *selfManaged) write(set certs.Set) error {
	dir := m.certDir
	crt, key := filepath.Join(dir, certs.KeyCert), filepath.Join(dir, certs.KeyKey)
	if bytes.Equal(readOrNil(crt), set.Serving.CertPEM) && bytes.Equal(readOrNil(key), set.Serving.KeyPEM) {
		return nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	pair, err := os.MkdirTemp(dir, "..pair-")
	if err != nil {
		return err
	}
	for name, data := range map[string][]byte{certs.KeyCert: set.Serving.CertPEM, certs.KeyKey: set.Serving.KeyPEM} {
		if err := os.WriteFile(filepath.Join(pair, name), data, 0o600); err != nil {
			return err
		}
	}
	data := filepath.Join(dir, "..data")
	old, _ := os.Readlink(data)
	link := filepath.Join(dir, "..data_tmp")
	_ = os.Remove(link)
	if err := os.Symlink(filepath.Base(pair), link); err != nil {
		return err
	}
	if err := os.Rename(link, data); err != nil {
		return err
	}
	for _, name := range []string{certs.KeyCert, certs.KeyKey} {
		if err := linkThroughData(filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	if old != "" {
		return os.RemoveAll(filepath.Join(dir, old))
	}
	return nil
}

// linkThroughData makes path a link to the file of its name under ..data, once.
func linkThroughData(path string) error {
	target := filepath.Join("..data", filepath.Base(path))
	if current, err := os.Readlink(path); err == nil && current == target {
		return nil
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return os.Symlink(target, path)
}

func readOrNil(path string) []byte {
	data, _ := os.ReadFile(path)
	return data
}
