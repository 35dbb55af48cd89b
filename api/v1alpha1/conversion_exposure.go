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
	"slices"

	"github.com/webapp-operator/webapp-operator/api/v1beta1"
)

// Exposure: service, ingress, route and networkPolicy move under exposure. The Service's ports are
// said in three places in v1alpha1 (service.port, service.nodePort, ports[].servicePort) and in one
// list of named entries in v1beta1: the http entry is service.port and service.nodePort, every
// other entry a port's servicePort. What v1alpha1 cannot hold (a nodePort on another entry, an
// order other than http first and then the container's) travels in the v1beta1 carrier.

func exposureToBeta(cv *converter, s *WebAppSpec, out *v1beta1.WebAppSpec) {
	e := &out.Exposure
	e.Service.Type = v1beta1.ServiceType(s.Service.Type)
	e.Service.Ports = servicePortsToBeta(cv, s)
	e.Ingress = recast[*v1beta1.Ingress](cv, s.Ingress)
	e.Route = recast[*v1beta1.Route](cv, s.Route)
	e.NetworkPolicy = recast[*v1beta1.NetworkPolicy](cv, s.NetworkPolicy)
}

func exposureFromBeta(cv *converter, s *v1beta1.WebAppSpec, out *WebAppSpec) {
	e := &s.Exposure
	out.Service.Type = ServiceType(e.Service.Type)
	if http := servicePort(s, httpPort); http != nil {
		out.Service.Port = http.Port
		out.Service.NodePort = copyPtr(http.NodePort)
	}
	for _, p := range e.Service.Ports {
		if p.Name != httpPort && p.NodePort != nil {
			if cv.beta.NodePorts == nil {
				cv.beta.NodePorts = map[string]int32{}
			}
			cv.beta.NodePorts[p.Name] = *p.NodePort
		}
	}
	names := make([]string, 0, len(e.Service.Ports))
	for _, p := range e.Service.Ports {
		names = append(names, p.Name)
	}
	if !slices.Equal(names, canonicalServiceOrder(s)) {
		cv.beta.ServicePorts = names
	}
	out.Ingress = recast[*Ingress](cv, e.Ingress)
	out.Route = recast[*Route](cv, e.Route)
	out.NetworkPolicy = recast[*NetworkPolicy](cv, e.NetworkPolicy)
}

// servicePortsToBeta is the http entry, then one entry per port with a servicePort, in the order
// of spec.ports, or in the order the v1beta1 carrier gives.
func servicePortsToBeta(cv *converter, s *WebAppSpec) []v1beta1.ServicePort {
	out := []v1beta1.ServicePort{{Name: httpPort, Port: s.Service.Port, NodePort: copyPtr(s.Service.NodePort)}}
	for _, p := range s.Ports {
		if p.ServicePort == nil {
			continue
		}
		sp := v1beta1.ServicePort{Name: p.Name, Port: *p.ServicePort}
		if n, ok := cv.beta.NodePorts[p.Name]; ok {
			sp.NodePort = &n
		}
		out = append(out, sp)
	}
	return reorder(out, cv.beta.ServicePorts)
}

// reorder puts ports in the order of names when names are exactly their names, and leaves them
// as they are otherwise (a carrier that no longer fits the ports is ignored).
func reorder(ports []v1beta1.ServicePort, names []string) []v1beta1.ServicePort {
	if len(names) != len(ports) {
		return ports
	}
	out := make([]v1beta1.ServicePort, 0, len(ports))
	for _, n := range names {
		i := slices.IndexFunc(ports, func(p v1beta1.ServicePort) bool { return p.Name == n })
		if i < 0 || slices.ContainsFunc(out, func(p v1beta1.ServicePort) bool { return p.Name == n }) {
			return ports
		}
		out = append(out, ports[i])
	}
	return out
}

// canonicalServiceOrder is the order servicePortsToBeta gives without a carrier: http, then the
// container's other ports that the Service exposes, in their order.
func canonicalServiceOrder(s *v1beta1.WebAppSpec) []string {
	out := []string{}
	if servicePort(s, httpPort) != nil {
		out = append(out, httpPort)
	}
	for _, p := range s.Container.Ports {
		if p.Name != httpPort && servicePort(s, p.Name) != nil {
			out = append(out, p.Name)
		}
	}
	return out
}

// servicePort is the Service's entry for the container port name, or nil.
func servicePort(s *v1beta1.WebAppSpec, name string) *v1beta1.ServicePort {
	for i := range s.Exposure.Service.Ports {
		if s.Exposure.Service.Ports[i].Name == name {
			return &s.Exposure.Service.Ports[i]
		}
	}
	return nil
}
