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

// Command manager runs the webapp-operator.
package main

import (
	"crypto/tls"
	"flag"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	// Import all Kubernetes client auth plugins (e.g. Azure, GCP, OIDC, etc.)
	// to ensure that exec-entrypoint and run can make use of them.
	"k8s.io/apimachinery/pkg/types"
	_ "k8s.io/client-go/plugin/pkg/client/auth"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/webapp-operator/webapp-operator/internal/operator"
	"github.com/webapp-operator/webapp-operator/internal/webhook"
)

// version is the operator's release (v0.1.0), set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	var (
		metricsAddr, probeAddr, leaderNS   string
		pprofAddr                          string
		secureMetrics, enableHTTP2, leader bool
		serviceMonitor, secretRollouts     bool
		webhookCertDir                     string
		selfManagedCerts                   bool
		maxConcurrent                      int
		qps                                float64
		burst                              int
		cacheFailureTolerance              time.Duration
		lease, renew, retry                time.Duration
	)
	flag.StringVar(&metricsAddr, "metrics-bind-address", "0",
		"The address the metrics endpoint binds to. Use :8443 for HTTPS or :8080 for HTTP; 0 disables it.")
	flag.StringVar(&probeAddr, "health-probe-bind-address", ":8081", "The address the probe endpoint binds to.")
	flag.StringVar(&pprofAddr, "pprof-bind-address", "0",
		"The address Go's profiles (/debug/pprof/) are served on, without authentication; \"0\" disables them.")
	flag.BoolVar(&leader, "leader-elect", false,
		"Enable leader election, so that only one replica of the operator reconciles at a time.")
	flag.StringVar(&leaderNS, "leader-elect-namespace", "",
		"The namespace of the leader election Lease; in a cluster, the operator's own namespace.")
	flag.DurationVar(&lease, "leader-elect-lease-duration", operator.DefaultLeaseDuration,
		"How long a standby waits after the leader's last renewal before it takes over.")
	flag.DurationVar(&renew, "leader-elect-renew-deadline", operator.DefaultRenewDeadline,
		"How long the leader keeps trying to renew its lease (say, through an API server outage) before it gives up.")
	flag.DurationVar(&retry, "leader-elect-retry-period", operator.DefaultRetryPeriod,
		"How often the replicas try to acquire or renew the lease.")
	flag.BoolVar(&secureMetrics, "metrics-secure", true,
		"Serve metrics over HTTPS with authentication and authorization (TokenReview/SubjectAccessReview).")
	flag.BoolVar(&enableHTTP2, "enable-http2", false,
		"Enable HTTP/2 for the metrics and webhook servers (off by default: HTTP/2 Stream Cancellation and Rapid "+
			"Reset CVEs).")
	flag.IntVar(&maxConcurrent, "max-concurrent-reconciles", 8, "How many WebApps are reconciled in parallel.")
	flag.Float64Var(&qps, "kube-api-qps", 100, "Sustained queries per second to the Kubernetes API server.")
	flag.IntVar(&burst, "kube-api-burst", 200, "Burst of queries to the Kubernetes API server.")
	flag.BoolVar(&serviceMonitor, "metrics-service-monitor", true,
		"Where the Prometheus Operator's ServiceMonitor CRD is served, apply a ServiceMonitor for the operator's "+
			"metrics Service ("+operator.DefaultMetricsService+", in the operator's namespace).")
	flag.DurationVar(&cacheFailureTolerance, "cache-failure-tolerance", operator.DefaultCacheFailureTolerance,
		"How long an informer may keep failing to list or watch before the liveness probe fails.")
	// An env var too, so that OLM's Subscription config (spec.config.env) can set it.
	secretEnv, _ := strconv.ParseBool(os.Getenv("SECRET_ROLLOUTS"))
	flag.BoolVar(&secretRollouts, "secret-rollouts", secretEnv,
		"Roll a WebApp's pods when a Secret they read changes, as for ConfigMaps (default: $SECRET_ROLLOUTS, else "+
			"false). It needs get, list and watch on Secrets where the operator watches, and a key Secret in its "+
			"own namespace (docs/security.md).")
	flag.StringVar(&webhookCertDir, "webhook-cert-dir", webhook.DefaultCertDir,
		"Where the conversion webhook's tls.crt and tls.key are (OLM mounts them here). With neither file there and "+
			"--webhook-self-managed-certs off, no webhook is served; \"\" turns it off.")
	flag.BoolVar(&selfManagedCerts, "webhook-self-managed-certs", false,
		"Issue the conversion webhook's certificate: a CA and a serving certificate in the Secret "+webhook.SecretName+
			" of the operator's namespace, written to --webhook-cert-dir, the CA put into the CRD's caBundle, both "+
			"renewed at two thirds of their life. Only config/webhook sets it; never under OLM.")
	zapOpts := zap.Options{Development: false}
	zapOpts.BindFlags(flag.CommandLine)
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zapOpts)))
	log := ctrl.Log.WithName("setup")
	if limit := setMemoryLimit(); limit > 0 {
		log.Info("Go memory limit set from the container's", "bytes", limit)
	}

	var tlsOpts []func(*tls.Config)
	if !enableHTTP2 {
		tlsOpts = append(tlsOpts, func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} })
	}
	metrics := metricsserver.Options{BindAddress: metricsAddr, SecureServing: secureMetrics, TLSOpts: tlsOpts}
	if secureMetrics {
		metrics.FilterProvider = filters.WithAuthenticationAndAuthorization
	}

	cfg := ctrl.GetConfigOrDie()
	cfg.QPS = float32(qps)
	cfg.Burst = burst
	namespaces := operator.ParseNamespaces(os.Getenv("WATCH_NAMESPACE"))
	mgr, err := operator.NewManager(cfg, operator.Options{
		Namespaces:              namespaces,
		MaxConcurrentReconciles: maxConcurrent,
		Metrics:                 metrics,
		HealthProbeBindAddress:  probeAddr,
		PprofBindAddress:        pprofAddr,
		CacheFailureTolerance:   cacheFailureTolerance,
		LeaderElection:          leader,
		LeaderElectionNamespace: leaderNS,
		LeaseDuration:           lease,
		RenewDeadline:           renew,
		RetryPeriod:             retry,
		MetricsService:          metricsService(serviceMonitor),
		SecretRollouts:          secretRollouts,
		ConfigKeySecret:         types.NamespacedName{Namespace: ownNamespace(leaderNS), Name: operator.ConfigKeySecret},
		Webhook: webhook.Options{CertDir: webhookCertDir, SelfManaged: selfManagedCerts,
			Namespace: ownNamespace(leaderNS), TLSOpts: tlsOpts},
	})
	if err != nil {
		log.Error(err, "unable to set up the manager")
		os.Exit(1)
	}
	log.Info("starting manager", "version", version, "namespaces", namespaces,
		"maxConcurrentReconciles", maxConcurrent, "qps", qps, "burst", burst, "secretRollouts", secretRollouts)
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		log.Error(err, "manager stopped with an error")
		os.Exit(1)
	}
}

// setMemoryLimit sets the Go runtime's soft memory limit to 90% of the container's memory limit, which
// the Deployment passes in MEMORY_LIMIT (bytes, from the downward API), unless GOMEMLIMIT is set. Near
// the limit the garbage collector then runs harder, instead of the heap growing until the kernel kills
// the container; the rest is left for what the runtime cannot collect (stacks, buffers). It returns the
// limit it set, or 0.
func setMemoryLimit() int64 {
	if os.Getenv("GOMEMLIMIT") != "" {
		return 0
	}
	limit, err := strconv.ParseInt(os.Getenv("MEMORY_LIMIT"), 10, 64)
	if err != nil || limit <= 0 {
		return 0
	}
	limit = limit / 10 * 9
	debug.SetMemoryLimit(limit)
	return limit
}

// metricsService is the operator's metrics Service in its own namespace (its ServiceAccount's, where
// it runs as a pod), or nothing when the ServiceMonitor is off or the namespace is unknown.
func metricsService(on bool) types.NamespacedName {
	ns := ownNamespace("")
	if !on || ns == "" {
		return types.NamespacedName{}
	}
	return types.NamespacedName{Namespace: ns, Name: operator.DefaultMetricsService}
}

// ownNamespace is the operator's namespace: its ServiceAccount's where it runs as a pod, else
// otherwise (the leader election's, out of a cluster).
func ownNamespace(otherwise string) string {
	ns, err := os.ReadFile("/var/run/secrets/kubernetes.io/serviceaccount/namespace")
	if err != nil {
		return otherwise
	}
	return strings.TrimSpace(string(ns))
}
