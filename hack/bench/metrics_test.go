package main

import (
	"maps"
	"strings"
	"testing"
)

const scrape = `# HELP rest_client_requests_total Number of HTTP requests, partitioned by status code, method, and host.
# TYPE rest_client_requests_total counter
rest_client_requests_total{code="200",host="127.0.0.1:34567",method="GET"} 12
rest_client_requests_total{code="201",host="127.0.0.1:34567",method="POST"} 3
rest_client_requests_total{code="200",host="127.0.0.1:34567",method="PATCH"} 5
rest_client_requests_total{code="409",host="127.0.0.1:34567",method="PATCH"} 1
controller_runtime_reconcile_total{controller="webapp",result="success"} 100
controller_runtime_reconcile_total{controller="webapp",result="error"} 2
workqueue_depth{controller="webapp",name="webapp"} 0
odd_label{msg="a \"quoted\", comma} brace\\"} 1.5e+01
go_goroutines 42
`

func TestParseMetrics(t *testing.T) {
	m, err := parseMetrics(strings.NewReader(scrape))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		match map[string]string
		want  float64
	}{
		{"rest_client_requests_total", nil, 21},
		{"rest_client_requests_total", map[string]string{"method": "PATCH"}, 6},
		{"controller_runtime_reconcile_total", map[string]string{"controller": "webapp"}, 102},
		{"controller_runtime_reconcile_total", map[string]string{"controller": "other"}, 0},
		{"workqueue_depth", map[string]string{"name": "webapp"}, 0},
		{"odd_label", map[string]string{"msg": `a "quoted", comma} brace\`}, 15},
		{"go_goroutines", nil, 42},
		{"missing", nil, 0},
	} {
		if got := m.sum(tc.name, tc.match); got != tc.want {
			t.Errorf("sum(%s, %v) = %v, want %v", tc.name, tc.match, got, tc.want)
		}
	}
	by := m.requestsByMethod()
	if want := map[string]float64{"GET": 12, "POST": 3, "PATCH": 6}; !maps.Equal(by, want) {
		t.Errorf("requestsByMethod = %v, want %v", by, want)
	}
	if got := writes(by); got != 9 {
		t.Errorf("writes = %v, want 9", got)
	}
}

func TestDelta(t *testing.T) {
	got := delta(map[string]float64{"GET": 10, "PATCH": 2}, map[string]float64{"GET": 15, "PATCH": 2, "POST": 1})
	if want := map[string]float64{"GET": 5, "PATCH": 0, "POST": 1}; !maps.Equal(got, want) {
		t.Fatalf("delta = %v, want %v", got, want)
	}
}
