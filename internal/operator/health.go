package operator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	toolscache "k8s.io/client-go/tools/cache"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// The probes tell the truth about the caches, so that Kubernetes and OLM show a broken operator as
// broken instead of a green pod that reconciles nothing:
//   - readiness fails until every informer the controller uses has synced once, but the WebApps'
//     when the operator serves the conversion webhook (readyWithoutWebApps): the API server may
//     need that webhook to convert the WebApps the informer lists, and a webhook Service that
//     routes to ready pods only (OLM's) would never reach a pod waiting for them. Readiness then
//     waits for the webhook server to answer instead. A WebApp cache that has not synced says so
//     in the log, every minute, and on the leader the WebApp metrics fail the scrape until it has
//     (internal/metrics);
//   - liveness fails once an informer has failed to list or watch for longer than
//     Options.CacheFailureTolerance without a pause (a revoked permission, a deleted CRD), so that
//     the container is restarted and the failure shows as restarts.

var healthLog = ctrl.Log.WithName("health")

// DefaultCacheFailureTolerance is how long an informer may keep failing before liveness fails.
const DefaultCacheFailureTolerance = 5 * time.Minute

// failureGap ends a streak of failures: a reflector retries a failing list at least every 30 s
// (its backoff's ceiling), so a minute and a half without an error means it recovered.
const failureGap = 90 * time.Second

type failure struct {
	since, last time.Time
	err         error
	// reflector and its resource version at the last failure: a newer one means it listed or
	// watched successfully since, and the streak is over.
	reflector *toolscache.Reflector
	rv        string
}

// cacheHealth collects what the informers report and answers the probes.
type cacheHealth struct {
	tolerance time.Duration
	now       func() time.Time

	mu      sync.Mutex
	synced  bool
	failing map[string]failure // by the informer's type
}

func newCacheHealth(tolerance time.Duration) *cacheHealth {
	if tolerance <= 0 {
		tolerance = DefaultCacheFailureTolerance
	}
	return &cacheHealth{tolerance: tolerance, now: time.Now, failing: map[string]failure{}}
}

// watchError is every informer's WatchErrorHandler: it logs as client-go does, and counts the
// failures. A watch that ends normally (expired, closed) is no failure.
func (h *cacheHealth) watchError(ctx context.Context, r *toolscache.Reflector, err error) {
	toolscache.DefaultWatchErrorHandler(ctx, r, err)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	now, f := h.now(), h.failing[r.TypeDescription()]
	if f.last.IsZero() || now.Sub(f.last) > failureGap {
		f.since = now
	}
	f.last, f.err, f.reflector, f.rv = now, err, r, r.LastSyncResourceVersion()
	h.failing[r.TypeDescription()] = f
}

// syncWatcher marks the caches synced once every informer the readiness probe waits for has synced.
// It runs on every replica, leader or not: a standby is ready to take over once its caches are.
type syncWatcher struct {
	health    *cacheHealth
	cache     cache.Cache
	informers []client.Object
	// webApps is the WebApp informer's object (one of informers); readiness does not wait for it
	// when readyWithoutWebApps.
	webApps             client.Object
	readyWithoutWebApps bool
	// logEvery is how often a WebApp cache that has not synced says so (0: a minute).
	logEvery time.Duration
}

var _ manager.LeaderElectionRunnable = syncWatcher{}

func (syncWatcher) NeedLeaderElection() bool { return false }

func (w syncWatcher) Start(ctx context.Context) error {
	var ready []toolscache.InformerSynced
	var webApps toolscache.InformerSynced
	for _, obj := range w.informers {
		// not blocking: the WebApps' may take long, and the others are waited for together below
		inf, err := w.cache.GetInformer(ctx, obj, cache.BlockUntilSynced(false))
		if err != nil {
			return fmt.Errorf("informer for %T: %w", obj, err)
		}
		if obj == w.webApps {
			webApps = inf.HasSynced
			if w.readyWithoutWebApps {
				continue
			}
		}
		ready = append(ready, inf.HasSynced)
	}
	if webApps != nil {
		go w.reportWebApps(ctx, webApps)
	}
	if toolscache.WaitForCacheSync(ctx.Done(), ready...) {
		w.health.mu.Lock()
		w.health.synced = true
		w.health.mu.Unlock()
	}
	return nil
}

// reportWebApps logs until the WebApp cache has synced, and once it has.
func (w syncWatcher) reportWebApps(ctx context.Context, synced toolscache.InformerSynced) {
	every := w.logEvery
	if every <= 0 {
		every = time.Minute
	}
	start, tick := time.Now(), time.NewTicker(100*time.Millisecond)
	defer tick.Stop()
	next := start.Add(every)
	for !synced() {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			if now.After(next) {
				healthLog.Info("The WebApp cache has not synced yet: WebApps are not reconciled until it has",
					"waiting", now.Sub(start).Round(time.Second), "readinessWaits", !w.readyWithoutWebApps)
				next = now.Add(every)
			}
		}
	}
	healthLog.Info("The WebApp cache has synced", "after", time.Since(start).Round(time.Millisecond))
}

// ready is the readiness check.
func (h *cacheHealth) ready(*http.Request) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.synced {
		return errors.New("the caches have not synced yet" + h.failuresLocked(0))
	}
	return nil
}

// alive is the liveness check.
func (h *cacheHealth) alive(*http.Request) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if s := h.failuresLocked(h.tolerance); s != "" {
		return errors.New("informers keep failing" + s)
	}
	return nil
}

// failuresLocked describes the current failure streaks longer than min, or "".
func (h *cacheHealth) failuresLocked(minimum time.Duration) string {
	now := h.now()
	var out []string
	for typ, f := range h.failing {
		recovered := now.Sub(f.last) > failureGap || f.reflector.LastSyncResourceVersion() != f.rv
		if !recovered && now.Sub(f.since) >= minimum {
			out = append(out, fmt.Sprintf("%s since %s: %v", typ, f.since.UTC().Format(time.RFC3339), f.err))
		}
	}
	if len(out) == 0 {
		return ""
	}
	sort.Strings(out)
	return ": " + strings.Join(out, "; ")
}
