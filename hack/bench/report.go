package main

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"
)

// table renders a Markdown table with padded columns, readable as plain text too.
type table struct {
	head []string
	rows [][]string
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t table) String() string {
	width := make([]int, len(t.head))
	for _, r := range append([][]string{t.head}, t.rows...) {
		for i, c := range r {
			if i < len(width) {
				width[i] = max(width[i], len(c))
			}
		}
	}
	var b strings.Builder
	line := func(cells []string) {
		b.WriteString("|")
		for i := range width {
			c := ""
			if i < len(cells) {
				c = cells[i]
			}
			fmt.Fprintf(&b, " %-*s |", width[i], c)
		}
		b.WriteString("\n")
	}
	line(t.head)
	sep := make([]string, len(width))
	for i, w := range width {
		sep[i] = strings.Repeat("-", max(3, w))
	}
	line(sep)
	for _, r := range t.rows {
		line(r)
	}
	return b.String()
}

// secs formats a duration in seconds, with more precision below 10 s.
func secs(d time.Duration) string {
	if d < 10*time.Second {
		return fmt.Sprintf("%.2f s", d.Seconds())
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}

func mib(b uint64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }

func liveHeapCell(b uint64) string {
	if b == 0 {
		return "-"
	}
	return heapMiB(b)
}

// heapMiB is mib with a decimal: a live heap moves by less than a MiB between runs that differ.
func heapMiB(b uint64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// perWebApp is b shared among n WebApps, in KiB: "-" when b was not read.
func perWebApp(b uint64, n int) string {
	if b == 0 || n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f KiB", float64(b)/float64(n)/1024)
}

func count(v float64) string { return fmt.Sprintf("%.0f", v) }

func rate(n float64, d time.Duration) string {
	if d <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f/s", n/d.Seconds())
}

func ratio(a, b time.Duration) string {
	if b <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f×", a.Seconds()/b.Seconds())
}

// failures lists what breaks the benchmark's hard rules (an operator that writes while nothing
// changes, or that needs more memory than it is shipped with) and every run that did not finish.
func failures(results []runResult, memoryLimit uint64) []string {
	var out []string
	for _, r := range results {
		if r.Err != nil {
			out = append(out, fmt.Sprintf("%s: %v", r.Spec, r.Err))
			continue
		}
		if w := r.Steady.writes() + r.Resync.writes(); w != 0 {
			out = append(out, fmt.Sprintf("%s: the operator sent %.0f write requests in steady state and resync, want 0 "+
				"(steady %v, resync %v)", r.Spec, w, r.Steady.Requests, r.Resync.Requests))
		}
		if over := overLimit(r, memoryLimit); over != "" {
			out = append(out, fmt.Sprintf("%s: %s", r.Spec, over))
		}
	}
	return out
}

// report is everything the harness prints and writes to its report file.
type report struct {
	Env         []string
	MemoryLimit uint64
	Ceilings    map[int]phase
	// ScaleCeilings are the same Deployments scaled from 1 to 2 replicas by the harness.
	ScaleCeilings map[int]phase
	Floors        map[int]phase // see floor.go
	Results       []runResult
	Unrelated     time.Duration // how long creating the unrelated objects took
}

func (r report) String() string {
	var b strings.Builder
	b.WriteString("### Environment\n\n")
	for _, e := range r.Env {
		fmt.Fprintf(&b, "- %s\n", e)
	}
	row := func(s runSpec) []string {
		return []string{fmt.Sprint(s.N), fmt.Sprint(s.Concurrency), fmt.Sprintf("%d/%d", s.QPS, s.Burst),
			fmt.Sprint(s.Unrelated), s.Features.String()}
	}
	key := []string{"N", "conc", "qps/burst", "unrelated", "features"}

	lat := table{head: append(append([]string{}, key...), "create p50", "p95", "max", "total", "ceiling", "ratio",
		"floor", "to floor", "image p50", "p95", "max", "total", "delete total")}
	steady := table{head: append(append([]string{}, key...), "steady window", "writes", "reconciles/s",
		"resync time", "resync reconciles", "reconciles/s", "writes")}
	res := table{head: append(append([]string{}, key...), "create CPU", "steady CPU", "resync CPU", "image CPU",
		"scale CPU", "delete CPU", "RSS after create", "peak RSS 1st proc", "peak RSS 2nd proc",
		"live heap after steady", "per WebApp")}
	scale := table{head: append(append([]string{}, key...), "scale p50", "p95", "max", "total", "ceiling", "ratio",
		"requests/WebApp", "status patches/WebApp", "events/WebApp")}
	edits := table{head: append(append([]string{}, key...), "background", "edits", "p50", "p99", "max",
		"operator requests for the probe", "per edit")}
	steps := table{head: append(append([]string{}, key...), "background", "step", "p50", "p99", "max",
		"in the slowest edit")}
	reqs := table{head: append(append([]string{}, key...), "scenario", "GET", "POST", "PUT", "PATCH", "DELETE", "total")}
	paths := table{head: append(append([]string{}, key...), "scenario", "request (verb resource, code if not 2xx)",
		"count", "per WebApp")}
	load := table{head: append(append([]string{}, key...), "wall time", "load avg before", "load avg after", "result")}
	for _, x := range r.Results {
		k := row(x.Spec)
		status := "ok"
		if x.Err != nil {
			status = "FAILED: " + x.Err.Error()
		} else if w := x.Steady.writes() + x.Resync.writes(); w != 0 {
			status = fmt.Sprintf("FAILED: %.0f writes in steady state", w)
		} else if over := overLimit(x, r.MemoryLimit); over != "" {
			status = "FAILED: " + over
		}
		load.add(append(k, secs(x.Wall), x.LoadBefore, x.LoadAfter, status)...)
		if x.Err != nil {
			continue
		}
		// The ceiling and the floor are WebApps of 1 replica with no optional child: other runs
		// create more objects, so no ratio to them means anything.
		same := len(x.Spec.Features) == 0 && x.Spec.replicas() == 1
		ceil, rat := "-", "-"
		if c, ok := r.Ceilings[x.Spec.N]; ok && same {
			ceil, rat = secs(c.Total), ratio(x.Create.Total, c.Total)
		}
		fl, flRat := "-", "-"
		if f, ok := r.Floors[x.Spec.N]; ok && same {
			fl, flRat = secs(f.Total), ratio(x.Create.Total, f.Total)
		}
		lat.add(append(k, secs(x.Create.Latency.P50), secs(x.Create.Latency.P95), secs(x.Create.Latency.Max),
			secs(x.Create.Total), ceil, rat, fl, flRat, secs(x.Update.Latency.P50), secs(x.Update.Latency.P95),
			secs(x.Update.Latency.Max), secs(x.Update.Total), secs(x.Delete.Total))...)
		steady.add(append(k, secs(x.Steady.Elapsed), count(x.Steady.writes()),
			rate(x.Steady.Reconciles, x.Steady.Elapsed), secs(x.Resync.Total), count(x.Resync.Reconciles),
			rate(x.Resync.Reconciles, x.Resync.Total), count(x.Resync.writes()))...)
		res.add(append(k, secs(x.Create.CPU), secs(x.Steady.CPU), secs(x.Resync.CPU), secs(x.Update.CPU),
			secs(x.Scale.CPU), secs(x.Delete.CPU), mib(x.Create.RSS), mib(x.Steady.HWM), mib(x.Delete.HWM),
			liveHeapCell(x.LiveHeap), perWebApp(x.LiveHeap, x.Spec.N))...)
		if x.Scaled {
			scale.add(append(k, r.scaleCells(x, same)...)...)
		}
		for _, p := range []namedPhase{{"1 create", x.Create}, {"3 image", x.Update}} {
			if e := p.ph.Edits; e.Count > 0 {
				probe := sumValues(p.ph.Probe)
				edits.add(append(k, p.name, fmt.Sprint(e.Count), secs(e.P50), secs(e.P99), secs(e.Max), count(probe),
					fmt.Sprintf("%.2f", probe/float64(e.Count)))...)
			}
			for i, st := range p.ph.EditSteps.Steps {
				steps.add(append(k, p.name, editStepNames[i], secs(st.P50), secs(st.P99), secs(st.Max),
					secs(p.ph.EditSteps.Slowest[i]))...)
			}
		}
		for _, p := range x.scenarios() {
			m := p.ph.Requests
			reqs.add(append(k, p.name, count(m["GET"]), count(m["POST"]), count(m["PUT"]), count(m["PATCH"]),
				count(m["DELETE"]), count(sumValues(m)))...)
			for _, why := range sortedReasons(p.ph.ByReason) {
				c := p.ph.ByReason[why]
				paths.add(append(k, p.name, why, count(c), fmt.Sprintf("%.2f", c/float64(x.Spec.N)))...)
			}
		}
	}
	for _, s := range []struct {
		title string
		t     table
	}{
		{"Latency (scenarios 1, 3, 5; ceiling = the same Deployments and Services created directly; floor = " +
			"those with their WebApps, one status patch and one event each, all from the harness)", lat},
		{"Steady state and forced resync (scenario 2; writes must be 0)", steady},
		{"Scale (scenario 4: every WebApp's spec.replicas up by one, until Ready with them available; ceiling = " +
			"the ceiling's Deployments scaled from 1 to 2 replicas by the harness)", scale},
		{"Single-edit latency (the probe: one more WebApp's replicas toggled while the others are created or " +
			"changed, each edit timed until its Deployment carries it; its requests are in no other table)", edits},
		{"Single-edit latency by step (each edit split at the operator's apply of its Deployment, as the API " +
			"server's audit log times it; a step's percentiles are its own, the slowest edit's steps add up)", steps},
		{"Operator CPU time and memory (the resync restarts it: the 2nd process runs resync, image, scale, delete)",
			res},
		{"Operator API requests by HTTP method (rest_client_requests_total; GET includes list and watch)", reqs},
		{"Operator API requests by code path (the API server's audit log: each row is one thing the operator does)",
			paths},
	} {
		fmt.Fprintf(&b, "\n### %s\n\n%s", s.title, s.t)
	}
	if bounds := r.boundsTable(); len(bounds.rows) > 0 {
		fmt.Fprintf(&b, "\n### Ceiling and floor (no operator running)\n\n%s", bounds)
	}
	if cost := r.costTable(); len(cost.rows) > 0 {
		fmt.Fprintf(&b, "\n### Extra cost per WebApp of each optional child (against the base run of the same N, "+
			"concurrency, QPS and unrelated objects)\n\n%s", cost)
	}
	fmt.Fprintf(&b, "\n### Runs\n\n%s", load)
	if r.Unrelated > 0 {
		fmt.Fprintf(&b, "\nCreating the unrelated Deployments and Services took %s.\n", secs(r.Unrelated))
	}
	return b.String()
}

// namedPhase is a scenario's measurements under the name the tables give it.
type namedPhase struct {
	name string
	ph   phase
}

// scenarios are the scenarios x measured, in order.
func (x runResult) scenarios() []namedPhase {
	out := []namedPhase{{"1 create", x.Create}, {"2 steady", x.Steady}, {"2 resync", x.Resync}, {"3 image", x.Update}}
	if x.Scaled {
		out = append(out, namedPhase{"4 scale", x.Scale})
	}
	return append(out, namedPhase{"5 delete", x.Delete})
}

// scaleCells are the scale scenario's cells of x: its latency, its ratio to the scale ceiling when
// x is comparable with it (same), and its requests per WebApp, in total and for the two code paths a
// scale may cost besides the apply.
func (r report) scaleCells(x runResult, same bool) []string {
	l, n := x.Scale.Latency, float64(x.Spec.N)
	ceil, rat := "-", "-"
	if c, ok := r.ScaleCeilings[x.Spec.N]; ok && same && c.Total > 0 {
		ceil, rat = secs(c.Total), ratio(x.Scale.Total, c.Total)
	}
	perApp := func(v float64) string { return fmt.Sprintf("%.2f", v/n) }
	events := x.Scale.ByReason["create events"] + x.Scale.ByReason["patch events"]
	return []string{secs(l.P50), secs(l.P95), secs(l.Max), secs(x.Scale.Total), ceil, rat,
		perApp(sumValues(x.Scale.Requests)), perApp(x.Scale.ByReason["patch webapps/status"]), perApp(events)}
}

// boundsTable gives, for each N, the ceiling and the floor side by side: the floor over the ceiling
// is what the requests the operator cannot do without cost the control plane.
func (r report) boundsTable() table {
	t := table{head: []string{"N", "ceiling p50", "ceiling total", "floor p50", "floor total", "floor / ceiling",
		"scale ceiling p50", "scale ceiling total"}}
	var ns []int
	for n := range r.Ceilings {
		ns = append(ns, n)
	}
	for n := range r.Floors {
		if _, ok := r.Ceilings[n]; !ok {
			ns = append(ns, n)
		}
	}
	slices.Sort(ns)
	for _, n := range ns {
		row := []string{fmt.Sprint(n), "-", "-", "-", "-", "-", "-", "-"}
		c, hasC := r.Ceilings[n]
		f, hasF := r.Floors[n]
		p50 := func(p phase) string {
			if p.Latency.Count == 0 {
				return "-"
			}
			return secs(p.Latency.P50)
		}
		if hasC {
			row[1], row[2] = p50(c), secs(c.Total)
		}
		if hasF {
			row[3], row[4] = p50(f), secs(f.Total)
		}
		if hasC && hasF {
			row[5] = ratio(f.Total, c.Total)
		}
		if sc, ok := r.ScaleCeilings[n]; ok {
			row[6], row[7] = p50(sc), secs(sc.Total)
		}
		t.add(row...)
	}
	return t
}

// environment describes the machine and the versions, for the report.
func environment(opts options) []string {
	cpu := "unknown"
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	mem := "unknown"
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb uint64
		if _, err := fmt.Sscanf(string(data), "MemTotal: %d kB", &kb); err == nil {
			mem = fmt.Sprintf("%.1f GiB", float64(kb)/(1<<20))
		}
	}
	kernel, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	keysN := make([]string, 0, len(opts.N))
	for _, n := range opts.N {
		keysN = append(keysN, fmt.Sprint(n))
	}
	sort.Strings(keysN)
	return []string{
		fmt.Sprintf("date: %s", time.Now().UTC().Format(time.RFC3339)),
		fmt.Sprintf("machine: %d CPUs (%s), %s RAM, Linux %s", runtime.NumCPU(), cpu, mem, strings.TrimSpace(string(kernel))),
		fmt.Sprintf("versions: Kubernetes %s, etcd %s, kwok %s, %s, operator %s", opts.K8sVersion, opts.EtcdVersion,
			opts.KwokVersion, runtime.Version(), opts.Commit),
		fmt.Sprintf("operator memory limit: %s (MEMORY_LIMIT, as its Deployment sets it; GOMEMLIMIT is 90%% of it); "+
			"a peak RSS above it fails the run", mib(opts.MemoryLimit)),
		fmt.Sprintf("matrix: N=%s, concurrency=%v, qps=%v (burst 2×qps), unrelated=%d, features=%v, steady=%s, "+
			"harness workers=%d", strings.Join(keysN, ","), opts.Concurrency, opts.QPS, opts.Unrelated, opts.Features,
			opts.Steady, opts.Workers),
		fmt.Sprintf("WebApps: %d replicas each, round-robin over %d namespaces", max(opts.Replicas, 1), len(benchNamespaces)),
	}
}

// loadAverage is the 1, 5 and 15 minute load averages, which tell how busy the machine was.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// costTable compares every run that has optional children with the base run of the same N,
// concurrency, QPS and unrelated objects: the requests per WebApp to create it and to change its image
// (the operator's client metrics), what the difference consists of (the audit log's code paths), its
// memory, and its writes in steady state and on resync, which must stay 0.
func (r report) costTable() table {
	t := table{head: []string{"N", "features", "create req/WebApp", "delta", "image req/WebApp", "delta",
		"RSS after create", "delta/WebApp", "peak RSS", "steady writes", "resync writes",
		"extra requests per WebApp (create)"}}
	type group struct{ n, c, q, u int }
	base := map[group]runResult{}
	withFeatures := false
	for _, x := range r.Results {
		if x.Err == nil && len(x.Spec.Features) == 0 {
			base[group{x.Spec.N, x.Spec.Concurrency, x.Spec.QPS, x.Spec.Unrelated}] = x
		}
		withFeatures = withFeatures || len(x.Spec.Features) > 0
	}
	if !withFeatures {
		return t
	}
	for _, x := range r.Results {
		b, ok := base[group{x.Spec.N, x.Spec.Concurrency, x.Spec.QPS, x.Spec.Unrelated}]
		if x.Err != nil || !ok {
			continue
		}
		n := float64(x.Spec.N)
		perApp := func(p phase) float64 { return sumValues(p.Requests) / n }
		delta, imageDelta, rssDelta, extra := "-", "-", "-", "-"
		if len(x.Spec.Features) > 0 {
			delta = fmt.Sprintf("%+.2f", perApp(x.Create)-perApp(b.Create))
			imageDelta = fmt.Sprintf("%+.2f", perApp(x.Update)-perApp(b.Update))
			rssDelta = fmt.Sprintf("%+.1f KiB", (float64(x.Create.RSS)-float64(b.Create.RSS))/n/1024)
			extra = reasonDelta(x.Create.ByReason, b.Create.ByReason, n)
		}
		t.add(fmt.Sprint(x.Spec.N), x.Spec.Features.String(), fmt.Sprintf("%.2f", perApp(x.Create)), delta,
			fmt.Sprintf("%.2f", perApp(x.Update)), imageDelta, mib(x.Create.RSS), rssDelta,
			mib(max(x.Steady.HWM, x.Delete.HWM)), count(x.Steady.writes()), count(x.Resync.writes()), extra)
	}
	return t
}

// reasonDelta names the code paths whose requests per WebApp differ between m and base by at least
// 0.05, the largest difference first: "+1.00 patch horizontalpodautoscalers".
func reasonDelta(m, base map[string]float64, n float64) string {
	d := map[string]float64{}
	for k, v := range m {
		d[k] += v / n
	}
	for k, v := range base {
		d[k] -= v / n
	}
	abs := map[string]float64{}
	for k, v := range d {
		if v >= 0.05 || v <= -0.05 {
			abs[k] = max(v, -v)
		}
	}
	parts := make([]string, 0, len(abs))
	for _, k := range sortedReasons(abs) {
		parts = append(parts, fmt.Sprintf("%+.2f %s", d[k], k))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}
