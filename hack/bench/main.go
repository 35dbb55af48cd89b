// Command bench measures how the operator scales. It starts a loopback cluster
// (kube-apiserver and etcd through envtest, kube-controller-manager, kube-scheduler, and kwok playing
// the kubelet of fake nodes, so Deployments really become Available), then for each row of the
// matrix runs the operator binary as a separate process through five scenarios:
//
//  1. create N WebApps, until every one is Ready;
//  2. steady state, then a forced resync (an operator restart): the operator must write nothing;
//  3. change every image, until every WebApp rolled and is Ready again;
//  4. scale every WebApp up by one replica, until every one is Ready with them available;
//  5. delete every WebApp, until no child is left.
//
// While 1 and 3 run, the probe edits one more WebApp at a steady pace and times each edit until its
// Deployment carries it (probe.go). It also times the same Deployments and Services created and
// scaled directly (the ceiling) and, optionally,
// repeats a row with many unrelated Deployments and Services in the cluster. It prints Markdown
// tables and exits non-zero if a run failed or the operator wrote anything in steady state.
// `make bench` builds what it needs and runs it; docs/performance.md has the method and results.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/webapp-operator/webapp-operator/test/framework"
)

type options struct {
	N, Concurrency, QPS                  []int
	Unrelated, UnrelatedN, Workers       int
	Steady, Timeout                      time.Duration
	Manager, Kwok, Assets, Repo, State   string
	StateDir                             string
	K8sVersion, EtcdVersion, KwokVersion string
	Commit                               string
	Ceiling, Floor                       bool
	// Probe is how often the probe WebApp is edited during create and image change (probe.go); 0: never.
	Probe time.Duration
	// Features are the sets of optional children to sweep (features.go); Replicas the WebApps' replicas.
	Features []featureSet
	Replicas int
	// GatewayCRDs is a folder of the Gateway API's CRDs to install, or "".
	GatewayCRDs string
	// MemoryLimit is the operator's container memory limit in bytes: passed to it as the Deployment
	// does (MEMORY_LIMIT), and a peak RSS above it fails the run.
	MemoryLimit uint64
}

func main() {
	var opts options
	var n, conc, qps, memoryLimit, feats string
	flag.StringVar(&n, "n", "100,1000", "numbers of WebApps, comma-separated (BENCH_N)")
	flag.StringVar(&conc, "concurrency", "8", "--max-concurrent-reconciles values to sweep (BENCH_CONCURRENCY)")
	flag.StringVar(&qps, "qps", "100", "--kube-api-qps values to sweep; burst is twice the QPS (BENCH_QPS)")
	flag.IntVar(&opts.Unrelated, "unrelated", 0,
		"also rerun the first row with this many unrelated Deployments and as many Services (BENCH_UNRELATED)")
	flag.IntVar(&opts.UnrelatedN, "unrelated-n", 0, "N of the unrelated run (default: the largest N)")
	flag.StringVar(&feats, "features", "base", "optional children of the WebApps, one run each: base, all, or some of "+
		strings.Join(features, ", ")+" joined by + (BENCH_FEATURES)")
	flag.IntVar(&opts.Replicas, "replicas", 1, "replicas of every WebApp (BENCH_REPLICAS)")
	flag.StringVar(&opts.GatewayCRDs, "gateway-crds", "", "the Gateway API CRDs' folder (make gateway-api-crds); "+
		"needed by the httproute feature")
	flag.DurationVar(&opts.Steady, "steady", 2*time.Minute, "steady-state window of scenario 2 (BENCH_STEADY)")
	flag.DurationVar(&opts.Timeout, "timeout", 15*time.Minute, "give up a scenario after this long")
	flag.IntVar(&opts.Workers, "workers", 16, "parallel requests of the harness's own client")
	flag.BoolVar(&opts.Ceiling, "ceiling", true, "time the same objects created without the operator")
	flag.DurationVar(&opts.Probe, "probe", 500*time.Millisecond, "edit one more WebApp this often while the "+
		"others are created or changed, and time each edit until its Deployment carries it (0: no probe)")
	flag.BoolVar(&opts.Floor, "floor", true, "time them with their WebApps, status and event, without the operator")
	flag.StringVar(&opts.Manager, "manager", "bin/manager", "the operator binary")
	flag.StringVar(&opts.Kwok, "kwok", "", "the kwok binary (hack/install-kwok.sh)")
	flag.StringVar(&opts.Assets, "assets", os.Getenv("KUBEBUILDER_ASSETS"),
		"kube-apiserver, etcd, kube-controller-manager and kube-scheduler (hack/install-envtest-bins.sh WITH_SCHED=1)")
	flag.StringVar(&opts.Repo, "repo", ".", "the repository root (for the CRD)")
	flag.StringVar(&opts.State, "state-dir", ".cache/bench", "logs, etcd data and reports go under this folder")
	flag.StringVar(&opts.K8sVersion, "k8s-version", "", "for the report (make bench passes hack/versions.env)")
	flag.StringVar(&opts.EtcdVersion, "etcd-version", "", "for the report")
	flag.StringVar(&opts.KwokVersion, "kwok-version", "", "for the report")
	flag.StringVar(&opts.Commit, "commit", "unknown", "the operator's commit, for the report")
	flag.StringVar(&memoryLimit, "memory-limit", "",
		"the operator's memory limit, e.g. 256Mi (default: the manager container's in "+managerManifest+")")
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.WriteTo(io.Discard)))
	var err error
	for _, p := range []struct {
		in  string
		out *[]int
	}{{n, &opts.N}, {conc, &opts.Concurrency}, {qps, &opts.QPS}} {
		if *p.out, err = parseInts(p.in); err != nil {
			fatal(err)
		}
	}
	if opts.Features, err = parseFeatureSets(feats); err != nil {
		fatal(err)
	}
	for _, f := range opts.Features {
		if f.has("httproute") && opts.GatewayCRDs == "" {
			fatal(errors.New("the httproute feature needs the Gateway API: pass -gateway-crds (make bench does)"))
		}
	}
	if opts.Replicas < 1 {
		fatal(errors.New("-replicas must be at least 1"))
	}
	if opts.MemoryLimit, err = parseMemoryLimit(memoryLimit, opts.Repo); err != nil {
		fatal(err)
	}
	if opts.UnrelatedN == 0 {
		opts.UnrelatedN = opts.N[0]
		for _, v := range opts.N {
			opts.UnrelatedN = max(opts.UnrelatedN, v)
		}
	}
	if opts.Kwok == "" || opts.Assets == "" {
		fatal(errors.New("-kwok and -assets are required: run `make bench`, which builds them"))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	code, err := run(ctx, opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
	}
	os.Exit(code)
}

func run(ctx context.Context, opts options) (int, error) {
	opts.StateDir = filepath.Join(opts.State, "run-"+time.Now().UTC().Format("20060102-150405"))
	if err := os.MkdirAll(opts.StateDir, 0o755); err != nil {
		return 1, err
	}
	// etcd's data and the audit log can be gigabytes; the other logs and the report stay for reading.
	defer func() {
		_ = os.RemoveAll(filepath.Join(opts.StateDir, "etcd"))
		_ = os.Remove(filepath.Join(opts.StateDir, "audit.log"))
	}()
	rep := report{Env: environment(opts), Ceilings: map[int]phase{}, ScaleCeilings: map[int]phase{},
		Floors: map[int]phase{}, MemoryLimit: opts.MemoryLimit}
	rep.Env = append(rep.Env, "load average (1/5/15 min) at start: "+loadAverage())
	began := time.Now()

	c, err := startCluster(ctx, opts.Assets, opts.Kwok, opts.Repo, opts.GatewayCRDs, opts.StateDir)
	if err != nil {
		return 1, err
	}
	defer func() {
		step("stopping the cluster")
		c.Stop()
	}()
	h, err := newHarness(ctx, opts, c)
	if err != nil {
		return 1, err
	}
	var runErr error
	// The ceiling and the floor, each measured once per N, before the first run of that N.
	bounds := []struct {
		on      bool
		got     map[int]phase
		measure func(context.Context, int) (phase, error)
	}{{opts.Ceiling, rep.Ceilings, func(ctx context.Context, n int) (phase, error) {
		create, scale, err := h.ceiling(ctx, n)
		rep.ScaleCeilings[n] = scale
		return create, err
	}}, {opts.Floor, rep.Floors, h.floor}}
	matrix := func(unrelated int, ns []int, concs, qpss []int, feats []featureSet) {
		for _, n := range ns {
			for _, b := range bounds {
				if _, done := b.got[n]; b.on && !done && runErr == nil {
					ph, err := b.measure(ctx, n)
					if err != nil {
						runErr = err
						return
					}
					b.got[n] = ph
				}
			}
			for _, cc := range concs {
				for _, q := range qpss {
					for _, f := range feats {
						if ctx.Err() != nil || runErr != nil {
							return
						}
						spec := runSpec{N: n, Concurrency: cc, QPS: q, Burst: 2 * q, Unrelated: unrelated,
							Replicas: opts.Replicas, Features: f}
						tag := fmt.Sprintf("n%d-c%d-q%d-u%d-%s", n, cc, q, unrelated, f)
						r := h.run(ctx, spec, tag)
						rep.Results = append(rep.Results, r)
						if r.Err != nil {
							runErr = r.Err // the cluster may hold leftovers: stop here
							return
						}
					}
				}
			}
		}
	}
	matrix(0, opts.N, opts.Concurrency, opts.QPS, opts.Features)
	if opts.Unrelated > 0 && runErr == nil && ctx.Err() == nil {
		if rep.Unrelated, err = h.addUnrelated(ctx, opts.Unrelated); err != nil {
			runErr = err
		} else {
			matrix(opts.Unrelated, []int{opts.UnrelatedN}, opts.Concurrency[:1], opts.QPS[:1], opts.Features[:1])
		}
	}
	rep.Env = append(rep.Env, "load average (1/5/15 min) at end: "+loadAverage(),
		"total wall time: "+secs(time.Since(began)))

	out := rep.String()
	fmt.Println()
	fmt.Print(out)
	path := filepath.Join(opts.StateDir, "report.md")
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		return 1, err
	}
	fmt.Printf("\nreport: %s (logs alongside)\n", path)
	fails := failures(rep.Results, opts.MemoryLimit)
	if runErr != nil && len(fails) == 0 {
		fails = append(fails, runErr.Error())
	}
	if ctx.Err() != nil {
		fails = append(fails, "interrupted")
	}
	if len(fails) > 0 {
		fmt.Println("\nFAIL")
		for _, f := range fails {
			fmt.Println("  -", f)
		}
		return 1, nil
	}
	fmt.Printf("\nPASS: the operator sent no write request in steady state or on resync, and its peak RSS "+
		"stayed under its memory limit of %s\n", mib(opts.MemoryLimit))
	return 0, nil
}

func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(strings.ReplaceAll(f, "_", ""))
		if f == "" {
			continue
		}
		v, err := strconv.Atoi(f)
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("bad number %q in %q", f, s)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no number in %q", s)
	}
	return out, nil
}

func step(format string, args ...any) { framework.Step(format, args...) }

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "bench:", err)
	os.Exit(2)
}
