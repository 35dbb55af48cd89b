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
	"k8s.io/apimachinery/pkg/api/resource"
)

// The types below have the JSON shape of their core/v1 namesakes, so manifests written for a
// container work unchanged. They exist because core/v1's OpenAPI schema is looser than its Go types:
// a CRD that embeds them admits values (a quantity "1e1.5", an env var name with '=', a label key
// with spaces) that the operator cannot decode or that the API server refuses in the Deployment. Every
// field here is validated at admission exactly as the operator's decoder and the Deployment's
// validation read it, with a length bound, so that no WebApp the API server admits can stop the
// operator or fail later (docs/conditions.md).

// ResourceQuantity is a resource quantity, as Kubernetes writes one: "500m", "1.5", "128Mi", "1e3", or an
// integer. Admission accepts exactly the non-negative quantities the operator's parser
// (resource.ParseQuantity) accepts, with an exponent of at most two digits: core/v1's pattern also
// admits strings the parser refuses (such as "1e1.5"), and huge exponents make quantity arithmetic,
// here and in the API server, needlessly slow.
// +kubebuilder:validation:XIntOrString
// +kubebuilder:validation:Type=""
// +kubebuilder:validation:MaxLength=64
// +kubebuilder:validation:XValidation:rule="type(self) != int || (self >= 0 && self <= 1000000000000000)",message="a quantity may not be negative, and an integer one is at most 10^15"
// +kubebuilder:validation:Pattern=`^\+?([0-9]+(\.[0-9]*)?|\.[0-9]+)([KMGTPE]i|[numkMGTPE]|[eE][+-]?[0-9]{1,2})?$`
type ResourceQuantity struct {
	// The type is not named Quantity: operator-sdk's descriptor generator takes the embedded
	// resource.Quantity, by its bare name, for this type again, and never ends.
	resource.Quantity `json:",inline"`
}

// MustParseQuantity is resource.MustParse for tests and examples.
func MustParseQuantity(s string) ResourceQuantity {
	return ResourceQuantity{Quantity: resource.MustParse(s)}
}

// ResourceList maps a resource name (cpu, memory, ephemeral-storage, hugepages-<size>, or an extended
// resource such as example.com/gpu) to a quantity. Extended resources are counted in whole units.
// +kubebuilder:validation:MaxProperties=16
// +kubebuilder:validation:XValidation:rule="self.all(k, !k.contains('/') || type(self[k]) == int || string(self[k]).matches('^[0-9]{1,15}$'))",message="an extended resource (one with a domain prefix) is a whole number of at most 15 digits"
// +kubebuilder:validation:XValidation:rule="self.all(k, !format.qualifiedName().validate(k).hasValue() && (k.contains('/') || k in ['cpu', 'memory', 'ephemeral-storage'] || k.startsWith('hugepages-')))",message="resource names are cpu, memory, ephemeral-storage, hugepages-<size>, or an extended resource with a domain prefix (example.com/gpu)"
type ResourceList map[string]ResourceQuantity

// ResourceRequirements are the container's compute resource requests and limits.
// +kubebuilder:validation:XValidation:rule="!has(self.requests) || self.requests.all(k, !(k.contains('/') || k.startsWith('hugepages-')) || (has(self.limits) && k in self.limits && string(self.limits[k]) == string(self.requests[k])))",message="extended resources and hugepages cannot be overcommitted: their request needs a limit of the same value"
type ResourceRequirements struct {
	// Limits are the most the container may use.
	// +optional
	Limits ResourceList `json:"limits,omitempty"`

	// Requests are what the scheduler reserves for the container. A request may not exceed its limit.
	// +optional
	Requests ResourceList `json:"requests,omitempty"`
}

// EnvVar is an environment variable of the container: a literal value or one read from a ConfigMap,
// a Secret, the pod's own fields or the container's resources.
// +kubebuilder:validation:XValidation:rule="!has(self.value) || !has(self.valueFrom)",message="env: set value or valueFrom, not both"
type EnvVar struct {
	// Name of the variable: printable ASCII characters other than '='.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:Pattern=`^[ -<>-~]+$`
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Name",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	Name string `json:"name"`

	// Value of the variable. $(OTHER) expands to another variable defined before this one.
	// +optional
	// +kubebuilder:validation:MaxLength=32768
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Value",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	Value string `json:"value,omitempty"`

	// ValueFrom reads the value from a ConfigMap, a Secret, the pod or the container's resources.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Value From"
	ValueFrom *EnvVarSource `json:"valueFrom,omitempty"`
}

// EnvVarSource names one source of an environment variable's value.
// +kubebuilder:validation:XValidation:rule="(has(self.configMapKeyRef) ? 1 : 0) + (has(self.secretKeyRef) ? 1 : 0) + (has(self.fieldRef) ? 1 : 0) + (has(self.resourceFieldRef) ? 1 : 0) == 1",message="valueFrom needs exactly one of configMapKeyRef, secretKeyRef, fieldRef or resourceFieldRef"
type EnvVarSource struct {
	// ConfigMapKeyRef reads a key of a ConfigMap in the WebApp's namespace.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="ConfigMap Key"
	ConfigMapKeyRef *KeySelector `json:"configMapKeyRef,omitempty"`

	// SecretKeyRef reads a key of a Secret in the WebApp's namespace.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Secret Key"
	SecretKeyRef *KeySelector `json:"secretKeyRef,omitempty"`

	// FieldRef reads a field of the pod: metadata.name, metadata.namespace, metadata.uid,
	// metadata.labels['KEY'], metadata.annotations['KEY'], spec.nodeName, spec.serviceAccountName,
	// status.hostIP, status.hostIPs, status.podIP or status.podIPs.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Pod Field"
	FieldRef *ObjectFieldSelector `json:"fieldRef,omitempty"`

	// ResourceFieldRef reads a request or limit of the container (for instance limits.cpu for GOMAXPROCS).
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Container Resource"
	ResourceFieldRef *ResourceFieldSelector `json:"resourceFieldRef,omitempty"`
}

// KeySelector names a key of a ConfigMap or Secret.
type KeySelector struct {
	// Name of the ConfigMap or Secret.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="!format.dns1123Subdomain().validate(self).hasValue()",message="must be a DNS subdomain name: lower case letters, digits, '-' and '.'"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Name",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	Name string `json:"name"`

	// Key within it: letters, digits, '-', '_' and '.', neither "." nor starting with "..".
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[.]?[-_a-zA-Z0-9][-._a-zA-Z0-9]*$`
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Key",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	Key string `json:"key"`

	// Optional: when true, a missing object or key leaves the variable unset instead of keeping
	// the pod from starting.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Optional",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:booleanSwitch"}
	Optional *bool `json:"optional,omitempty"`
}

// ObjectFieldSelector selects a field of the pod.
type ObjectFieldSelector struct {
	// APIVersion of the field path; only v1.
	// +optional
	// +kubebuilder:validation:Enum=v1
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="API Version",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	APIVersion string `json:"apiVersion,omitempty"`

	// FieldPath is the path of the field.
	// +required
	// +kubebuilder:validation:MaxLength=330
	// +kubebuilder:validation:XValidation:rule="self in ['metadata.name', 'metadata.namespace', 'metadata.uid', 'spec.nodeName', 'spec.serviceAccountName', 'status.hostIP', 'status.hostIPs', 'status.podIP', 'status.podIPs'] || (self.matches('''^metadata[.]labels[[]'[^']+'[]]$''') && !format.qualifiedName().validate(self.substring(17, self.size() - 2)).hasValue()) || (self.matches('''^metadata[.]annotations[[]'[^']+'[]]$''') && !format.qualifiedName().validate(self.substring(22, self.size() - 2).lowerAscii()).hasValue())",message="fieldPath must be metadata.name, metadata.namespace, metadata.uid, metadata.labels['KEY'], metadata.annotations['KEY'], spec.nodeName, spec.serviceAccountName, status.hostIP, status.hostIPs, status.podIP or status.podIPs"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Field Path",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	FieldPath string `json:"fieldPath"`
}

// ResourceFieldSelector selects a request or limit of the container.
// +kubebuilder:validation:XValidation:rule="!has(self.divisor) || (self.resource.endsWith('.cpu') ? string(self.divisor) in ['1m', '1'] : string(self.divisor) in ['1', '1k', '1M', '1G', '1T', '1P', '1E', '1Ki', '1Mi', '1Gi', '1Ti', '1Pi', '1Ei'])",message="divisor is 1m or 1 for cpu, and 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi or 1Ei for memory and ephemeral-storage"
type ResourceFieldSelector struct {
	// ContainerName is left empty: the WebApp's container.
	// +optional
	// +kubebuilder:validation:Enum=app
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Container Name",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	ContainerName string `json:"containerName,omitempty"`

	// Resource is limits.cpu, limits.memory, limits.ephemeral-storage, requests.cpu,
	// requests.memory or requests.ephemeral-storage.
	// +required
	// +kubebuilder:validation:Enum=limits.cpu;limits.memory;limits.ephemeral-storage;requests.cpu;requests.memory;requests.ephemeral-storage
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Resource",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:select:limits.cpu","urn:alm:descriptor:com.tectonic.ui:select:limits.memory","urn:alm:descriptor:com.tectonic.ui:select:limits.ephemeral-storage","urn:alm:descriptor:com.tectonic.ui:select:requests.cpu","urn:alm:descriptor:com.tectonic.ui:select:requests.memory","urn:alm:descriptor:com.tectonic.ui:select:requests.ephemeral-storage"}
	Resource string `json:"resource"`

	// Divisor scales the value: 1m gives millicores, 1Mi mebibytes; 1 by default.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Divisor",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	Divisor *ResourceQuantity `json:"divisor,omitempty"`
}

// EnvFromSource loads every key of a ConfigMap or a Secret as environment variables.
// +kubebuilder:validation:XValidation:rule="has(self.configMapRef) != has(self.secretRef)",message="envFrom needs exactly one of configMapRef or secretRef"
type EnvFromSource struct {
	// Prefix is prepended to every key: printable ASCII characters other than '='.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:Pattern=`^[ -<>-~]*$`
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Prefix",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	Prefix string `json:"prefix,omitempty"`

	// ConfigMapRef names a ConfigMap in the WebApp's namespace.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="ConfigMap"
	ConfigMapRef *ObjectReference `json:"configMapRef,omitempty"`

	// SecretRef names a Secret in the WebApp's namespace.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Secret"
	SecretRef *ObjectReference `json:"secretRef,omitempty"`
}

// ObjectReference names a ConfigMap or a Secret in the WebApp's namespace.
type ObjectReference struct {
	// Name of the object.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="!format.dns1123Subdomain().validate(self).hasValue()",message="must be a DNS subdomain name: lower case letters, digits, '-' and '.'"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Name",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	Name string `json:"name"`

	// Optional: when true, a missing object is ignored instead of keeping the pod from starting.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Optional",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:booleanSwitch"}
	Optional *bool `json:"optional,omitempty"`
}

// LabelValue is the value of a label: at most 63 characters, alphanumeric at both ends, with '-',
// '_' and '.' in between, or empty.
// +kubebuilder:validation:MaxLength=63
// +kubebuilder:validation:Pattern=`^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`
type LabelValue string

// AnnotationValue is the value of an annotation. All of a pod's annotations together may not exceed
// 256 KiB; this bound keeps 64 of them under it.
// +kubebuilder:validation:MaxLength=4096
type AnnotationValue string
