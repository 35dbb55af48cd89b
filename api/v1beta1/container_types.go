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

import (
	"k8s.io/apimachinery/pkg/util/intstr"
)

// The app's own container: what it runs, what it reads, which ports it opens, how it is probed and
// how it stops. Field for field as in a core/v1 Container, minus what a WebApp does not allow
// (privileged mode, capabilities, host ports).

// ImageReferencePattern is the grammar of an image reference, [registry[:port]/]path[:tag][@digest],
// as reference.ParseNormalizedNamed (github.com/distribution/reference) accepts it. The operator
// still checks the whole rule (a name of at most 255 characters once normalised, not a bare 64-digit
// hexadecimal identifier) when it renders the pods, for images written through v1alpha1.
const ImageReferencePattern = `^(([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])([.]([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))*(:[0-9]+)?/|[[][a-fA-F0-9:]+[]](:[0-9]+)?/)?[a-z0-9]+(([._]|__|-+)[a-z0-9]+)*(/[a-z0-9]+(([._]|__|-+)[a-z0-9]+)*)*(:[a-zA-Z0-9_][a-zA-Z0-9_.-]{0,127})?(@[A-Za-z][A-Za-z0-9]*([-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,})?$`

// AppContainer is the app's container, the one that serves HTTP (named app in the pod).
type AppContainer struct {
	// Image is the container image that serves HTTP, e.g. "ghcr.io/acme/shop:1.4.2": an image
	// reference, [registry[:port]/]path[:tag][@digest]. Changing it rolls the Deployment.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:XValidation:rule="self.matches('^(([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])([.]([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))*(:[0-9]+)?/|[[][a-fA-F0-9:]+[]](:[0-9]+)?/)?[a-z0-9]+(([._]|__|-+)[a-z0-9]+)*(/[a-z0-9]+(([._]|__|-+)[a-z0-9]+)*)*(:[a-zA-Z0-9_][a-zA-Z0-9_.-]{0,127})?(@[A-Za-z][A-Za-z0-9]*([-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,})?$')",message="image must be an image reference: [registry[:port]/]path[:tag][@digest], the path in lower case"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Image",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	Image string `json:"image"`

	// Command overrides the image's ENTRYPOINT, for images that serve with another command than
	// their default one.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=4096
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Command",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	Command []string `json:"command,omitempty"`

	// Args overrides the image's CMD: flags for the server, most often.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=4096
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Args",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	Args []string `json:"args,omitempty"`

	// Env lists environment variables to set in the container.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=256
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Environment Variables",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	Env []EnvVar `json:"env,omitempty"`

	// EnvFrom lists ConfigMaps and Secrets whose keys become environment variables.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Environment From",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	EnvFrom []EnvFromSource `json:"envFrom,omitempty"`

	// Resources are the container's compute resource requests and limits.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Resources",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:resourceRequirements"}
	Resources ResourceRequirements `json:"resources,omitempty"`

	// Ports are every port the container opens. The first is named http and is the one the app
	// serves on: the Service, the probes and the routes target it unless they name another.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:default={{name: http, containerPort: 8080}}
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=17
	// +kubebuilder:validation:XValidation:rule="self[0].name == 'http' && (!has(self[0].protocol) || self[0].protocol == 'TCP')",message="the first port is http, the one the app serves on, over TCP"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Ports"
	Ports []ContainerPort `json:"ports,omitempty"`

	// Probes are the container's readiness, liveness and startup probes. Without them the pod is
	// considered ready as soon as the container starts.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Probes"
	Probes *Probes `json:"probes,omitempty"`

	// Lifecycle says how the container stops: a preStop action. Without it, a pause of 5 seconds
	// (no longer than pod.terminationGracePeriodSeconds; none when that is 0), so that traffic drains
	// before the server gets SIGTERM.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Lifecycle",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	Lifecycle *Lifecycle `json:"lifecycle,omitempty"`
}

// ContainerPort is a named port of the container.
type ContainerPort struct {
	// Name of the port, an IANA service name (at most 15 lower case letters, digits and '-', with
	// a letter): http for the first, the one the app serves on. Probes, the Service and metrics
	// refer to ports by name.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=15
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +kubebuilder:validation:XValidation:rule="self.matches('[a-z]') && !self.contains('--')",message="a port name needs a letter and no '--'"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Name",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	Name string `json:"name"`

	// ContainerPort is the number the container listens on.
	// +required
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Container Port",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	ContainerPort int32 `json:"containerPort"`

	// Protocol is TCP, UDP or SCTP.
	// +optional
	// +kubebuilder:default=TCP
	// +kubebuilder:validation:Enum=TCP;UDP;SCTP
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Protocol",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:select:TCP","urn:alm:descriptor:com.tectonic.ui:select:UDP","urn:alm:descriptor:com.tectonic.ui:select:SCTP"}
	Protocol string `json:"protocol,omitempty"`
}

// Probes are the container's readiness, liveness and startup probes, set one by one.
// +kubebuilder:validation:XValidation:rule="(!has(self.liveness) || !has(self.liveness.successThreshold) || self.liveness.successThreshold == 1) && (!has(self.startup) || !has(self.startup.successThreshold) || self.startup.successThreshold == 1)",message="liveness and startup probes take successThreshold 1: only readiness may ask for more"
type Probes struct {
	// Readiness decides when a pod receives traffic from the Service.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Readiness Probe"
	Readiness *Probe `json:"readiness,omitempty"`

	// Liveness decides when a container is restarted. Give it more patience than readiness.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Liveness Probe"
	Liveness *Probe `json:"liveness,omitempty"`

	// Startup holds the other two off until it succeeds once, for apps that start slowly.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Startup Probe",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	Startup *Probe `json:"startup,omitempty"`
}

// Probe checks the container one way: an HTTP GET, a TCP connection, a gRPC health check or a
// command. Exactly one.
// +kubebuilder:validation:XValidation:rule="(has(self.httpGet) ? 1 : 0) + (has(self.tcpSocket) ? 1 : 0) + (has(self.grpc) ? 1 : 0) + (has(self.exec) ? 1 : 0) == 1",message="a probe needs exactly one of httpGet, tcpSocket, grpc or exec"
type Probe struct {
	// HTTPGet succeeds on a status from 200 to 399.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="HTTP GET"
	HTTPGet *HTTPGetAction `json:"httpGet,omitempty"`

	// TCPSocket succeeds when a connection opens.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="TCP Socket"
	TCPSocket *TCPSocketAction `json:"tcpSocket,omitempty"`

	// GRPC succeeds when the gRPC health service says SERVING.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="gRPC"
	GRPC *GRPCAction `json:"grpc,omitempty"`

	// Exec succeeds when the command exits 0.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Exec"
	Exec *ExecAction `json:"exec,omitempty"`

	// InitialDelaySeconds waits before the first check.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=3600
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Initial Delay Seconds",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	InitialDelaySeconds *int32 `json:"initialDelaySeconds,omitempty"`

	// PeriodSeconds is the time between checks.
	// +optional
	// +kubebuilder:default=10
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=3600
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Period Seconds",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	PeriodSeconds *int32 `json:"periodSeconds,omitempty"`

	// TimeoutSeconds bounds one check.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=3600
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Timeout Seconds",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	TimeoutSeconds *int32 `json:"timeoutSeconds,omitempty"`

	// SuccessThreshold is how many successes in a row count (only readiness may ask more than 1).
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Success Threshold",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	SuccessThreshold *int32 `json:"successThreshold,omitempty"`

	// FailureThreshold is how many failures in a row count.
	// +optional
	// +kubebuilder:default=3
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Failure Threshold",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	FailureThreshold *int32 `json:"failureThreshold,omitempty"`
}

// HTTPGetAction probes with an HTTP GET.
type HTTPGetAction struct {
	// Path to request, e.g. "/healthz".
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:Pattern=`^/[^\s]*$`
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Path",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	Path string `json:"path"`

	// Port to request; the main port ("http") by default.
	// +optional
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:MaxLength=15
	// +kubebuilder:validation:XValidation:rule="type(self) == int ? (self >= 1 && self <= 65535) : (self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$') && self.matches('[a-z]') && !self.contains('--'))",message="a port is a number from 1 to 65535 or a port name (an IANA service name: at most 15 lower case letters, digits and '-', with a letter)"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Port",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	Port *intstr.IntOrString `json:"port,omitempty"`

	// Scheme is HTTP (default) or HTTPS (the certificate is not verified).
	// +optional
	// +kubebuilder:validation:Enum=HTTP;HTTPS
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Scheme",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:select:HTTP","urn:alm:descriptor:com.tectonic.ui:select:HTTPS"}
	Scheme string `json:"scheme,omitempty"`
}

// TCPSocketAction probes by opening a TCP connection.
type TCPSocketAction struct {
	// Port to connect to; the main port ("http") by default.
	// +optional
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:MaxLength=15
	// +kubebuilder:validation:XValidation:rule="type(self) == int ? (self >= 1 && self <= 65535) : (self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$') && self.matches('[a-z]') && !self.contains('--'))",message="a port is a number from 1 to 65535 or a port name (an IANA service name: at most 15 lower case letters, digits and '-', with a letter)"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Port",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	Port *intstr.IntOrString `json:"port,omitempty"`
}

// GRPCAction probes with the gRPC health checking protocol.
type GRPCAction struct {
	// Port of the gRPC server: a number.
	// +required
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Port",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	Port int32 `json:"port"`

	// Service is the name sent in the health check request ("" by default).
	// +optional
	// +kubebuilder:validation:MaxLength=256
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Service",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	Service *string `json:"service,omitempty"`
}

// ExecAction runs a command in the container.
type ExecAction struct {
	// Command and its arguments; not run in a shell unless you start one.
	// +required
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=4096
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Command"
	Command []string `json:"command"`
}

// Lifecycle is what happens when the container stops. The grace period that bounds it is the pod's
// (pod.terminationGracePeriodSeconds).
// +kubebuilder:validation:MinProperties=1
type Lifecycle struct {
	// PreStop runs before the container is sent SIGTERM: a pause (so that endpoints and load
	// balancers stop sending traffic first), a command or an HTTP request.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Pre-Stop Action",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	PreStop *Handler `json:"preStop,omitempty"`
}

// Handler is one action: a command, an HTTP GET or a pause. Exactly one.
// +kubebuilder:validation:XValidation:rule="(has(self.exec) ? 1 : 0) + (has(self.httpGet) ? 1 : 0) + (has(self.sleepSeconds) ? 1 : 0) == 1",message="preStop needs exactly one of exec, httpGet or sleepSeconds"
type Handler struct {
	// Exec runs a command in the container.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Exec"
	Exec *ExecAction `json:"exec,omitempty"`

	// HTTPGet sends a GET to the container.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="HTTP GET"
	HTTPGet *HTTPGetAction `json:"httpGet,omitempty"`

	// SleepSeconds pauses, with no command in the image needed.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=3600
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Sleep Seconds",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	SleepSeconds *int64 `json:"sleepSeconds,omitempty"`
}
