// Package operator assembles the manager that runs the WebApp controller. cmd/main.go, the
// envtest suite and the local development runner all build it here, so tests exercise the very
// cache and controller configuration that production runs.
package operator

import (
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/internal/controller"
	"github.com/webapp-operator/webapp-operator/internal/metrics"
	"github.com/webapp-operator/webapp-operator/internal/migration"
	"github.com/webapp-operator/webapp-operator/internal/resources"
	"github.com/webapp-operator/webapp-operator/internal/served"
	"github.com/webapp-operator/webapp-operator/internal/webhook"
)

// Scheme knows the built-in types and both versions of the WebApp API: v1beta1, which the operator
// reads (package served) and the conversion webhook converts to and from, and v1alpha1, which the
// webhook converts.
var Scheme = runtime.NewScheme()

func init() {
	utilruntime.Must(clientgoscheme.AddToScheme(Scheme))
	utilruntime.Must(served.AddToScheme(Scheme))
	utilruntime.Must(webappv1.AddToScheme(Scheme))
}

// Options configure the manager.
type Options struct {
	// Namespaces to watch; empty means the whole cluster.
	Namespaces []string
	// MaxConcurrentReconciles is how many WebApps are reconciled in parallel.
	MaxConcurrentReconciles int
	// TerminalRecheck is how often a WebApp stalled on a terminal problem looks again (0: default).
	TerminalRecheck time.Duration
	// SkipControllerNameValidation lets a second manager run the WebApp controller in the same
	// process (tests restart the operator that way); controller names must otherwise be unique.
	SkipControllerNameValidation bool
	// Metrics configures the metrics endpoint; BindAddress "0" disables it.
	Metrics metricsserver.Options
	// HealthProbeBindAddress serves /healthz and /readyz; "0" disables it.
	HealthProbeBindAddress string
	// PprofBindAddress serves Go's profiles (net/http/pprof); "" or "0" disables it.
	PprofBindAddress string
	// CacheFailureTolerance is how long an informer may keep failing to list or watch before the
	// liveness probe fails (0: DefaultCacheFailureTolerance).
	CacheFailureTolerance time.Duration
	// LeaderElection makes only one replica reconcile at a time.
	LeaderElection          bool
	LeaderElectionNamespace string
	// LeaseDuration, RenewDeadline and RetryPeriod time the leader election (0: the defaults below).
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	// MetricsService, when set, is the operator's metrics Service: where the Prometheus Operator's
	// ServiceMonitor CRD is served, the operator applies a ServiceMonitor for it (selfmonitor.go).
	MetricsService types.NamespacedName
	// SecretRollouts: watch and fingerprint the Secrets the pods read, so that a change of one rolls
	// them, as for ConfigMaps (secrets.go). It needs Secret permissions the default install does not grant.
	SecretRollouts bool
	// ConfigKeySecret is the Secret that holds the key of those fingerprints (ConfigKeySecret in the
	// operator's namespace); read only with SecretRollouts.
	ConfigKeySecret types.NamespacedName
	// Webhook configures the conversion webhook and its certificate (internal/webhook); the zero
	// value serves none.
	Webhook webhook.Options
}

// LeaderElectionID is the name of the Lease the replicas compete for.
const LeaderElectionID = "webapp-operator.webapp-operator.io"

// The leader election's timings ride out an API server that is away for 60 s, the figure OpenShift
// asks of operators (and its library-go's defaults): the leader keeps trying to renew for
// RenewDeadline before it gives up its lease and exits, and a standby waits LeaseDuration after the
// last renewal before it takes over. controller-runtime's defaults (15 s, 10 s, 2 s) make the
// operator exit after about 10 s without the API server.
const (
	DefaultLeaseDuration = 137 * time.Second
	DefaultRenewDeadline = 107 * time.Second
	DefaultRetryPeriod   = 26 * time.Second
)

// ParseNamespaces reads WATCH_NAMESPACE as OLM sets it: "" (all namespaces), "ns" or "ns1,ns2".
func ParseNamespaces(value string) []string {
	var out []string
	for _, ns := range strings.Split(value, ",") {
		if ns = strings.TrimSpace(ns); ns != "" {
			out = append(out, ns)
		}
	}
	return out
}

// NewManager returns a manager with the WebApp controller registered and health checks added.
func NewManager(cfg *rest.Config, opts Options) (ctrl.Manager, error) {
	health := newCacheHealth(opts.CacheFailureTolerance)
	unserved, err := unservedChildren(cfg, Scheme)
	if err != nil {
		return nil, err
	}
	secrets, err := secretRollouts(cfg, opts)
	if err != nil {
		return nil, err
	}
	logSecretRollouts(secrets)
	hook, err := webhook.Prepare(cfg, Scheme, opts.Webhook)
	if err != nil {
		return nil, err
	}
	kinds := watchedKinds(unserved, secrets.Secrets == controller.SecretRolloutsOn)
	cacheOpts := cacheOptions(opts.Namespaces, kinds)
	cacheOpts.DefaultWatchErrorHandler = health.watchError
	webApps := &controller.WebApps{}
	cacheOpts.NewInformer = webApps.NewInformer
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme: Scheme,
		Cache:  cacheOpts,
		// The HTTPRoute and the ServiceMonitor children are read as unstructured objects (their Go
		// types are not the operator's to import); without this the client would read them from the
		// API server on every pass instead of from the cache.
		Client:                  client.Options{Cache: &client.CacheOptions{Unstructured: true}},
		Metrics:                 opts.Metrics,
		HealthProbeBindAddress:  opts.HealthProbeBindAddress,
		PprofBindAddress:        opts.PprofBindAddress,
		LeaderElection:          opts.LeaderElection,
		LeaderElectionID:        LeaderElectionID,
		LeaderElectionNamespace: opts.LeaderElectionNamespace,
		LeaseDuration:           orDefault(opts.LeaseDuration, DefaultLeaseDuration),
		RenewDeadline:           orDefault(opts.RenewDeadline, DefaultRenewDeadline),
		RetryPeriod:             orDefault(opts.RetryPeriod, DefaultRetryPeriod),
		// The process exits right after the manager stops, so hand the lease over at once.
		LeaderElectionReleaseOnCancel: true,
		Controller:                    config.Controller{SkipNameValidation: &opts.SkipControllerNameValidation},
		// nil without a webhook: the manager then starts no webhook server
		WebhookServer: hook.Server(),
	})
	if err != nil {
		return nil, fmt.Errorf("creating manager: %w", err)
	}
	// the per-WebApp gauges read the same cache the reconciler does: no informer of their own
	collector := metrics.NewCollector(webApps)
	if err := mgr.Add(collector); err != nil {
		return nil, err
	}
	r := &controller.WebAppReconciler{
		Client:                  mgr.GetClient(),
		APIReader:               mgr.GetAPIReader(),
		WebApps:                 webApps,
		Recorder:                mgr.GetEventRecorder("webapp-operator"),
		TerminalRecheck:         opts.TerminalRecheck,
		MaxConcurrentReconciles: opts.MaxConcurrentReconciles,
		Metrics:                 collector,
		Unserved:                unserved,
		Config:                  secrets,
	}
	watches := make([]controller.Watched, 0, len(kinds))
	informers := make([]client.Object, 0, len(kinds))
	for _, k := range kinds {
		watches, informers = append(watches, k.Watched), append(informers, k.Object)
	}
	if err := r.SetupWithManager(mgr, watches); err != nil {
		return nil, fmt.Errorf("setting up the WebApp controller: %w", err)
	}
	if err := hook.Register(mgr); err != nil {
		return nil, err
	}
	// With the webhook on, the WebApp informer's first list may need it (objects stored in the other
	// version), so readiness waits for the webhook server instead (health.go).
	if err := mgr.Add(syncWatcher{health: health, cache: mgr.GetCache(), informers: informers,
		webApps: webAppObject(kinds), readyWithoutWebApps: hook != nil}); err != nil {
		return nil, err
	}
	if opts.MetricsService.Name != "" && !unserved[resources.ServiceMonitor.Kind()] {
		if err := mgr.Add(selfMonitor{client: mgr.GetClient(), reader: mgr.GetAPIReader(), svc: opts.MetricsService,
			retry: 30 * time.Second}); err != nil {
			return nil, err
		}
	}
	// The storage migration (docs/api-design.md): where the CRD's status.storedVersions lists only
	// its storage version, it reads the CRD once and ends.
	migrator, err := migration.New(cfg, "webapps."+served.GroupVersion.Group)
	if err != nil {
		return nil, err
	}
	if err := mgr.Add(migrator); err != nil {
		return nil, err
	}
	if err := mgr.AddHealthzCheck("informers", health.alive); err != nil {
		return nil, err
	}
	if err := mgr.AddReadyzCheck("caches-synced", health.ready); err != nil {
		return nil, err
	}
	if hook != nil {
		if err := mgr.AddReadyzCheck("webhook", hook.Server().StartedChecker()); err != nil {
			return nil, err
		}
	}
	return mgr, nil
}

// webAppObject is the object of the WebApp informer among kinds.
func webAppObject(kinds []watched) client.Object {
	for _, k := range kinds {
		if k.How == controller.WatchWebApp {
			return k.Object
		}
	}
	return nil
}

func logSecretRollouts(c controller.ConfigOptions) {
	log := ctrl.Log.WithName("setup")
	switch c.Secrets {
	case controller.SecretRolloutsOff:
		log.Info("config rollouts on Secret changes are off: Secrets are neither watched nor read; " +
			"a change of a ConfigMap still rolls the pods that read it")
	case controller.SecretRolloutsForbidden:
		log.Info("config rollouts on Secret changes were asked for but are not permitted: the WebApps that "+
			"read a Secret report ConfigWatchForbidden", "refused", c.Forbidden)
	default:
		log.Info("config rollouts on Secret changes are on")
	}
}

func orDefault(d, def time.Duration) *time.Duration {
	if d <= 0 {
		d = def
	}
	return &d
}
