package main

import (
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/json"
	"k8s.io/utils/ptr"
)

func TestParseFeatureSets(t *testing.T) {
	got, err := parseFeatureSets("base, ingress+pdb,all,hpa+hpa")
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(got))
	for _, f := range got {
		names = append(names, f.String())
	}
	if s := strings.Join(names, " "); s != "base pdb+ingress all hpa" {
		t.Fatalf("parseFeatureSets = %q", s)
	}
	for _, bad := range []string{"", "pdb+nope", "service"} {
		if _, err := parseFeatureSets(bad); err == nil {
			t.Errorf("parseFeatureSets(%q) accepted", bad)
		}
	}
}

func TestWebAppSpec(t *testing.T) {
	base := webAppSpec("a", 2, nil)
	if ptr.Deref(base.Scaling.DisruptionBudget.Enabled, true) || base.Scaling.Autoscaler != nil ||
		base.Exposure.NetworkPolicy != nil || base.Exposure.Ingress != nil || base.Exposure.Route != nil {
		t.Errorf("the base spec has optional children: %+v", base)
	}
	all, _ := parseFeatureSets("all")
	spec := webAppSpec("a", 2, all[0])
	scaling, exposure := spec.Scaling, spec.Exposure
	if scaling.DisruptionBudget.Enabled != nil || scaling.Autoscaler == nil || scaling.Autoscaler.MaxReplicas != 4 ||
		exposure.NetworkPolicy == nil || exposure.Ingress == nil || exposure.Route == nil ||
		exposure.Route.ParentRefs[0].Name != benchGateway {
		t.Errorf("the spec with every child lacks some: %+v", spec)
	}
}

func TestRouteStatus(t *testing.T) {
	u := newRoute()
	u.SetGeneration(3)
	if routeAccepted(u) {
		t.Fatal("a route without status reads as accepted")
	}
	var patch map[string]any
	if err := json.Unmarshal(routeStatusPatch(3), &patch); err != nil {
		t.Fatal(err)
	}
	u.Object["status"] = patch["status"]
	if !routeAccepted(u) {
		t.Fatalf("the patched route is not accepted: %v", u.Object["status"])
	}
	u.SetGeneration(4)
	if routeAccepted(u) {
		t.Fatal("a route accepted for an older generation reads as accepted")
	}
}

func TestCostTable(t *testing.T) {
	spec := func(f string) runSpec {
		sets, _ := parseFeatureSets(f)
		return runSpec{N: 100, Concurrency: 4, QPS: 50, Burst: 100, Features: sets[0]}
	}
	r := report{Results: []runResult{
		{Spec: spec("base"), Create: phase{Requests: map[string]float64{"PATCH": 300, "POST": 100}, RSS: 70 << 20,
			ByReason: map[string]float64{"patch deployments": 100, "patch services": 100, "patch webapps/status": 100,
				"create events": 100}}},
		{Spec: spec("hpa"), Create: phase{Requests: map[string]float64{"PATCH": 420, "POST": 100}, RSS: 71 << 20,
			ByReason: map[string]float64{"patch deployments": 100, "patch services": 100, "patch webapps/status": 120,
				"create events": 100, "patch horizontalpodautoscalers": 100}},
			Steady: phase{Elapsed: time.Second}},
	}}
	out := r.costTable().String()
	for _, want := range []string{"| 100 | base     | 4.00", "| 100 | hpa      | 5.20              | +1.20",
		"+10.2 KiB", "+1.00 patch horizontalpodautoscalers, +0.20 patch webapps/status"} {
		if !strings.Contains(out, want) {
			t.Errorf("cost table lacks %q:\n%s", want, out)
		}
	}
	if got := (report{Results: r.Results[:1]}).costTable(); len(got.rows) != 0 {
		t.Errorf("a report without optional children has a cost table:\n%s", got)
	}
}
