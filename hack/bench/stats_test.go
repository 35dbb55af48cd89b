package main

import (
	"testing"
	"time"
)

func TestSummarize(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	for _, tc := range []struct {
		name string
		in   []time.Duration
		want latency
	}{
		{"empty", nil, latency{}},
		{"one", ms(7), latency{1, 7 * time.Millisecond, 7 * time.Millisecond, 7 * time.Millisecond, 7 * time.Millisecond}},
		{"unsorted", ms(5, 1, 4, 2, 3), latency{5, 3 * time.Millisecond, 5 * time.Millisecond, 5 * time.Millisecond,
			5 * time.Millisecond}},
		{"hundred", ms(seq(100)...), latency{100, 50 * time.Millisecond, 95 * time.Millisecond, 99 * time.Millisecond,
			100 * time.Millisecond}},
		{"twenty", ms(seq(20)...), latency{20, 10 * time.Millisecond, 19 * time.Millisecond, 20 * time.Millisecond,
			20 * time.Millisecond}},
		// p99 of 200 is the 198th: one slow edit in a hundred does not make the p99, two do.
		{"two hundred", ms(seq(200)...), latency{200, 100 * time.Millisecond, 190 * time.Millisecond,
			198 * time.Millisecond, 200 * time.Millisecond}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := summarize(tc.in); got != tc.want {
				t.Fatalf("summarize = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestSummarizeDoesNotReorder(t *testing.T) {
	in := []time.Duration{3, 1, 2}
	summarize(in)
	if in[0] != 3 || in[1] != 1 || in[2] != 2 {
		t.Fatalf("input reordered: %v", in)
	}
}

// seq is 1..n.
func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i + 1
	}
	return out
}
