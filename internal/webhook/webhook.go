// Package webhook serves the WebApp conversion webhook (/convert, controller-runtime's handler for
// the hub and spoke types of api/) and decides where its certificate comes from
// (docs/api-design.md, "Certificates"):
//
//   - files in the cert dir, put there by someone else (OLM mounts them from the CSV's
//     webhookdefinitions; cert-manager or a service CA through a Secret volume). The operator only
//     reads them and reloads them when they change; it never touches its CRD.
//   - self-managed (for a plain `make deploy` with config/webhook): the operator issues a CA and a
//     serving certificate itself, keeps them in a Secret of its namespace, writes them to the cert
//     dir, puts the CA into the CRD's caBundle and renews them at two thirds of their life.
//   - none: no certificate in the cert dir and no self-managed mode. The operator serves no webhook
//     and runs as before; nothing calls the webhook while only one version is served.
//
// Every replica serves the webhook, leader or not, and the manager starts it before its caches.
package webhook

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/webapp-operator/webapp-operator/internal/certs"
)

const (
	// DefaultCertDir is controller-runtime's default cert dir, and where OLM mounts the certificate
	// of a CSV's webhookdefinitions. It is written out rather than taken from os.TempDir(): OLM
	// mounts it there whatever TMPDIR says.
	DefaultCertDir = "/tmp/k8s-webhook-server/serving-certs"
	// DefaultPort is the port the webhook server listens on: the container port of config/webhook.
	DefaultPort = 9443
	// Path is where the conversion is served; the CRD's clientConfig names it.
	Path = "/convert"
	// ServiceName is the webhook Service of config/webhook, as config/default names it: the
	// self-managed serving certificate is for its DNS names.
	ServiceName = "webapp-operator-webhook-service"
	// SecretName is the Secret, in the operator's namespace, that holds the self-managed certificates.
	SecretName = "webapp-operator-webhook-cert"
	// CRDName is the one CRD whose caBundle the self-managed mode sets.
	CRDName = "webapps.apps.webapp-operator.io"
	// FieldOwner owns the CRD's caBundle (server-side apply): only that field, nothing else of the CRD.
	FieldOwner = "webapp-operator-webhook-ca"
)

// Options configure the webhook. The zero value serves none.
type Options struct {
	// CertDir holds tls.crt and tls.key. "" turns the webhook off.
	CertDir string
	// SelfManaged: the operator issues the certificate itself (see the package comment).
	SelfManaged bool
	// Namespace is the operator's own: where the Secret and the webhook Service are (self-managed).
	Namespace string
	// Host and Port are where the server listens ("" and 0: every address, DefaultPort).
	Host string
	Port int
	// TLSOpts adjust the server's TLS configuration (cmd/main.go turns HTTP/2 off with them).
	TLSOpts []func(*tls.Config)
	// ExtraHosts are names or addresses the self-managed certificate is for besides the Service's:
	// tests have the API server call the webhook at 127.0.0.1.
	ExtraHosts []string
	// Policy is how long self-managed certificates live (zero: certs.DefaultPolicy).
	Policy certs.Policy
	// MaxCheckInterval bounds how long a replica goes without reading the Secret and setting the
	// caBundle again, whatever the certificates' lives (0: an hour).
	MaxCheckInterval time.Duration
}

// Webhook is a conversion webhook ready to be registered with a manager; nil serves none.
type Webhook struct {
	server crwebhook.Server
}

var log = ctrl.Log.WithName("webhook")

// Prepare decides, before the manager is built, whether and how the webhook is served. In the
// self-managed mode it brings the Secret, the CRD's caBundle and the cert dir up to date first, so
// that the server has its certificate when the manager starts it. It returns nil when the webhook
// is off, and an error when a certificate is there but unusable, or the self-managed mode cannot
// get one.
func Prepare(cfg *rest.Config, scheme *runtime.Scheme, opts Options) (*Webhook, error) {
	if opts.CertDir == "" && !opts.SelfManaged {
		return nil, nil
	}
	if opts.CertDir == "" {
		return nil, errors.New("self-managed webhook certificates need a cert dir")
	}
	var r *renewer
	if opts.SelfManaged {
		var err error
		if r, err = prepareSelfManaged(cfg, scheme, opts); err != nil {
			return nil, err
		}
	} else {
		found, err := certificateIn(opts.CertDir)
		if err != nil {
			return nil, err
		}
		if !found {
			log.Info("No conversion webhook: no certificate in the cert dir and self-managed certificates "+
				"are off (--webhook-self-managed-certs); the API server cannot convert WebApps between "+
				"versions through this operator", "certDir", opts.CertDir)
			return nil, nil
		}
		log.Info("Serving the conversion webhook with the certificate of the cert dir, reloaded when it changes",
			"certDir", opts.CertDir)
	}
	server := crwebhook.NewServer(crwebhook.Options{
		Host: opts.Host, Port: orDefault(opts.Port, DefaultPort), CertDir: opts.CertDir, TLSOpts: opts.TLSOpts,
	})
	if r != nil {
		server = &renewingServer{Server: server, renewer: r}
	}
	return &Webhook{server: server}, nil
}

// renewingServer is the webhook server with the renewal of its self-managed certificates. The
// manager starts it with the webhooks, before the caches, on every replica: a cache's first list
// may need the webhook, and so a caBundle that only a retry of the renewal sets.
type renewingServer struct {
	crwebhook.Server
	renewer *renewer
}

// Start runs the renewal beside the server, until ctx ends.
func (s *renewingServer) Start(ctx context.Context) error {
	go func() { _ = s.renewer.Start(ctx) }()
	return s.Server.Start(ctx)
}

// Server is the manager's webhook server (ctrl.Options.WebhookServer), or nil when w serves none.
func (w *Webhook) Server() crwebhook.Server {
	if w == nil {
		return nil
	}
	return w.server
}

// Register serves the WebApp conversion at Path on the manager's webhook server (w.Server()).
// Nothing happens when w serves none.
func (w *Webhook) Register(mgr ctrl.Manager) error {
	if w == nil {
		return nil
	}
	// through the manager, which starts its webhook server once something is registered on it
	mgr.GetWebhookServer().Register(Path, ConversionHandler(mgr.GetScheme()))
	return nil
}

// certificateIn says whether dir holds a usable tls.crt and tls.key: false when it holds neither,
// an error when it holds one alone or a pair that does not load.
func certificateIn(dir string) (bool, error) {
	crt, key := filepath.Join(dir, certs.KeyCert), filepath.Join(dir, certs.KeyKey)
	crtFound, err := exists(crt)
	if err != nil {
		return false, err
	}
	keyFound, err := exists(key)
	if err != nil {
		return false, err
	}
	if !crtFound && !keyFound {
		return false, nil
	}
	if _, err := tls.LoadX509KeyPair(crt, key); err != nil {
		return false, fmt.Errorf("the webhook's certificate in %s: %w", dir, err)
	}
	return true, nil
}

func exists(path string) (bool, error) {
	_, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

func prepareSelfManaged(cfg *rest.Config, scheme *runtime.Scheme, opts Options) (*renewer, error) {
	if opts.Namespace == "" {
		return nil, errors.New("self-managed webhook certificates need the operator's namespace, for their Secret")
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, err
	}
	policy := opts.Policy
	if policy == (certs.Policy{}) {
		policy = certs.DefaultPolicy
	}
	m := &selfManaged{
		client:  c,
		secret:  types.NamespacedName{Namespace: opts.Namespace, Name: SecretName},
		crd:     CRDName,
		hosts:   append(certs.ServiceHosts(ServiceName, opts.Namespace), opts.ExtraHosts...),
		certDir: opts.CertDir,
		policy:  policy,
		now:     time.Now,
		maxWait: orDefault(opts.MaxCheckInterval, time.Hour),
		log:     log.WithValues("secret", opts.Namespace+"/"+SecretName),
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	next, err := m.first(ctx)
	if err != nil {
		return nil, fmt.Errorf("self-managed webhook certificates: %w", err)
	}
	m.log.Info("Serving the conversion webhook with self-managed certificates", "certDir", opts.CertDir,
		"hosts", m.hosts, "nextCheck", next)
	return &renewer{m: m, next: next, retry: 30 * time.Second, log: m.log}, nil
}

func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// renewer keeps the self-managed certificates renewed while the operator runs, on every replica,
// since each serves the webhook from files of its own.
type renewer struct {
	m     *selfManaged
	next  time.Time
	retry time.Duration
	log   logr.Logger
}

// Start syncs at each planned check, and retries a failed sync after r.retry.
func (r *renewer) Start(ctx context.Context) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(max(time.Until(r.next), 0)):
		}
		next, err := r.m.sync(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			r.log.Error(err, "Renewing the webhook's certificates; retrying", "in", r.retry)
			next = time.Now().Add(r.retry)
		}
		r.next = next
	}
}
