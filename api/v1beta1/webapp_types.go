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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// WebAppSpec is the desired state of a WebApp: a stateless HTTP service run by a Deployment and
// exposed by a Service of the same name. Its settings are grouped by concern: the app's container,
// the pod around it, how it is reached, how it rolls out, how it scales and how it is watched.
// +kubebuilder:validation:XValidation:rule="!has(self.container.lifecycle) || !has(self.container.lifecycle.preStop) || !has(self.container.lifecycle.preStop.sleepSeconds) || self.container.lifecycle.preStop.sleepSeconds <= (has(self.pod) && has(self.pod.terminationGracePeriodSeconds) ? self.pod.terminationGracePeriodSeconds : 30)",message="container.lifecycle.preStop.sleepSeconds must fit in pod.terminationGracePeriodSeconds (30 by default)"
// +kubebuilder:validation:XValidation:rule="!has(self.exposure) || !has(self.exposure.service) || !has(self.exposure.service.ports) || self.exposure.service.ports.all(s, has(self.container.ports) && self.container.ports.exists(p, p.name == s.name))",message="each exposure.service.ports entry names a port of container.ports"
// +kubebuilder:validation:XValidation:rule="!has(self.observability) || !has(self.observability.metrics) || !has(self.observability.metrics.port) || has(self.container.ports) && self.container.ports.exists(p, p.name == self.observability.metrics.port || p.containerPort == self.observability.metrics.port)",message="observability.metrics.port is the name or containerPort of one of container.ports"
// +kubebuilder:validation:XValidation:rule="!has(self.observability) || !has(self.observability.metrics) || !has(self.observability.metrics.port) || !has(self.container.ports) || !has(self.exposure) || !has(self.exposure.service) || !has(self.exposure.service.ports) || self.observability.metrics.port == 'http' || self.observability.metrics.port == self.container.ports[0].containerPort || self.container.ports.all(p, !(p.name == self.observability.metrics.port || p.containerPort == self.observability.metrics.port) || (!has(p.protocol) || p.protocol == 'TCP') && (self.exposure.service.ports.exists(s, s.name == p.name) || !self.exposure.service.ports.exists(s, s.port == p.containerPort)))",message="the metrics port is TCP; when no exposure.service.ports entry names it, it is exposed on the Service under its containerPort, which must then differ from every Service port"
type WebAppSpec struct {
	// Replicas is the number of pods to run. It is also the target of the scale subresource, so
	// `kubectl scale` can drive it. With scaling.autoscaler, the autoscaler sets the Deployment's
	// replicas instead and this field is not used.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Replicas",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:podCount"}
	Replicas *int32 `json:"replicas,omitempty"`

	// Container is the app's container: its image, command, environment, resources, ports, probes
	// and how it stops.
	// +required
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Container"
	Container AppContainer `json:"container"`

	// Pod is what the pod around the container has: labels, annotations, service account,
	// security, scheduling, volumes, sidecars and init containers, and its grace period.
	// +optional
	// +kubebuilder:default={}
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Pod",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	Pod Pod `json:"pod,omitempty"`

	// Exposure is how the app is reached, and by whom: its Service, and optionally an Ingress, an
	// HTTPRoute and a NetworkPolicy.
	// +optional
	// +kubebuilder:default={}
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Exposure"
	Exposure Exposure `json:"exposure,omitempty"`

	// Rollout is how a new pod template replaces the old one, and what happens when that fails or
	// when the configuration the pods read changes.
	// +optional
	// +kubebuilder:default={}
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Rollout"
	Rollout Rollout `json:"rollout,omitempty"`

	// Scaling is how the replicas follow the load (an autoscaler) and how many pods a voluntary
	// disruption may take away at once (a disruption budget).
	// +optional
	// +kubebuilder:default={}
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Scaling"
	Scaling Scaling `json:"scaling,omitempty"`

	// Observability is how the app is watched: Prometheus metrics.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Observability"
	Observability Observability `json:"observability,omitempty"`
}

// WebApp runs a stateless HTTP service: the operator turns it into a Deployment and a Service of the
// same name, keeps them in line and reports their health in status. This version is the hub of the
// conversion: api/v1alpha1 converts to and from it.
// +kubebuilder:object:root=true
// +kubebuilder:storageversion
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.status.selector
// +kubebuilder:resource:shortName=wa,categories=all
// +kubebuilder:printcolumn:name="Image",type=string,JSONPath=`.spec.container.image`
// +kubebuilder:printcolumn:name="Desired",type=integer,JSONPath=`.spec.replicas`
// +kubebuilder:printcolumn:name="Ready",type=integer,JSONPath=`.status.readyReplicas`
// +kubebuilder:printcolumn:name="Status",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 63 && self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",message="metadata.name must be a DNS-1035 label (lower case letters, digits and '-', starting with a letter, at most 63 characters): it names the Service"
// +operator-sdk:csv:customresourcedefinitions:displayName="Web App",resources={{Deployment,v1,""},{Service,v1,""},{PodDisruptionBudget,v1,""},{HorizontalPodAutoscaler,v2,""},{NetworkPolicy,v1,""},{Ingress,v1,""},{HTTPRoute,v1,""},{ServiceMonitor,v1,""}}
type WebApp struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is a standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the WebApp.
	// +required
	Spec WebAppSpec `json:"spec"`

	// status is the observed state of the WebApp, written by the operator.
	// +optional
	Status WebAppStatus `json:"status,omitempty"`
}

// Hub marks this version as the conversion hub (sigs.k8s.io/controller-runtime/pkg/conversion): the
// other versions convert to and from it.
func (*WebApp) Hub() {}

// WebAppList contains a list of WebApp.
// +kubebuilder:object:root=true
type WebAppList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []WebApp `json:"items"`
}
