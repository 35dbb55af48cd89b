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

import "k8s.io/apimachinery/pkg/util/intstr"

// Observability is how the app is watched from outside: its metrics today.
type Observability struct {
	// Metrics, when set, has Prometheus (through the Prometheus Operator) scrape the app's metrics
	// from the port and path it names.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Metrics"
	Metrics *Metrics `json:"metrics,omitempty"`
}

// Metrics has Prometheus scrape the app's own metrics, through a ServiceMonitor
// (monitoring.coreos.com/v1, the Prometheus Operator's) that selects the WebApp's Service. It needs
// the Prometheus Operator's CRDs in the cluster, which Kubernetes does not ship: without them the
// WebApp is Stalled (MonitoringAPIMissing) and the rest of the operator works on.
//
// A port other than http is exposed on the Service too, so that the ServiceMonitor can select it by
// name: under the number of its exposure.service.ports entry when there is one, else under its
// containerPort.
type Metrics struct {
	// Port is the container port the app serves its metrics on: the name or containerPort of one of
	// container.ports, a TCP one.
	// +optional
	// +kubebuilder:default=http
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:MaxLength=15
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +kubebuilder:validation:XValidation:rule="type(self) != int || (self >= 1 && self <= 65535)",message="a port number is between 1 and 65535"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Metrics Port",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	Port *intstr.IntOrString `json:"port,omitempty"`

	// Path is the HTTP path of the metrics.
	// +optional
	// +kubebuilder:default="/metrics"
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:Pattern=`^/[-A-Za-z0-9/._~!$&'()*+,;=:@%]*$`
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Metrics Path",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	Path string `json:"path,omitempty"`

	// Interval is how often Prometheus scrapes the app, a Prometheus duration such as 30s or 1m30s.
	// When empty, the scraping Prometheus uses its own interval.
	// +optional
	// +kubebuilder:validation:MinLength=2
	// +kubebuilder:validation:MaxLength=16
	// +kubebuilder:validation:Pattern=`^(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?$`
	// +kubebuilder:validation:XValidation:rule="self.matches('[1-9]')",message="an interval is a Prometheus duration above zero, such as 30s or 1m30s"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Scrape Interval",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text","urn:alm:descriptor:com.tectonic.ui:advanced"}
	Interval string `json:"interval,omitempty"`
}
