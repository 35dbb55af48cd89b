/*
Copyright 2026 The webapp-operator Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package v1alpha1

import (
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/webapp-operator/webapp-operator/api/v1beta1"
)

// The app's container: image, command, environment and resources move; port and ports become one
// list whose first entry is http; healthCheck is written out as the probes it stands for; the
// defaults only v1beta1 declares (protocol TCP, the probes' timings) are filled in one way and
// dropped the other unless the app wrote them.

// The timings of the healthCheck shorthand, as internal/resources/probes.go renders it.
const (
	shorthandReadinessPeriod   = 5
	shorthandReadinessFailures = 3
	shorthandLivenessDelay     = 10
	shorthandLivenessPeriod    = 10
	shorthandLivenessFailures  = 6
)

// The probe timings v1beta1 declares as defaults, Kubernetes' own.
var probeDefaults = []struct {
	name  string
	value int32
	field func(*Probe) **int32
	beta  func(*v1beta1.Probe) **int32
}{
	{"periodSeconds", 10, func(p *Probe) **int32 { return &p.PeriodSeconds }, func(p *v1beta1.Probe) **int32 { return &p.PeriodSeconds }},
	{"timeoutSeconds", 1, func(p *Probe) **int32 { return &p.TimeoutSeconds }, func(p *v1beta1.Probe) **int32 { return &p.TimeoutSeconds }},
	{"successThreshold", 1, func(p *Probe) **int32 { return &p.SuccessThreshold }, func(p *v1beta1.Probe) **int32 { return &p.SuccessThreshold }},
	{"failureThreshold", 3, func(p *Probe) **int32 { return &p.FailureThreshold }, func(p *v1beta1.Probe) **int32 { return &p.FailureThreshold }},
}

const (
	protocolTCP = "TCP"
	httpPort    = "http"
)

func containerToBeta(cv *converter, s *WebAppSpec, out *v1beta1.WebAppSpec) {
	c := &out.Container
	c.Image = s.Image
	c.Command = recast[[]string](cv, s.Command)
	c.Args = recast[[]string](cv, s.Args)
	c.Env = recast[[]v1beta1.EnvVar](cv, s.Env)
	c.EnvFrom = recast[[]v1beta1.EnvFromSource](cv, s.EnvFrom)
	c.Resources = recast[v1beta1.ResourceRequirements](cv, s.Resources)
	c.Ports = portsToBeta(cv, s)
	switch {
	case s.HealthCheck != nil:
		c.Probes = expandHealthCheck(s.HealthCheck)
		cv.alpha.HealthCheck = true
	case s.Probes != nil:
		c.Probes = probesToBeta(cv, s.Probes)
	}
	if s.Lifecycle != nil && s.Lifecycle.PreStop != nil {
		c.Lifecycle = &v1beta1.Lifecycle{PreStop: recast[*v1beta1.Handler](cv, s.Lifecycle.PreStop)}
	}
}

func containerFromBeta(cv *converter, s *v1beta1.WebAppSpec, out *WebAppSpec) {
	c := &s.Container
	out.Image = c.Image
	out.Command = recast[[]string](cv, c.Command)
	out.Args = recast[[]string](cv, c.Args)
	out.Env = recast[[]EnvVar](cv, c.Env)
	out.EnvFrom = recast[[]EnvFromSource](cv, c.EnvFrom)
	out.Resources = recast[ResourceRequirements](cv, c.Resources)
	portsFromBeta(cv, s, out)
	if hc := shorthand(c.Probes); hc != nil && cv.alpha.HealthCheck {
		out.HealthCheck = hc
	} else if c.Probes != nil {
		out.Probes = probesFromBeta(cv, c.Probes)
	}
}

// portsToBeta is the container's ports: http, spec.port, first, then spec.ports.
func portsToBeta(cv *converter, s *WebAppSpec) []v1beta1.ContainerPort {
	out := make([]v1beta1.ContainerPort, 0, 1+len(s.Ports))
	out = append(out, v1beta1.ContainerPort{Name: httpPort, ContainerPort: s.Port, Protocol: protocolTCP})
	for _, p := range s.Ports {
		q := v1beta1.ContainerPort{Name: p.Name, ContainerPort: p.ContainerPort, Protocol: p.Protocol}
		switch p.Protocol {
		case "":
			q.Protocol = protocolTCP
		case protocolTCP:
			cv.alpha.write(protocolPath(p.Name))
		}
		out = append(out, q)
	}
	return out
}

// portsFromBeta sets spec.port from the http port and spec.ports from the others, each with the
// number of the Service port of its name (servicePortsFromBeta does the Service).
func portsFromBeta(cv *converter, s *v1beta1.WebAppSpec, out *WebAppSpec) {
	for _, p := range s.Container.Ports {
		if p.Name == httpPort {
			out.Port = p.ContainerPort
			continue
		}
		q := ContainerPort{Name: p.Name, ContainerPort: p.ContainerPort, Protocol: p.Protocol}
		if q.Protocol == protocolTCP && !cv.alpha.written(protocolPath(p.Name)) {
			q.Protocol = ""
		}
		if sp := servicePort(s, p.Name); sp != nil {
			q.ServicePort = ptr.To(sp.Port)
		}
		out.Ports = append(out.Ports, q)
	}
}

func protocolPath(name string) string { return "ports[" + name + "].protocol" }

// expandHealthCheck writes the shorthand out as the two probes it has always rendered to, with
// v1beta1's defaults for the timings it leaves to Kubernetes.
func expandHealthCheck(hc *HealthCheck) *v1beta1.Probes {
	get := func() *v1beta1.HTTPGetAction {
		g := &v1beta1.HTTPGetAction{Path: hc.Path}
		if hc.Port != nil {
			g.Port = ptr.To(intstr.FromInt32(*hc.Port))
		}
		return g
	}
	return &v1beta1.Probes{
		Readiness: &v1beta1.Probe{HTTPGet: get(), PeriodSeconds: ptr.To[int32](shorthandReadinessPeriod),
			FailureThreshold: ptr.To[int32](shorthandReadinessFailures), TimeoutSeconds: ptr.To[int32](1), SuccessThreshold: ptr.To[int32](1)},
		Liveness: &v1beta1.Probe{HTTPGet: get(), InitialDelaySeconds: ptr.To[int32](shorthandLivenessDelay),
			PeriodSeconds: ptr.To[int32](shorthandLivenessPeriod), FailureThreshold: ptr.To[int32](shorthandLivenessFailures),
			TimeoutSeconds: ptr.To[int32](1), SuccessThreshold: ptr.To[int32](1)},
	}
}

// shorthand is the healthCheck that p is the expansion of, or nil when p has any other form.
func shorthand(p *v1beta1.Probes) *HealthCheck {
	if p == nil || p.Startup != nil || p.Readiness == nil || p.Liveness == nil {
		return nil
	}
	hc, ok := shorthandGet(p.Readiness)
	other, ok2 := shorthandGet(p.Liveness)
	if !ok || !ok2 || hc.Path != other.Path || !ptr.Equal(hc.Port, other.Port) {
		return nil
	}
	want := expandHealthCheck(hc)
	if !sameProbe(p.Readiness, want.Readiness) || !sameProbe(p.Liveness, want.Liveness) {
		return nil
	}
	return hc
}

// shorthandGet is the path and port of an HTTP GET probe that healthCheck can say: no scheme, and
// a port that is unset or a number.
func shorthandGet(p *v1beta1.Probe) (*HealthCheck, bool) {
	g := p.HTTPGet
	if g == nil || g.Scheme != "" || g.Port != nil && g.Port.Type != intstr.Int {
		return nil, false
	}
	hc := &HealthCheck{Path: g.Path}
	if g.Port != nil {
		hc.Port = ptr.To(g.Port.IntVal)
	}
	return hc, true
}

// sameProbe compares a probe with an expansion of healthCheck, whose action is known to match:
// its timings, an unset timeout or success threshold counting as the default.
func sameProbe(p, want *v1beta1.Probe) bool {
	if p.TCPSocket != nil || p.GRPC != nil || p.Exec != nil {
		return false
	}
	eq := func(a, b *int32, dflt *int32) bool {
		if a == nil {
			a = dflt
		}
		return ptr.Equal(a, b)
	}
	one := ptr.To[int32](1)
	return eq(p.InitialDelaySeconds, want.InitialDelaySeconds, nil) && eq(p.PeriodSeconds, want.PeriodSeconds, nil) &&
		eq(p.FailureThreshold, want.FailureThreshold, nil) && eq(p.TimeoutSeconds, want.TimeoutSeconds, one) &&
		eq(p.SuccessThreshold, want.SuccessThreshold, one)
}

func probesToBeta(cv *converter, p *Probes) *v1beta1.Probes {
	return &v1beta1.Probes{
		Readiness: probeToBeta(cv, p.Readiness, "readiness"),
		Liveness:  probeToBeta(cv, p.Liveness, "liveness"),
		Startup:   probeToBeta(cv, p.Startup, "startup"),
	}
}

// probeToBeta moves a probe and fills in the timings v1beta1 defaults, noting those the app wrote
// with the default's value.
func probeToBeta(cv *converter, p *Probe, name string) *v1beta1.Probe {
	if p == nil {
		return nil
	}
	out := recast[*v1beta1.Probe](cv, p)
	for _, d := range probeDefaults {
		v := d.beta(out)
		switch {
		case *v == nil:
			*v = ptr.To(d.value)
		case **v == d.value:
			cv.alpha.write("probes." + name + "." + d.name)
		}
	}
	return out
}

func probesFromBeta(cv *converter, p *v1beta1.Probes) *Probes {
	return &Probes{
		Readiness: probeFromBeta(cv, p.Readiness, "readiness"),
		Liveness:  probeFromBeta(cv, p.Liveness, "liveness"),
		Startup:   probeFromBeta(cv, p.Startup, "startup"),
	}
}

// probeFromBeta moves a probe and drops the timings equal to v1beta1's defaults that the app did
// not write.
func probeFromBeta(cv *converter, p *v1beta1.Probe, name string) *Probe {
	if p == nil {
		return nil
	}
	out := recast[*Probe](cv, p)
	for _, d := range probeDefaults {
		v := d.field(out)
		if *v != nil && **v == d.value && !cv.alpha.written("probes."+name+"."+d.name) {
			*v = nil
		}
	}
	return out
}
