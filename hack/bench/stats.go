package main

import (
	"math"
	"slices"
	"time"
)

// latency summarises per-object durations.
type latency struct {
	Count              int
	P50, P95, P99, Max time.Duration
}

// summarize returns the nearest-rank p50, p95 and p99 and the maximum of ds (which it does not modify).
func summarize(ds []time.Duration) latency {
	if len(ds) == 0 {
		return latency{}
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return latency{Count: len(s), P50: percentile(s, 50), P95: percentile(s, 95), P99: percentile(s, 99),
		Max: s[len(s)-1]}
}

// percentile is the nearest-rank percentile p (0 < p <= 100) of sorted, which must not be empty.
func percentile(sorted []time.Duration, p float64) time.Duration {
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	rank = max(1, min(rank, len(sorted)))
	return sorted[rank-1]
}
