// Package metrics exports what the operator knows about WebApps to Prometheus, on controller-runtime's
// registry (the one its /metrics endpoint serves, with the same HTTPS authentication and
// authorization).
//
// The per-WebApp gauges follow kube-state-metrics: a Collector reads the WebApps from the manager's
// cache at scrape time, so a series exists exactly as long as its WebApp, and the reconciler never has
// to delete one. What the cache cannot tell (when a pass last succeeded, how long a rollout took) comes
// from one hook the reconciler calls after each pass (ObservePass).
//
// Labels are bounded: namespace and name identify a WebApp, condition types and reasons are the
// operator's own constants (package status). No message, image or other free text is a label.
package metrics

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/webapp-operator/webapp-operator/api/v1beta1"
)

// The names of the metrics this package exports. docs/observability.md lists each; the dashboard and
// the alert rules may use only these and controller-runtime's (a test in test/observability checks).
const (
	ConditionName         = "webapp_condition"
	SpecReplicasName      = "webapp_spec_replicas"
	ReadyReplicasName     = "webapp_status_replicas_ready"
	AvailableReplicasName = "webapp_status_replicas_available"
	LastSuccessName       = "webapp_last_successful_reconcile_timestamp_seconds"
	StalledName           = "webapp_stalled"
	RolloutDurationName   = "webapp_rollout_duration_seconds"
)

var (
	webAppLabels  = []string{"namespace", "name"}
	conditionDesc = prometheus.NewDesc(ConditionName,
		"The WebApp's status conditions: 1 for the current status and reason of each condition type.",
		[]string{"namespace", "name", "type", "status", "reason"}, nil)
	specReplicasDesc = prometheus.NewDesc(SpecReplicasName,
		"The number of replicas the WebApp asks for (spec.replicas).", webAppLabels, nil)
	readyReplicasDesc = prometheus.NewDesc(ReadyReplicasName,
		"The number of the WebApp's pods that pass their readiness probe (status.readyReplicas).", webAppLabels, nil)
	availableReplicasDesc = prometheus.NewDesc(AvailableReplicasName,
		"The number of the WebApp's pods available for at least minReadySeconds (status.availableReplicas).",
		webAppLabels, nil)
	lastSuccessDesc = prometheus.NewDesc(LastSuccessName,
		"When this operator process last finished a pass over the WebApp without error (Unix time); "+
			"absent until the first such pass.", webAppLabels, nil)
	stalledDesc = prometheus.NewDesc(StalledName,
		"The number of WebApps whose Stalled condition is True, by reason: problems only a change can fix.",
		[]string{"reason"}, nil)
)

// RolloutDuration measures how long a WebApp's Ready condition stayed False before it turned True:
// the rollout of a new spec or of a new WebApp (from its creation), or the recovery from lost pods. A
// rollout that completes between two passes, so that no pass saw Ready False, is not measured (a
// Deployment's own rollout is not visible to the operator otherwise). It has no per-WebApp
// labels, so its series never go stale; the dashboard shows the fleet's quantiles.
var RolloutDuration = prometheus.NewHistogram(prometheus.HistogramOpts{
	Name: RolloutDurationName,
	Help: "How long a WebApp's Ready condition stayed False (a rollout, or a recovery) before it turned True.",
	// from a quick image swap to a rollout that nearly hits the default progress deadline and beyond
	Buckets: []float64{5, 10, 20, 30, 60, 120, 180, 300, 600, 900, 1800, 3600},
})

func init() {
	// the histogram is process-wide: it does not depend on a manager, and a restarted manager (tests)
	// keeps adding to it
	ctrlmetrics.Registry.MustRegister(RolloutDuration)
}

// Collector is a prometheus.Collector of the per-WebApp gauges, and a leader-election runnable that
// registers it while this replica leads: only the replica that reconciles reports, so Prometheus does
// not see every WebApp once per replica.
type Collector struct {
	lister     Lister
	registerer prometheus.Registerer
	now        func() time.Time

	mu          sync.Mutex
	lastSuccess map[types.UID]time.Time
}

// Lister lists the WebApps of the cache, as controller.WebApps does. One whose spec does not decode
// comes with its metadata and status alone; the objects are the cache's, read and never modified.
type Lister interface {
	ListWebApps() ([]*v1beta1.WebApp, error)
}

// NewCollector returns a Collector that lists WebApps with lister (the manager's cache) and registers
// itself on controller-runtime's registry when started.
func NewCollector(lister Lister) *Collector {
	return &Collector{lister: lister, registerer: ctrlmetrics.Registry, now: time.Now,
		lastSuccess: map[types.UID]time.Time{}}
}

// ObservePass is the reconciler's hook, called after each pass over a WebApp with the status it had
// before the pass, the status the pass computed, and the pass's error (nil also when the status was
// written). A failed pass is no success, and its status may not have been written: the next pass sees
// the same transition again, so only a successful pass observes a rollout.
func (c *Collector) ObservePass(app metav1.Object, before, after v1beta1.WebAppStatus, err error) {
	if c == nil || err != nil {
		return
	}
	c.mu.Lock()
	c.lastSuccess[app.GetUID()] = c.now()
	c.mu.Unlock()
	if d, ok := RolloutTime(app.GetCreationTimestamp().Time, before, after); ok {
		RolloutDuration.Observe(d.Seconds())
	}
}

// RolloutTime returns how long the Ready condition stayed False when it turns True from before to
// after, and false when it does not turn True in this pass. A WebApp whose first status is Ready
// (its rollout ended before a pass saw it) was not Ready since its creation.
func RolloutTime(created time.Time, before, after v1beta1.WebAppStatus) (time.Duration, bool) {
	was := meta.FindStatusCondition(before.Conditions, v1beta1.ConditionReady)
	now := meta.FindStatusCondition(after.Conditions, v1beta1.ConditionReady)
	if now == nil || now.Status != metav1.ConditionTrue || (was != nil && was.Status == metav1.ConditionTrue) {
		return 0, false
	}
	start := created
	if was != nil {
		start = was.LastTransitionTime.Time
	}
	return max(now.LastTransitionTime.Sub(start), 0), true
}

// Describe sends the descriptions of the per-WebApp gauges.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{conditionDesc, specReplicasDesc, readyReplicasDesc,
		availableReplicasDesc, lastSuccessDesc, stalledDesc} {
		ch <- d
	}
}

// Collect reads the WebApps from the cache and sends their gauges.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	items, err := c.lister.ListWebApps()
	if err != nil {
		// an invalid metric makes the scrape report the error, instead of a silently empty fleet
		ch <- prometheus.NewInvalidMetric(conditionDesc, err)
		return
	}
	c.mu.Lock()
	c.lastSuccess = prune(c.lastSuccess, items)
	last := make(map[types.UID]time.Time, len(c.lastSuccess))
	for k, v := range c.lastSuccess {
		last[k] = v
	}
	c.mu.Unlock()
	for _, s := range Samples(items, last) {
		ch <- prometheus.MustNewConstMetric(s.Desc, prometheus.GaugeValue, s.Value, s.Labels...)
	}
}

// prune drops the pass times of WebApps that are gone, so that the map does not grow with churn.
// Keyed by UID, a WebApp deleted and created again under its name starts without one.
func prune(last map[types.UID]time.Time, items []*v1beta1.WebApp) map[types.UID]time.Time {
	live := make(map[types.UID]bool, len(items))
	for _, app := range items {
		live[app.UID] = true
	}
	for uid := range last {
		if !live[uid] {
			delete(last, uid)
		}
	}
	return last
}

// Sample is one gauge value with its label values, in the order of its Desc's labels.
type Sample struct {
	Desc   *prometheus.Desc
	Labels []string
	Value  float64
}

// Samples computes the gauges of the WebApps: a pure function of the cache's objects and the pass
// times. A WebApp whose spec the operator cannot decode (reported InvalidSpec) comes with its
// metadata and status alone (Lister), and its status is still worth reporting.
func Samples(items []*v1beta1.WebApp, lastSuccess map[types.UID]time.Time) []Sample {
	var out []Sample
	stalled := map[string]int{}
	var reasons []string
	for _, app := range items {
		id := []string{app.Namespace, app.Name}
		for _, cond := range app.Status.Conditions {
			out = append(out, Sample{conditionDesc, append(id[:2:2], cond.Type, string(cond.Status), cond.Reason), 1})
			if cond.Type == v1beta1.ConditionStalled && cond.Status == metav1.ConditionTrue {
				if stalled[cond.Reason] == 0 {
					reasons = append(reasons, cond.Reason)
				}
				stalled[cond.Reason]++
			}
		}
		out = append(out,
			// spec.replicas, which the API server defaults to 1 (the CRD's default)
			Sample{specReplicasDesc, id, float64(ptr.Deref(app.Spec.Replicas, 1))},
			Sample{readyReplicasDesc, id, float64(app.Status.ReadyReplicas)},
			Sample{availableReplicasDesc, id, float64(app.Status.AvailableReplicas)})
		if t, ok := lastSuccess[app.UID]; ok {
			out = append(out, Sample{lastSuccessDesc, id, float64(t.UnixNano()) / 1e9})
		}
	}
	for _, r := range reasons {
		out = append(out, Sample{stalledDesc, []string{r}, float64(stalled[r])})
	}
	return out
}

// Start registers the collector on the registry until ctx ends. controller-runtime runs it once this
// replica is the leader, and after the caches synced.
func (c *Collector) Start(ctx context.Context) error {
	if err := c.registerer.Register(c); err != nil {
		// Only tests run two managers in one process (one registry): the first one's collector reports,
		// and the second manager must not fail for it.
		if are := (prometheus.AlreadyRegisteredError{}); errors.As(err, &are) {
			logf.FromContext(ctx).Info("another manager in this process reports the WebApp metrics")
			<-ctx.Done()
			return nil
		}
		return err
	}
	<-ctx.Done()
	c.registerer.Unregister(c)
	return nil
}

// NeedLeaderElection makes the collector report only on the leader (see Collector).
func (c *Collector) NeedLeaderElection() bool { return true }
