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

package v1beta1

// Exposure is how the app is reached, and by whom: its Service, and optionally an Ingress, an
// HTTPRoute and a NetworkPolicy. Each is a child object of the same name that the operator owns.
type Exposure struct {
	// Service configures the Service that exposes the web app inside the cluster.
	// +optional
	// +kubebuilder:default={}
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Service"
	Service Service `json:"service,omitempty"`

	// Ingress, when set, exposes the WebApp outside the cluster through an Ingress of its hosts and
	// paths; without it, the WebApp is reachable inside the cluster only, through its Service.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Ingress"
	Ingress *Ingress `json:"ingress,omitempty"`

	// Route, when set, exposes the WebApp outside the cluster through a Gateway API HTTPRoute of its
	// host names and paths, attached to the Gateways it names; it may be set with ingress.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Route"
	Route *Route `json:"route,omitempty"`

	// NetworkPolicy, when set, has a NetworkPolicy admit connections to the pods only from the
	// WebApp's namespace and the namespaces it lists (the ingress controller's, the gateway's), so
	// that the rest of the cluster cannot reach the app around its front door.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Network Policy",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	NetworkPolicy *NetworkPolicy `json:"networkPolicy,omitempty"`
}

// ServiceType is the type of the Service in front of the web app.
// +kubebuilder:validation:Enum=ClusterIP;NodePort;LoadBalancer
type ServiceType string

const (
	ServiceTypeClusterIP    ServiceType = "ClusterIP"
	ServiceTypeNodePort     ServiceType = "NodePort"
	ServiceTypeLoadBalancer ServiceType = "LoadBalancer"
)

// Service configures the Service in front of the web app. Its ports name container ports, so that
// a port number is said once for the container and once for the Service.
// +kubebuilder:validation:XValidation:rule="!has(self.ports) || has(self.type) && self.type != 'ClusterIP' || !self.ports.exists(p, has(p.nodePort))",message="a nodePort requires service.type NodePort or LoadBalancer"
type Service struct {
	// Type is the Service type.
	// +optional
	// +kubebuilder:default=ClusterIP
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Service Type",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:select:ClusterIP","urn:alm:descriptor:com.tectonic.ui:select:NodePort","urn:alm:descriptor:com.tectonic.ui:select:LoadBalancer"}
	Type ServiceType `json:"type,omitempty"`

	// Ports are the ports the Service exposes, each a container port by name; http, the port the app
	// serves on, is always one of them. A metrics port (observability.metrics) that no entry names
	// is exposed too, under its container port's number, so that the ServiceMonitor can select it.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:default={{name: http, port: 80}}
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=17
	// +kubebuilder:validation:XValidation:rule="self.exists(p, p.name == 'http')",message="the Service exposes http, the port the app serves on"
	// +kubebuilder:validation:XValidation:rule="self.all(p, self.filter(q, q.port == p.port).size() == 1)",message="each Service port needs a number of its own"
	// +kubebuilder:validation:XValidation:rule="self.all(p, !has(p.nodePort) || self.filter(q, has(q.nodePort) && q.nodePort == p.nodePort).size() == 1)",message="each nodePort is used once"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Service Ports"
	Ports []ServicePort `json:"ports,omitempty"`
}

// ServicePort exposes a container port on the Service, under the container port's name.
type ServicePort struct {
	// Name of the container port (container.ports) the Service forwards to; the Service port has the
	// same name.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=15
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Container Port Name",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	Name string `json:"name"`

	// Port is the number the Service listens on.
	// +required
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Service Port",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	Port int32 `json:"port"`

	// NodePort pins the node port for NodePort and LoadBalancer Services. Left empty, Kubernetes
	// picks one.
	// +optional
	// +kubebuilder:validation:Minimum=30000
	// +kubebuilder:validation:Maximum=32767
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Node Port",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number","urn:alm:descriptor:com.tectonic.ui:advanced"}
	NodePort *int32 `json:"nodePort,omitempty"`
}

// Ingress exposes the WebApp outside the cluster through a networking.k8s.io/v1 Ingress that routes
// its hosts and paths to the WebApp's Service. The WebApp is Ready, and status.url its external URL,
// once the ingress controller has given the Ingress an address.
type Ingress struct {
	// ClassName is the IngressClass whose controller serves the Ingress; the cluster's default
	// class when empty.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="!format.dns1123Subdomain().validate(self).hasValue()",message="must be a DNS subdomain name: lower case letters, digits, '-' and '.'"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Ingress Class Name",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	ClassName string `json:"className,omitempty"`

	// Hosts are the host names the Ingress serves, e.g. shop.example.com; "*.example.com" serves
	// every host of the domain. The first one that is not a wildcard names status.url.
	// +required
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=253
	// +kubebuilder:validation:items:Pattern=`^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	// +kubebuilder:validation:items:XValidation:rule="!self.matches('^[0-9.]+$')",message="a host is a DNS name, not an IP address"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Hosts"
	Hosts []string `json:"hosts"`

	// Paths are the path prefixes routed to the WebApp ("/" when empty): each absolute, without
	// "//", "/./", "/../" or an escaped slash, and not ending in "/." or "/..".
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=1024
	// +kubebuilder:validation:items:Pattern=`^/[^\s;{}]*$`
	// +kubebuilder:validation:items:XValidation:rule="!self.contains('//') && !self.contains('/./') && !self.contains('/../') && !self.lowerAscii().contains('%2f') && !self.endsWith('/.') && !self.endsWith('/..')",message="a path has no '//', '/./', '/../' or '%2F', and does not end in '/.' or '/..'"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Paths",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	Paths []string `json:"paths,omitempty"`

	// TLS terminates HTTPS for every host with the certificate of a Secret; status.url is then an
	// https URL. With cert-manager, an annotation (cert-manager.io/cluster-issuer) has it issue that
	// Secret.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="TLS"
	TLS *IngressTLS `json:"tls,omitempty"`

	// Annotations are set on the Ingress as they are, for the ingress controller (rewrites, timeouts,
	// body size) and for cert-manager.
	// +optional
	// +kubebuilder:validation:MaxProperties=32
	// +kubebuilder:validation:XValidation:rule="self.all(k, !format.qualifiedName().validate(k.lowerAscii()).hasValue())",message="annotation keys must be qualified names: an optional DNS subdomain prefix and '/', then at most 63 letters, digits, '-', '_' or '.', alphanumeric at both ends"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Ingress Annotations",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	Annotations map[string]AnnotationValue `json:"annotations,omitempty"`
}

// IngressTLS names the Secret of type kubernetes.io/tls that holds the certificate.
type IngressTLS struct {
	// SecretName is the Secret, in the WebApp's namespace.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="!format.dns1123Subdomain().validate(self).hasValue()",message="must be a DNS subdomain name: lower case letters, digits, '-' and '.'"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="TLS Secret",xDescriptors={"urn:alm:descriptor:io.kubernetes:Secret"}
	SecretName string `json:"secretName"`
}

// Route exposes the WebApp outside the cluster through a Gateway API HTTPRoute
// (gateway.networking.k8s.io/v1): the Gateways it names send its host names and path prefixes to
// the WebApp's Service. It needs the Gateway API CRDs in the cluster, which Kubernetes does not ship:
// without them the WebApp is Stalled (RouteAPIMissing) and the rest of the operator works on. The
// WebApp is Ready, and status.url its external URL, once every Gateway has accepted the route.
//
// Route and Ingress may both be set: that is how an app moves from an Ingress to a Gateway, serving
// both for a while. The WebApp is then Ready once both are, and status.url is the route's.
type Route struct {
	// ParentRefs are the Gateways (or listeners of one) the route attaches to. A Gateway named twice
	// needs a different sectionName in each: the HTTPRoute CRD checks that, and the WebApp is then
	// Stalled with its message (InvalidSpec). The same check here would cost more than the API
	// server's CEL budget for the WebApp's schema allows.
	// +required
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Parent Gateways"
	ParentRefs []RouteParentRef `json:"parentRefs"`

	// Hostnames are the host names the route serves, e.g. shop.example.com; "*.example.com" serves
	// every host of the domain. They are required, although the Gateway API is not, because a route
	// without one takes every host of its listeners, and the first that is not a wildcard names
	// status.url.
	// +required
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=253
	// +kubebuilder:validation:items:Pattern=`^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	// +kubebuilder:validation:items:XValidation:rule="!self.matches('^[0-9.]+$')",message="a host name is a DNS name, not an IP address"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Host Names"
	Hostnames []string `json:"hostnames"`

	// Paths are the path prefixes routed to the WebApp ("/" when empty): each absolute, of the
	// characters the Gateway API allows in a path (letters, digits, "-._~!$&'()*+,;=:@/" and
	// percent-escapes), without "//", "/./", "/../" or an escaped slash, and not ending in "/." or
	// "/..". The first names status.url.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=1024
	// +kubebuilder:validation:items:Pattern=`^/(?:[-A-Za-z0-9/._~!$&'()*+,;=:@]|[%][0-9a-fA-F]{2})*$`
	// +kubebuilder:validation:items:XValidation:rule="!self.contains('//') && !self.contains('/./') && !self.contains('/../') && !self.lowerAscii().contains('%2f') && !self.endsWith('/.') && !self.endsWith('/..')",message="a path has no '//', '/./', '/../' or '%2F', and does not end in '/.' or '/..'"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Route Paths",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	Paths []string `json:"paths,omitempty"`
}

// RouteParentRef names a Gateway (gateway.networking.k8s.io), and optionally one of its listeners.
// Only Gateways: the parents the WebApp's readiness can be read from, as every Gateway API
// implementation reports them the same way.
type RouteParentRef struct {
	// Name is the Gateway's name.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="!format.dns1123Subdomain().validate(self).hasValue()",message="must be a DNS subdomain name: lower case letters, digits, '-' and '.'"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Gateway",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	Name string `json:"name"`

	// Namespace is the Gateway's namespace; the WebApp's when empty. A Gateway elsewhere must allow
	// routes from the WebApp's namespace (its listeners' allowedRoutes), or it does not accept the route.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:XValidation:rule="!format.dns1123Label().validate(self).hasValue()",message="must be a namespace name: at most 63 lower case letters, digits and '-'"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Gateway Namespace",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	Namespace string `json:"namespace,omitempty"`

	// SectionName is the Gateway listener to attach to (e.g. "web"); every listener that allows the
	// route when empty.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="!format.dns1123Subdomain().validate(self).hasValue()",message="must be a listener name: lower case letters, digits, '-' and '.'"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Listener",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	SectionName string `json:"sectionName,omitempty"`
}

// NetworkPolicy restricts who may connect to the WebApp's pods. Without it the operator creates no
// NetworkPolicy and the namespace's own policies (often none: everyone may connect) apply.
type NetworkPolicy struct {
	// SameNamespace lets every pod of the WebApp's namespace connect (true by default).
	// +optional
	// +kubebuilder:default=true
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Allow the Same Namespace",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:booleanSwitch","urn:alm:descriptor:com.tectonic.ui:advanced"}
	SameNamespace *bool `json:"sameNamespace,omitempty"`

	// FromNamespaces lets every pod of these namespaces connect: the ingress controller's or the
	// gateway's (for example ingress-nginx), a monitoring namespace. Pods elsewhere cannot.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=63
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Allow From Namespaces",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	FromNamespaces []string `json:"fromNamespaces,omitempty"`
}
