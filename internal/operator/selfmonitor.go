package operator

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/webapp-operator/webapp-operator/internal/resources"
)

// The operator's own ServiceMonitor. A bundle cannot carry one: OLM fails the whole InstallPlan on a
// cluster without the Prometheus Operator's CRDs, which is most of them. So the operator applies it
// itself where the CRD is served (discovered at start-up, like the children's optional kinds), for
// its metrics Service, and owned by that Service: it goes when the operator is uninstalled. Where the
// CRD is not served, nothing is tried. config/prometheus/monitor.yaml is the same object, for
// kustomize installs that do not run the operator with --metrics-service-monitor.

// DefaultMetricsService is the name of the operator's metrics Service, in the bundle and in
// config/default alike.
const DefaultMetricsService = "webapp-operator-controller-manager-metrics-service"

// metricsServiceLabels select the metrics Service: they are the labels config/default and the bundle
// give it.
var metricsServiceLabels = map[string]string{"control-plane": "controller-manager", "app.kubernetes.io/name": "webapp-operator"}

// selfMonitor applies the ServiceMonitor of the metrics Service svc once the operator leads,
// retrying every retry until it succeeds.
type selfMonitor struct {
	client client.Client
	reader client.Reader
	svc    types.NamespacedName
	retry  time.Duration
}

func (m selfMonitor) NeedLeaderElection() bool { return true }

func (m selfMonitor) Start(ctx context.Context) error {
	log := logf.FromContext(ctx).WithValues("service", m.svc)
	for {
		err := m.apply(ctx)
		switch {
		case err == nil:
			log.Info("Applied the operator's ServiceMonitor")
			return nil
		case apierrors.IsNotFound(err):
			// run outside its Deployment (make run, tests): there is nothing to scrape
			log.Info("No metrics Service: no ServiceMonitor for the operator")
			return nil
		}
		log.Error(err, "Applying the operator's ServiceMonitor; retrying", "in", m.retry)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(m.retry):
		}
	}
}

func (m selfMonitor) apply(ctx context.Context) error {
	svc := &corev1.Service{}
	if err := m.reader.Get(ctx, m.svc, svc); err != nil {
		return err
	}
	sm, err := selfServiceMonitor(svc)
	if err != nil {
		return err
	}
	return m.client.Apply(ctx, client.ApplyConfigurationFromUnstructured(sm),
		client.FieldOwner(resources.FieldOwner), client.ForceOwnership)
}

// selfServiceMonitor renders the ServiceMonitor of the operator's metrics Service svc, as
// config/prometheus/monitor.yaml has it: HTTPS with the Prometheus service account's token (the
// endpoint's authentication and authorization need it), the certificate controller-runtime makes for
// itself (hence insecureSkipVerify), and honorLabels, so that a WebApp's metrics keep their own
// namespace label.
func selfServiceMonitor(svc *corev1.Service) (*unstructured.Unstructured, error) {
	for k, v := range metricsServiceLabels {
		if svc.Labels[k] != v {
			return nil, fmt.Errorf("the metrics Service %s/%s lacks the label %s=%s", svc.Namespace, svc.Name, k, v)
		}
	}
	selector := map[string]any{}
	for k, v := range metricsServiceLabels {
		selector[k] = v
	}
	u := &unstructured.Unstructured{Object: map[string]any{
		"spec": map[string]any{
			"endpoints": []any{map[string]any{
				"path": "/metrics", "port": "https", "scheme": "https", "honorLabels": true,
				"bearerTokenFile": "/var/run/secrets/kubernetes.io/serviceaccount/token",
				"tlsConfig":       map[string]any{"insecureSkipVerify": true},
			}},
			"selector": map[string]any{"matchLabels": selector},
		},
	}}
	u.SetGroupVersionKind(resources.ServiceMonitorGVK)
	u.SetNamespace(svc.Namespace)
	u.SetName(strings.TrimSuffix(svc.Name, "-service") + "-monitor")
	u.SetLabels(maps.Clone(metricsServiceLabels)) // the operator's own labels, as config/default gives them
	u.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "v1", Kind: "Service", Name: svc.Name, UID: svc.UID}})
	return u, nil
}
