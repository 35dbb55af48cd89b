package main

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/utils/ptr"

	"github.com/webapp-operator/webapp-operator/api/v1beta1"
)

// The optional children each cost something per WebApp: a request to create, a few to report on, and
// memory for the cache that holds them. A feature set names the spec blocks the WebApps of a run carry
// (BENCH_FEATURES): "base" is the Deployment and Service alone, "pdb", "hpa", "networkpolicy", "ingress"
// and "httproute" add one child each, "a+b" several, and "all" every one. Comparing a run with the base
// run of the same N gives each child's extra cost per WebApp.

// features are the optional children, in the order they are reported.
var features = []string{"pdb", "hpa", "networkpolicy", "ingress", "httproute"}

// featureSet is a sorted set of features; empty is the base.
type featureSet []string

func (f featureSet) String() string {
	switch {
	case len(f) == 0:
		return "base"
	case len(f) == len(features):
		return "all"
	}
	return strings.Join(f, "+")
}

func (f featureSet) has(name string) bool { return slices.Contains(f, name) }

// parseFeatureSets reads "base,pdb,hpa+ingress,all".
func parseFeatureSets(s string) ([]featureSet, error) {
	var out []featureSet
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		var set featureSet
		switch item {
		case "base":
		case "all":
			set = append(set, features...)
		default:
			for _, name := range strings.Split(item, "+") {
				if !slices.Contains(features, name) {
					return nil, fmt.Errorf("unknown feature %q in %q: want base, all or some of %s", name, s,
						strings.Join(features, ", "))
				}
				if !set.has(name) {
					set = append(set, name)
				}
			}
		}
		slices.SortFunc(set, func(a, b string) int { return slices.Index(features, a) - slices.Index(features, b) })
		out = append(out, set)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no feature set in %q", s)
	}
	return out, nil
}

// benchGateway is the Gateway the WebApps' HTTPRoutes name. It need not exist: the harness plays its
// controller (routes.go) and accepts every route that names it.
const benchGateway = "bench-gateway"

// webAppSpec is the spec of the bench WebApp name with image, replicas and the children of f.
//
// A budget is made by default as soon as a WebApp may run more than one replica; every run without
// "pdb" switches it off, so that the base (and each other feature) is measured without it whatever
// the replicas. The autoscaler's minimum is one replica, so that with no metrics API (the bench has
// none) the HorizontalPodAutoscaler controller leaves the Deployment as the operator created it.
func webAppSpec(name string, replicas int32, f featureSet) v1beta1.WebAppSpec {
	spec := v1beta1.WebAppSpec{Container: v1beta1.AppContainer{Image: imageV1}, Replicas: ptr.To(replicas)}
	if !f.has("pdb") {
		spec.Scaling.DisruptionBudget = v1beta1.DisruptionBudget{Enabled: ptr.To(false)}
	}
	if f.has("hpa") {
		spec.Scaling.Autoscaler = &v1beta1.Autoscaler{MinReplicas: ptr.To[int32](1), MaxReplicas: max(replicas, 1) + 2}
	}
	if f.has("networkpolicy") {
		spec.Exposure.NetworkPolicy = &v1beta1.NetworkPolicy{}
	}
	host := name + ".bench.example"
	if f.has("ingress") {
		spec.Exposure.Ingress = &v1beta1.Ingress{Hosts: []string{host}}
	}
	if f.has("httproute") {
		spec.Exposure.Route = &v1beta1.Route{ParentRefs: []v1beta1.RouteParentRef{{Name: benchGateway}},
			Hostnames: []string{host}}
	}
	return spec
}
