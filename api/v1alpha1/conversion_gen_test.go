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

package v1alpha1_test

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/randfill"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/api/v1beta1"
)

// The generators of the round-trip tests: randfill fills every field, and these functions keep
// what it writes close to what the CRD admits (a path starts with '/', a union has one member), so
// that most objects survive admission, which decides in the end (conversion_fuzz_test.go).

func pick[T any](c randfill.Continue, vs ...T) T { return vs[c.Intn(len(vs))] }

func name(c randfill.Continue) string {
	return pick(c, "a", "b", "c", "web", "api", "x1", "db", "cache", "edge")
}

func images(c randfill.Continue) string {
	return pick(c, "nginx", "ghcr.io/acme/shop:1.4.2", "localhost:5000/a/b_c", "example.com/x@sha256:"+
		"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "Registry.Example.com:443/team/app:v1.2-rc.1")
}

func smallIntOrString(c randfill.Continue, minInt int) intstr.IntOrString {
	if c.Bool() {
		return intstr.FromInt32(int32(minInt + c.Intn(4)))
	}
	return intstr.FromString(fmt.Sprintf("%d%%", max(minInt, pick(c, 0, 1, 25, 50, 100))))
}

func quantity(c randfill.Continue) webappv1.ResourceQuantity {
	return webappv1.MustParseQuantity(pick(c, "100m", "1", "250m", "128Mi", "1Gi", "2"))
}

// alphaFuncs keep randfill's v1alpha1 objects close to valid.
func alphaFuncs() []any {
	return slices.Concat(valueFuncs(), containerFuncs(), podFuncs(), otherFuncs())
}

// valueFuncs fill scalars, quantities and environment variables.
func valueFuncs() []any {
	return []any{
		func(s *string, c randfill.Continue) { *s = name(c) },
		func(s *webappv1.LabelValue, c randfill.Continue) { *s = webappv1.LabelValue(name(c)) },
		func(s *webappv1.AnnotationValue, c randfill.Continue) {
			*s = webappv1.AnnotationValue(name(c) + " " + name(c))
		},
		func(i *int32, c randfill.Continue) { *i = int32(1 + c.Intn(9)) },
		func(i *int64, c randfill.Continue) { *i = int64(1 + c.Intn(9)) },
		func(t *metav1.Time, c randfill.Continue) {
			*t = metav1.NewTime(time.Unix(1_700_000_000+int64(c.Intn(1_000_000)), 0))
		},
		func(q *webappv1.ResourceQuantity, c randfill.Continue) { *q = quantity(c) },
		func(v *intstr.IntOrString, c randfill.Continue) { *v = smallIntOrString(c, 0) },
		func(r *webappv1.ResourceRequirements, c randfill.Continue) {
			r.Limits, r.Requests = webappv1.ResourceList{}, webappv1.ResourceList{}
			for _, k := range []string{"cpu", "memory"} {
				if c.Bool() {
					r.Limits[k] = quantity(c)
					if c.Bool() {
						r.Requests[k] = r.Limits[k]
					}
				}
			}
		},
		func(e *webappv1.EnvVar, c randfill.Continue) {
			c.FillNoCustom(e)
			e.Name = name(c)
			if e.ValueFrom != nil {
				e.Value = ""
			}
		},
		func(s *webappv1.EnvVarSource, c randfill.Continue) {
			*s = webappv1.EnvVarSource{}
			switch c.Intn(4) {
			case 0:
				c.Fill(&s.ConfigMapKeyRef)
			case 1:
				c.Fill(&s.SecretKeyRef)
			case 2:
				s.FieldRef = &webappv1.ObjectFieldSelector{APIVersion: pick(c, "", "v1"),
					FieldPath: pick(c, "metadata.name", "status.podIP", "metadata.labels['a']")}
			default:
				r := pick(c, "limits.cpu", "requests.memory")
				s.ResourceFieldRef = &webappv1.ResourceFieldSelector{ContainerName: pick(c, "", "app"), Resource: r}
				if c.Bool() {
					s.ResourceFieldRef.Divisor = ptr.To(webappv1.MustParseQuantity(map[bool]string{true: "1m", false: "1Mi"}[r == "limits.cpu"]))
				}
			}
		},
		func(s *webappv1.EnvFromSource, c randfill.Continue) {
			*s = webappv1.EnvFromSource{Prefix: pick(c, "", "APP_")}
			if c.Bool() {
				c.Fill(&s.ConfigMapRef)
			} else {
				c.Fill(&s.SecretRef)
			}
		},
	}
}

// containerFuncs fill healthCheck, the Service and the ports.
func containerFuncs() []any {
	return []any{
		func(h *webappv1.HealthCheck, c randfill.Continue) {
			c.FillNoCustom(h)
			h.Path = "/" + name(c)
			if h.Port != nil {
				h.Port = ptr.To(int32(8000 + c.Intn(100)))
			}
		},
		func(s *webappv1.ServiceSpec, c randfill.Continue) {
			s.Type = pick(c, webappv1.ServiceTypeClusterIP, webappv1.ServiceTypeNodePort, webappv1.ServiceTypeLoadBalancer)
			s.Port = pick[int32](c, 0, 80, 443, 8000)
			s.NodePort = nil
			if s.Type != webappv1.ServiceTypeClusterIP && c.Bool() {
				s.NodePort = ptr.To(int32(30000 + c.Intn(2000)))
			}
		},
		func(p *webappv1.ContainerPort, c randfill.Continue) {
			p.Name = pick(c, "metrics", "admin", "grpc", "debug", "udp")
			p.ContainerPort = int32(9000 + c.Intn(1000))
			p.Protocol = pick(c, "", "", "TCP", "UDP", "SCTP")
			p.ServicePort = nil
			if c.Bool() {
				p.ServicePort = ptr.To(int32(10000 + c.Intn(10000)))
			}
		},
	}
}

// podFuncs fill volumes, probes and lifecycle.
func podFuncs() []any {
	return []any{
		func(v *webappv1.Volume, c randfill.Continue) {
			*v = webappv1.Volume{Name: name(c), SubPath: pick(c, "", "sub/dir"), ReadOnly: c.Bool()}
			v.MountPath = "/mnt/" + v.Name
			switch c.Intn(4) {
			case 0:
				c.Fill(&v.ConfigMap)
			case 1:
				c.Fill(&v.Secret)
			case 2:
				v.EmptyDir = &webappv1.EmptyDirVolume{Medium: pick(c, "", "Memory")}
				if c.Bool() {
					v.EmptyDir.SizeLimit = ptr.To(quantity(c))
				}
			default:
				v.PersistentVolumeClaim = &webappv1.PersistentVolumeClaimVolume{ClaimName: name(c)}
			}
		},
		func(e *webappv1.EmptyDirVolume, c randfill.Continue) { e.Medium = pick(c, "", "Memory") },
		func(p *webappv1.Probes, c randfill.Continue) {
			c.FillNoCustom(p)
			for _, q := range []*webappv1.Probe{p.Liveness, p.Startup} {
				if q != nil && q.SuccessThreshold != nil {
					q.SuccessThreshold = ptr.To[int32](1)
				}
			}
		},
		func(p *webappv1.Probe, c randfill.Continue) {
			c.FillNoCustom(p)
			p.HTTPGet, p.TCPSocket, p.GRPC, p.Exec = nil, nil, nil, nil
			switch c.Intn(4) {
			case 0:
				c.Fill(&p.HTTPGet)
			case 1:
				c.Fill(&p.TCPSocket)
			case 2:
				p.GRPC = &webappv1.GRPCAction{Port: int32(1 + c.Intn(9000))}
				c.Fill(&p.GRPC.Service)
			default:
				p.Exec = &webappv1.ExecAction{Command: []string{"/bin/check", name(c)}}
			}
		},
		func(h *webappv1.HTTPGetAction, c randfill.Continue) {
			*h = webappv1.HTTPGetAction{Path: "/" + name(c), Scheme: pick(c, "", "HTTP", "HTTPS")}
			if c.Bool() {
				h.Port = ptr.To(pick(c, intstr.FromString("http"), intstr.FromInt32(8080), intstr.FromString("admin")))
			}
		},
		func(t *webappv1.TCPSocketAction, c randfill.Continue) {
			*t = webappv1.TCPSocketAction{}
			if c.Bool() {
				t.Port = ptr.To(pick(c, intstr.FromString("http"), intstr.FromInt32(8080)))
			}
		},
		func(e *webappv1.ExecAction, c randfill.Continue) { e.Command = []string{"/bin/true", name(c)} },
		func(h *webappv1.Handler, c randfill.Continue) {
			*h = webappv1.Handler{}
			switch c.Intn(3) {
			case 0:
				c.Fill(&h.Exec)
			case 1:
				c.Fill(&h.HTTPGet)
			default:
				h.SleepSeconds = ptr.To(int64(1 + c.Intn(9)))
			}
		},
		func(l *webappv1.Lifecycle, c randfill.Continue) {
			c.FillNoCustom(l)
			if l.TerminationGracePeriodSeconds != nil {
				l.TerminationGracePeriodSeconds = ptr.To(int64(10 + c.Intn(50)))
			}
		},
	}
}

// otherFuncs fill rollout, scheduling, scaling, exposure, metrics and the other containers.
func otherFuncs() []any {
	return []any{
		func(s *webappv1.RolloutStrategy, c randfill.Continue) {
			c.FillNoCustom(s)
			if s.MaxSurge != nil && s.MaxUnavailable != nil && s.MaxSurge.String() == "0" && s.MaxUnavailable.String() == "0" {
				s.MaxUnavailable = ptr.To(intstr.FromInt32(1))
			}
		},
		func(r *webappv1.Rollout, c randfill.Continue) {
			r.AutoRollback = c.Bool()
			r.FailureSeconds = nil
			if c.Bool() {
				r.FailureSeconds = ptr.To(pick[int32](c, 10, 60, 120, 300))
			}
		},
		func(t *webappv1.Toleration, c randfill.Continue) {
			*t = webappv1.Toleration{Key: pick(c, "", "dedicated", "example.com/gpu"), Effect: pick(c, "", "NoSchedule", "NoExecute")}
			t.Operator = pick(c, "", "Equal", "Exists")
			if t.Key == "" {
				t.Operator = "Exists"
			}
			if t.Operator != "Exists" {
				t.Value = webappv1.LabelValue(name(c))
			}
			if t.Effect == "NoExecute" && c.Bool() {
				t.TolerationSeconds = ptr.To(int64(c.Intn(600)))
			}
		},
		func(r *webappv1.NodeSelectorRequirement, c randfill.Continue) {
			*r = webappv1.NodeSelectorRequirement{Key: pick(c, "zone", "example.com/pool"), Operator: pick(c, "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")}
			switch r.Operator {
			case "In", "NotIn":
				r.Values = []webappv1.LabelValue{webappv1.LabelValue(name(c))}
			case "Gt", "Lt":
				r.Values = []webappv1.LabelValue{"3"}
			}
		},
		func(t *webappv1.TopologySpreadConstraint, c randfill.Continue) {
			*t = webappv1.TopologySpreadConstraint{MaxSkew: int32(1 + c.Intn(3)), TopologyKey: pick(c, "kubernetes.io/hostname", "topology.kubernetes.io/zone"),
				WhenUnsatisfiable: pick(c, "", "ScheduleAnyway", "DoNotSchedule")}
		},
		func(p *webappv1.ScalingRules, c randfill.Continue) {
			c.FillNoCustom(p)
			p.SelectPolicy = pick(c, "", "Max", "Min", "Disabled")
		},
		func(p *webappv1.ScalingPolicy, c randfill.Continue) {
			*p = webappv1.ScalingPolicy{Type: pick(c, "Pods", "Percent"), Value: int32(1 + c.Intn(100)), PeriodSeconds: int32(1 + c.Intn(1800))}
		},
		func(a *webappv1.Autoscaling, c randfill.Continue) {
			c.FillNoCustom(a)
			a.MaxReplicas = int32(5 + c.Intn(10))
			if a.TargetCPUUtilizationPercentage != nil {
				a.TargetCPUUtilizationPercentage = ptr.To(pick[int32](c, 50, 80, 90))
			}
			if a.TargetMemoryUtilizationPercentage != nil {
				a.TargetMemoryUtilizationPercentage = ptr.To(pick[int32](c, 60, 80))
			}
		},
		func(d *webappv1.DisruptionBudget, c randfill.Continue) {
			c.FillNoCustom(d)
			if d.MaxUnavailable != nil {
				d.MaxUnavailable = ptr.To(smallIntOrString(c, 1))
			}
		},
		func(i *webappv1.Ingress, c randfill.Continue) {
			c.FillNoCustom(i)
			i.Hosts = []string{pick(c, "shop.example.com", "*.example.com", "a")}
			i.Paths = paths(c)
		},
		func(r *webappv1.Route, c randfill.Continue) {
			c.FillNoCustom(r)
			r.Hostnames = []string{pick(c, "shop.example.com", "b.example.org")}
			r.Paths = paths(c)
			if len(r.ParentRefs) == 0 {
				r.ParentRefs = []webappv1.RouteParentRef{{Name: name(c)}}
			}
			r.ParentRefs = r.ParentRefs[:1]
		},
		func(m *webappv1.Metrics, c randfill.Continue) {
			*m = webappv1.Metrics{Path: pick(c, "", "/metrics", "/stats"), Interval: pick(c, "", "30s", "1m30s")}
		},
		func(k *webappv1.Container, c randfill.Continue) {
			c.FillNoCustom(k)
			k.Image = images(c)
		},
		func(m *webappv1.VolumeMount, c randfill.Continue) {
			*m = webappv1.VolumeMount{Name: name(c), ReadOnly: c.Bool()}
			m.MountPath = "/m/" + m.Name
		},
	}
}

func paths(c randfill.Continue) []string {
	if c.Bool() {
		return nil
	}
	return []string{pick(c, "/", "/api", "/shop/v1")}
}

func newFiller(seed int64, funcs []any) *randfill.Filler {
	return randfill.New().RandSource(rand.NewSource(seed)).NilChance(0.5).NumElements(1, 2).MaxDepth(8).Funcs(funcs...)
}

// fixAlpha makes a generated v1alpha1 spec meet the rules that tie fields together.
func fixAlpha(s *webappv1.WebAppSpec, r *rand.Rand) {
	s.Image = []string{"nginx", "ghcr.io/acme/shop:1.4.2", "Example.com:5000/x/y"}[r.Intn(3)]
	s.Port = []int32{0, 8080, 3000}[r.Intn(3)]
	if s.HealthCheck != nil && s.Probes != nil {
		if r.Intn(2) == 0 {
			s.HealthCheck = nil
		} else {
			s.Probes = nil
		}
	}
	if s.ProgressDeadlineSeconds != nil {
		s.ProgressDeadlineSeconds = ptr.To([]int32{10, 300, 600, 900}[r.Intn(4)])
	}
	if s.MinReadySeconds != nil {
		s.MinReadySeconds = ptr.To([]int32{0, 5, 9}[r.Intn(3)])
	}
	if s.RevisionHistoryLimit != nil {
		s.RevisionHistoryLimit = ptr.To([]int32{0, 3, 10}[r.Intn(3)])
	}
	if s.Metrics != nil {
		ports := make([]intstr.IntOrString, 0, 1+2*len(s.Ports))
		ports = append(ports, intstr.FromString("http"))
		for _, p := range s.Ports {
			ports = append(ports, intstr.FromString(p.Name), intstr.FromInt32(p.ContainerPort))
		}
		if r.Intn(3) > 0 {
			s.Metrics.Port = ptr.To(ports[r.Intn(len(ports))])
		}
	}
	for i := range s.InitContainers {
		s.InitContainers[i].Name = "init-" + s.InitContainers[i].Name
	}
	for _, cs := range [][]webappv1.Container{s.Sidecars, s.InitContainers} {
		for i := range cs {
			cs[i].VolumeMounts = mountsOf(s.Volumes, cs[i].VolumeMounts)
		}
	}
}

// mountsOf renames mounts to volumes that exist, and drops them when there are none.
func mountsOf(vols []webappv1.Volume, mounts []webappv1.VolumeMount) []webappv1.VolumeMount {
	if len(vols) == 0 {
		return nil
	}
	for i := range mounts {
		mounts[i].Name = vols[i%len(vols)].Name
	}
	return mounts
}

// betaFuncs fill v1beta1's nested types that have v1alpha1's shape through v1alpha1's generators
// (so those are in the list too), and its own with theirs.
func betaFuncs() []any {
	return append(alphaFuncs(),
		func(s *v1beta1.LabelValue, c randfill.Continue) { *s = v1beta1.LabelValue(name(c)) },
		func(s *v1beta1.AnnotationValue, c randfill.Continue) {
			*s = v1beta1.AnnotationValue(name(c) + " " + name(c))
		},
		via[webappv1.ResourceRequirements, v1beta1.ResourceRequirements](),
		via[webappv1.EnvVar, v1beta1.EnvVar](),
		via[webappv1.EnvFromSource, v1beta1.EnvFromSource](),
		via[webappv1.Volume, v1beta1.Volume](),
		via[webappv1.Probes, v1beta1.Probes](),
		via[webappv1.Handler, v1beta1.Handler](),
		via[webappv1.Scheduling, v1beta1.Scheduling](),
		via[webappv1.Security, v1beta1.Security](),
		via[webappv1.Container, v1beta1.Container](),
		via[webappv1.ImagePullSecret, v1beta1.ImagePullSecret](),
		via[webappv1.Ingress, v1beta1.Ingress](),
		via[webappv1.Route, v1beta1.Route](),
		via[webappv1.NetworkPolicy, v1beta1.NetworkPolicy](),
		via[webappv1.Metrics, v1beta1.Metrics](),
		via[webappv1.ScalingBehavior, v1beta1.ScalingBehavior](),
		via[webappv1.Revision, v1beta1.Revision](),
		via[webappv1.RollbackStatus, v1beta1.RollbackStatus](),
		func(p *v1beta1.ContainerPort, c randfill.Continue) {
			var a webappv1.ContainerPort
			c.Fill(&a)
			*p = v1beta1.ContainerPort{Name: a.Name, ContainerPort: a.ContainerPort, Protocol: a.Protocol}
		},
		func(s *v1beta1.Service, c randfill.Continue) {
			s.Type = pick(c, v1beta1.ServiceTypeClusterIP, v1beta1.ServiceTypeNodePort, v1beta1.ServiceTypeLoadBalancer)
			s.Ports = nil // fixBeta names container ports
		},
		func(r *v1beta1.Rollout, c randfill.Continue) {
			c.FillNoCustom(r)
			r.OnFailure = pick(c, "", v1beta1.RolloutFailureReport, v1beta1.RolloutFailureRollback)
			r.OnConfigChange = pick(c, "", v1beta1.ConfigChangeRollout, v1beta1.ConfigChangeIgnore)
			r.MinReadySeconds = pick(c, nil, ptr.To[int32](0), ptr.To[int32](7))
			r.ProgressDeadlineSeconds = pick(c, nil, ptr.To[int32](600), ptr.To[int32](60))
			r.RevisionHistoryLimit = pick(c, nil, ptr.To[int32](10), ptr.To[int32](2))
			r.FailureSeconds = pick(c, nil, ptr.To[int32](120), ptr.To[int32](30))
			r.Strategy = nil
			if c.Bool() {
				r.Strategy = &v1beta1.RolloutStrategy{Type: v1beta1.RollingUpdateStrategyType, RollingUpdate: &v1beta1.RollingUpdate{}}
				if c.Bool() {
					r.Strategy.RollingUpdate.MaxSurge = ptr.To(smallIntOrString(c, 0))
				}
				if c.Bool() {
					r.Strategy.RollingUpdate.MaxUnavailable = ptr.To(smallIntOrString(c, 1))
				}
			}
		},
		func(a *v1beta1.Autoscaler, c randfill.Continue) {
			var alpha webappv1.Autoscaling
			c.Fill(&alpha)
			*a = v1beta1.Autoscaler{MinReplicas: alpha.MinReplicas, MaxReplicas: alpha.MaxReplicas, Behavior: recastJSON[*v1beta1.ScalingBehavior](alpha.Behavior)}
			if alpha.TargetCPUUtilizationPercentage != nil || alpha.TargetMemoryUtilizationPercentage != nil {
				a.Targets = &v1beta1.AutoscalerTargets{CPUUtilization: alpha.TargetCPUUtilizationPercentage, MemoryUtilization: alpha.TargetMemoryUtilizationPercentage}
			}
		},
		func(d *v1beta1.DisruptionBudget, c randfill.Continue) {
			var alpha webappv1.DisruptionBudget
			c.Fill(&alpha)
			*d = recastJSON[v1beta1.DisruptionBudget](alpha)
		},
		func(l *v1beta1.Lifecycle, c randfill.Continue) {
			l.PreStop = &v1beta1.Handler{}
			c.Fill(l.PreStop)
		},
	)
}

// fixBeta makes a generated v1beta1 spec meet the rules that tie fields together.
func fixBeta(s *v1beta1.WebAppSpec, r *rand.Rand) {
	s.Container.Image = []string{"nginx", "ghcr.io/acme/shop:1.4.2", "Example.com:5000/x/y"}[r.Intn(3)]
	ports := []v1beta1.ContainerPort{}
	if r.Intn(4) > 0 {
		ports = append(ports, v1beta1.ContainerPort{Name: "http", ContainerPort: []int32{8080, 3000}[r.Intn(2)], Protocol: []string{"", "TCP"}[r.Intn(2)]})
		ports = append(ports, s.Container.Ports...)
	}
	s.Container.Ports = ports
	if len(ports) == 0 {
		ports = []v1beta1.ContainerPort{{Name: "http", ContainerPort: 8080}}
	}
	if r.Intn(4) > 0 {
		for _, i := range r.Perm(len(ports)) {
			if ports[i].Name == "http" || r.Intn(2) == 0 {
				sp := v1beta1.ServicePort{Name: ports[i].Name, Port: int32(80 + r.Intn(20000))}
				if s.Exposure.Service.Type != v1beta1.ServiceTypeClusterIP && s.Exposure.Service.Type != "" && r.Intn(2) == 0 {
					sp.NodePort = ptr.To(int32(30000 + r.Intn(2000)))
				}
				s.Exposure.Service.Ports = append(s.Exposure.Service.Ports, sp)
			}
		}
	}
	if m := s.Observability.Metrics; m != nil && r.Intn(3) > 0 {
		p := ports[r.Intn(len(ports))]
		m.Port = ptr.To([]intstr.IntOrString{intstr.FromString(p.Name), intstr.FromInt32(p.ContainerPort)}[r.Intn(2)])
	}
	if s.Container.Lifecycle != nil && s.Container.Lifecycle.PreStop.SleepSeconds != nil && s.Pod.TerminationGracePeriodSeconds != nil {
		s.Pod.TerminationGracePeriodSeconds = ptr.To(int64(10 + r.Intn(50)))
	}
	if s.Pod.TerminationGracePeriodSeconds != nil && r.Intn(2) == 0 {
		s.Pod.TerminationGracePeriodSeconds = ptr.To(int64(10 + r.Intn(50)))
	}
	for i := range s.Pod.InitContainers {
		s.Pod.InitContainers[i].Name = "init-" + s.Pod.InitContainers[i].Name
	}
	vols := recastJSON[[]webappv1.Volume](s.Pod.Volumes)
	for _, cs := range [][]v1beta1.Container{s.Pod.Sidecars, s.Pod.InitContainers} {
		for i := range cs {
			cs[i].VolumeMounts = recastJSON[[]v1beta1.VolumeMount](mountsOf(vols, recastJSON[[]webappv1.VolumeMount](cs[i].VolumeMounts)))
		}
	}
}

// via fills a v1beta1 type with the generator of its v1alpha1 twin, through JSON.
func via[A, B any]() func(*B, randfill.Continue) {
	return func(b *B, c randfill.Continue) {
		var a A
		c.Fill(&a)
		*b = recastJSON[B](a)
	}
}

func recastJSON[T any](in any) T {
	var out T
	b, err := json.Marshal(in)
	if err != nil {
		panic(err)
	}
	if err := json.Unmarshal(b, &out); err != nil {
		panic(err)
	}
	return out
}
