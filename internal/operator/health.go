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
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// The probes tell the truth about the caches, so that Kubernetes and OLM show a broken operator as
// broken instead of a green pod that reconciles nothing:
//   - readiness fails until every informer the controller uses has synced once;
//   - liveness fails once an informer has failed to list or watch for longer than
//     Options.CacheFailureTolerance without a pause (a revoked permission, a deleted CRD), so that
//     the container is restarted and the failure shows as restarts.

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

// syncWatcher marks the caches synced once every informer the controller uses has synced. It runs
// on every replica, leader or not: a standby is ready to take over once its caches are.
type syncWatcher struct {
	health    *cacheHealth
	cache     cache.Cache
	informers []client.Object
}

var _ manager.LeaderElectionRunnable = syncWatcher{}

func (syncWatcher) NeedLeaderElection() bool { return false }

func (w syncWatcher) Start(ctx context.Context) error {
	for _, obj := range w.informers {
		if _, err := w.cache.GetInformer(ctx, obj); err != nil {
			return fmt.Errorf("informer for %T: %w", obj, err)
		}
	}
	if w.cache.WaitForCacheSync(ctx) {
		w.health.mu.Lock()
		w.health.synced = true
		w.health.mu.Unlock()
	}
	return nil
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
