package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/webapp-operator/webapp-operator/internal/testenv"
	"github.com/webapp-operator/webapp-operator/test/framework"
)

// operatorProc is the manager binary running as its own process, so that its memory and CPU are
// its own and its client metrics count only its requests.
type operatorProc struct {
	*framework.OperatorProcess
	pprofURL string
	started  time.Time
}

// controllerName is the WebApp controller's name in the operator's metrics.
const controllerName = "webapp"

type operatorSettings struct {
	Concurrency, QPS, Burst int
	MemoryLimit             uint64 // bytes, passed as the Deployment passes it
}

// startOperator runs the operator, logging to dir/name.log, and waits until it is ready.
func startOperator(ctx context.Context, bin, kubeconfig, dir, name string, s operatorSettings) (*operatorProc, error) {
	pprofPort, err := testenv.FreePort()
	if err != nil {
		return nil, err
	}
	started := time.Now()
	// GOMEMLIMIT is cleared so that the operator derives it from MEMORY_LIMIT, as in its container.
	env := []string{"GOMEMLIMIT=", "MEMORY_LIMIT=" + strconv.FormatUint(s.MemoryLimit, 10)}
	p, err := framework.StartOperator(bin, kubeconfig, dir, name, env,
		"--pprof-bind-address=127.0.0.1:"+strconv.Itoa(pprofPort),
		"--max-concurrent-reconciles="+strconv.Itoa(s.Concurrency),
		"--kube-api-qps="+strconv.Itoa(s.QPS), "--kube-api-burst="+strconv.Itoa(s.Burst))
	if err != nil {
		return nil, err
	}
	op := &operatorProc{OperatorProcess: p, started: started,
		pprofURL: fmt.Sprintf("http://127.0.0.1:%d/debug/pprof", pprofPort)}
	readyz := fmt.Sprintf("http://127.0.0.1:%d/readyz", p.ProbePort)
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		if gone, err := p.Exited(); gone {
			return false, err
		}
		resp, err := http.Get(readyz)
		if err != nil {
			return false, nil
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
	if err != nil {
		p.Stop()
		return nil, fmt.Errorf("waiting for the operator to be ready: %w", err)
	}
	return op, nil
}

// scrape reads the operator's metrics.
func (o *operatorProc) scrape() (metricSet, error) {
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/metrics", o.MetricsPort))
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("metrics: %s", resp.Status)
	}
	return parseMetrics(resp.Body)
}

// saveHeap writes the operator's heap profile, taken right after a garbage collection, to path:
// `go tool pprof -sample_index=inuse_space -top bin/manager <path>` then says what holds its memory.
func (o *operatorProc) saveHeap(path string) error {
	resp, err := http.Get(o.pprofURL + "/heap?gc=1")
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("heap profile: %s", resp.Status)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// liveHeap is the operator's live heap as its last garbage collection marked it: the Go runtime's
// /gc/heap/live:bytes, which controller-runtime exports as go_gc_heap_live_bytes. Read right after
// saveHeap, whose profile forces a collection, it is exact: what the cache and everything else
// reachable hold, without the garbage since. (The profile's inuse_space is a sample, one every
// 512 KiB allocated, so its sum is an estimate.)
func (o *operatorProc) liveHeap() (uint64, error) {
	m, err := o.scrape()
	if err != nil {
		return 0, err
	}
	f, ok := m["go_gc_heap_live_bytes"]
	if !ok || len(f.GetMetric()) == 0 {
		return 0, fmt.Errorf("metrics: no go_gc_heap_live_bytes")
	}
	return uint64(value(f.GetMetric()[0])), nil
}

// snapshot is the operator's counters and /proc figures at one moment.
type snapshot struct {
	at         time.Time
	requests   map[string]float64
	reconciles float64
	depth      float64 // WebApps waiting in the work queue
	active     float64 // WebApps being reconciled
	proc       procSample
}

func (o *operatorProc) snapshot() (snapshot, error) {
	m, err := o.scrape()
	if err != nil {
		return snapshot{}, err
	}
	p, err := readProc(o.PID())
	if err != nil {
		return snapshot{}, err
	}
	return snapshot{
		at:         time.Now(),
		requests:   m.requestsByMethod(),
		reconciles: m.sum("controller_runtime_reconcile_total", map[string]string{"controller": controllerName}),
		depth:      m.sum("workqueue_depth", map[string]string{"name": controllerName}),
		active:     m.sum("controller_runtime_active_workers", map[string]string{"controller": controllerName}),
		proc:       p,
	}, nil
}

// settle waits until the operator is idle: nothing queued, nothing being reconciled, and no
// request sent for a second. The harness's watch can see a WebApp turn Ready before the operator
// has counted the write that made it so, and events are sent asynchronously; without settling,
// those requests would land in the next scenario's count.
func (o *operatorProc) settle(ctx context.Context, timeout time.Duration, check func() error) (snapshot, error) {
	var last snapshot
	idle := 0
	err := wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, timeout, true, func(context.Context) (bool, error) {
		if err := check(); err != nil {
			return false, err
		}
		s, err := o.snapshot()
		if err != nil {
			return false, nil
		}
		quiet := s.depth == 0 && s.active == 0 && last.requests != nil &&
			sumValues(s.requests) == sumValues(last.requests) && s.reconciles == last.reconciles
		last = s
		if !quiet {
			idle = 0
			return false, nil
		}
		idle++
		return idle >= 2, nil
	})
	return last, err
}

func sumValues(m map[string]float64) float64 {
	var t float64
	for _, v := range m {
		t += v
	}
	return t
}

// zeroSnapshot stands for a process that has not sent anything yet, for counting from its start.
func zeroSnapshot(at time.Time) snapshot {
	return snapshot{at: at, requests: map[string]float64{}}
}

// operatorName names the nth operator process of a run, and its log, operatorName.log.
func operatorName(run string, n int) string { return fmt.Sprintf("operator-%s-%d", run, n) }

// heapProfile is where a run's heap profile after a scenario is kept.
func heapProfile(dir string, run string, scenario string) string {
	return filepath.Join(dir, fmt.Sprintf("heap-%s-%s.pb.gz", run, scenario))
}
