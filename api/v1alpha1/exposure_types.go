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
