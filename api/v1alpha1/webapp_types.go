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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Condition types of a WebApp. They follow the kstatus conventions
// (sigs.k8s.io/cli-utils/pkg/kstatus), so GitOps tools and `kubectl wait` understand them.
const (
	// ConditionReady is True when every desired replica runs the latest spec and is available.
	ConditionReady = "Ready"
	// ConditionAvailable mirrors the Deployment's minimum availability.
	ConditionAvailable = "Available"
	// ConditionReconciling is True while the operator is converging the children towards the spec.
	ConditionReconciling = "Reconciling"
	// ConditionStalled is True when progress is impossible without a change by the user.
	ConditionStalled = "Stalled"
	// ConditionAutoscaling, present only while spec.autoscaling is set, says whether the
	// HorizontalPodAutoscaler can scale the WebApp: False when it cannot (no metrics, no scale
	// subresource), Unknown until it has reported. It never holds Ready back, since the app serves.
	ConditionAutoscaling = "Autoscaling"
)

// ServiceType is the type of the Service in front of the web app.
// +kubebuilder:validation:Enum=ClusterIP;NodePort;LoadBalancer
type ServiceType string

const (
	ServiceTypeClusterIP    ServiceType = "ClusterIP"
	ServiceTypeNodePort     ServiceType = "NodePort"
	ServiceTypeLoadBalancer ServiceType = "LoadBalancer"
)

// WebAppSpec is the desired state of a WebApp: a stateless HTTP service run by a Deployment
// and exposed by a Service of the same name.
// +kubebuilder:validation:XValidation:rule="!has(self.minReadySeconds) || self.minReadySeconds < (has(self.progressDeadlineSeconds) ? self.progressDeadlineSeconds : 600)",message="minReadySeconds must be less than progressDeadlineSeconds (600 by default)"
// +kubebuilder:validation:XValidation:rule="!has(self.healthCheck) || !has(self.probes)",message="set healthCheck (the shorthand) or probes, not both"
// +kubebuilder:validation:XValidation:rule="!has(self.ports) || self.ports.all(p, !has(p.servicePort) || p.servicePort != self.service.port && self.ports.filter(q, has(q.servicePort) && q.servicePort == p.servicePort).size() == 1)",message="each port's servicePort must differ from service.port and from the others'"
// +kubebuilder:validation:XValidation:rule="!has(self.metrics) || self.metrics.port == 'http' || self.metrics.port == self.port || has(self.ports) && self.ports.exists(p, p.name == self.metrics.port || p.containerPort == self.metrics.port)",message="metrics.port is http, spec.port, or the name or containerPort of one of spec.ports"
// +kubebuilder:validation:XValidation:rule="!has(self.metrics) || !has(self.ports) || self.metrics.port == 'http' || self.metrics.port == self.port || self.ports.all(p, !(p.name == self.metrics.port || p.containerPort == self.metrics.port) || (!has(p.protocol) || p.protocol == 'TCP') && (has(p.servicePort) || p.containerPort != self.service.port && !self.ports.exists(q, has(q.servicePort) && q.servicePort == p.containerPort)))",message="the metrics port is TCP; without a servicePort it is exposed on the Service under its containerPort, which must then differ from service.port and from every servicePort"
// +kubebuilder:validation:XValidation:rule="!has(self.sidecars) || !has(self.initContainers) || self.sidecars.all(c, !self.initContainers.exists(i, i.name == c.name))",message="sidecars and initContainers need names of their own"
// +kubebuilder:validation:XValidation:rule="(!has(self.sidecars) || self.sidecars.all(c, !has(c.volumeMounts) || c.volumeMounts.all(m, has(self.volumes) && self.volumes.exists(v, v.name == m.name)))) && (!has(self.initContainers) || self.initContainers.all(c, !has(c.volumeMounts) || c.volumeMounts.all(m, has(self.volumes) && self.volumes.exists(v, v.name == m.name))))",message="volumeMounts name volumes of spec.volumes"
type WebAppSpec struct {
	// Image is the container image that serves HTTP, e.g. "ghcr.io/acme/shop:1.4.2".
	// Changing it rolls the Deployment.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:XValidation:rule="!self.matches('\\\\s')",message="image must not contain whitespace"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Image",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	Image string `json:"image"`

	// Replicas is the number of pods to run. It is also the target of the scale
	// subresource, so `kubectl scale` can drive it. With spec.autoscaling, the autoscaler sets the
	// Deployment's replicas instead and this field is not used.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Replicas",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:podCount"}
	Replicas *int32 `json:"replicas,omitempty"`

	// Port is the TCP port the container listens on. The Service forwards to it.
	// +optional
	// +kubebuilder:default=8080
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Container Port",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	Port int32 `json:"port,omitempty"`

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

	// HealthCheck configures HTTP readiness and liveness probes. Without it the pod is
	// considered ready as soon as the container starts.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Health Check"
	HealthCheck *HealthCheck `json:"healthCheck,omitempty"`

	// Service configures the Service that exposes the web app.
	// +optional
	// +kubebuilder:default={}
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Service"
	Service ServiceSpec `json:"service,omitempty"`

	// PodLabels are extra labels for the pods. The selector labels
	// app.kubernetes.io/name, app.kubernetes.io/instance and app.kubernetes.io/managed-by are reserved.
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	// +kubebuilder:validation:XValidation:rule="!('app.kubernetes.io/name' in self) && !('app.kubernetes.io/instance' in self) && !('app.kubernetes.io/managed-by' in self)",message="podLabels must not set the reserved labels app.kubernetes.io/name, app.kubernetes.io/instance or app.kubernetes.io/managed-by"
	// +kubebuilder:validation:XValidation:rule="self.all(k, !format.qualifiedName().validate(k).hasValue())",message="podLabels keys must be qualified names: an optional DNS subdomain prefix and '/', then at most 63 letters, digits, '-', '_' or '.', alphanumeric at both ends"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Pod Labels",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	PodLabels map[string]LabelValue `json:"podLabels,omitempty"`

	// PodAnnotations are extra annotations for the pods; webapp-operator.io/config-revision is reserved.
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	// +kubebuilder:validation:XValidation:rule="self.all(k, !format.qualifiedName().validate(k.lowerAscii()).hasValue())",message="podAnnotations keys must be qualified names: an optional DNS subdomain prefix and '/', then at most 63 letters, digits, '-', '_' or '.', alphanumeric at both ends"
	// +kubebuilder:validation:XValidation:rule="!('webapp-operator.io/config-revision' in self)",message="podAnnotations must not set webapp-operator.io/config-revision, which the operator sets"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Pod Annotations",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	PodAnnotations map[string]AnnotationValue `json:"podAnnotations,omitempty"`

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

	// Ports are more named ports of the container (metrics, admin, gRPC), each exposed on the
	// Service when it gives a servicePort.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=16
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Ports",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	Ports []ContainerPort `json:"ports,omitempty"`

	// Volumes the container mounts: configuration from ConfigMaps and Secrets, scratch space, or an
	// existing PersistentVolumeClaim.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:XValidation:rule="self.all(v, self.filter(w, w.mountPath == v.mountPath).size() == 1)",message="each volume needs a mountPath of its own"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Volumes",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	Volumes []Volume `json:"volumes,omitempty"`

	// ServiceAccountName runs the pods as this ServiceAccount (the namespace's "default" otherwise),
	// for apps that call the Kubernetes API or use workload identity.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="!format.dns1123Subdomain().validate(self).hasValue()",message="must be a DNS subdomain name: lower case letters, digits, '-' and '.'"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Service Account Name",xDescriptors={"urn:alm:descriptor:io.kubernetes:ServiceAccount","urn:alm:descriptor:com.tectonic.ui:advanced"}
	ServiceAccountName string `json:"serviceAccountName,omitempty"`

	// AutomountServiceAccountToken mounts the ServiceAccount's token into the pods. Off by default:
	// a web app rarely calls the Kubernetes API, and a token it does not use is only a risk.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Mount the Service Account Token",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:booleanSwitch","urn:alm:descriptor:com.tectonic.ui:advanced"}
	AutomountServiceAccountToken *bool `json:"automountServiceAccountToken,omitempty"`

	// ImagePullSecrets are the registry credentials for private images.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=16
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Image Pull Secrets",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	ImagePullSecrets []ImagePullSecret `json:"imagePullSecrets,omitempty"`

	// Probes set the readiness, liveness and startup probes one by one, for apps that healthCheck
	// does not fit (another port, TCP, gRPC, a command, timings).
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Probes",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	Probes *Probes `json:"probes,omitempty"`

	// Lifecycle says how pods stop: a preStop action (for instance a pause, so that traffic drains
	// before the server gets SIGTERM) and the grace period. Without it, a 5 second pause and a grace
	// period of 35 seconds.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Lifecycle",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	Lifecycle *Lifecycle `json:"lifecycle,omitempty"`

	// MinReadySeconds is how long a new pod must stay ready before it counts as available, so that a
	// rollout does not move on from a pod that crashes a moment after starting.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=3600
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Min Ready Seconds",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number","urn:alm:descriptor:com.tectonic.ui:advanced"}
	MinReadySeconds *int32 `json:"minReadySeconds,omitempty"`

	// Strategy tunes the rolling update: how many pods above or below replicas it may use.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Rollout Strategy",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	Strategy *RolloutStrategy `json:"strategy,omitempty"`

	// Paused stops pod template changes from rolling out, like `kubectl rollout pause`: the
	// Deployment is paused, so a new image, environment or config waits, while replicas, the Service
	// and the other children are still kept in line. Setting it back to false rolls out what waited.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Paused",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:booleanSwitch"}
	Paused bool `json:"paused,omitempty"`

	// Rollout says what to do when a rollout fails: by default nothing but report it; with
	// autoRollback, go back to the last template that was Ready.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Rollout Policy",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	Rollout *Rollout `json:"rollout,omitempty"`

	// RevisionHistoryLimit is how many old ReplicaSets the Deployment keeps for `kubectl rollout
	// undo` (10 by default).
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Revision History Limit",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number","urn:alm:descriptor:com.tectonic.ui:advanced"}
	RevisionHistoryLimit *int32 `json:"revisionHistoryLimit,omitempty"`

	// Scheduling says where the pods may run: node selector, tolerations, node affinity, spreading,
	// priority.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Scheduling",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	Scheduling *Scheduling `json:"scheduling,omitempty"`

	// Security says how the pods run: by default, the restricted Pod Security level with the image's
	// user; here, another user, group, fsGroup or a read-only root file system.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Security",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	Security *Security `json:"security,omitempty"`

	// Sidecars run next to the app for the life of the pod (a proxy, a log shipper), as native
	// sidecars: they start before it and stop after it.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=4
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Sidecars",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	Sidecars []Container `json:"sidecars,omitempty"`

	// InitContainers run to completion, in order, before the app and the sidecars start (a schema
	// migration, fetching assets).
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=4
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Init Containers",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	InitContainers []Container `json:"initContainers,omitempty"`

	// ProgressDeadlineSeconds is how long a rollout may make no progress before the WebApp
	// is reported Stalled (reason ProgressDeadlineExceeded). Defaults to the Deployment's 600.
	// +optional
	// +kubebuilder:validation:Minimum=10
	// +kubebuilder:validation:Maximum=86400
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Progress Deadline Seconds",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number","urn:alm:descriptor:com.tectonic.ui:advanced"}
	ProgressDeadlineSeconds *int32 `json:"progressDeadlineSeconds,omitempty"`

	// DisruptionBudget tunes the PodDisruptionBudget that a WebApp with more than one replica gets by
	// default, so that node drains keep it serving; set enabled: false to do without.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Disruption Budget",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	DisruptionBudget *DisruptionBudget `json:"disruptionBudget,omitempty"`

	// Autoscaling has a HorizontalPodAutoscaler set the replicas from the pods' CPU or memory use;
	// spec.replicas is then not used.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Autoscaling"
	Autoscaling *Autoscaling `json:"autoscaling,omitempty"`

	// NetworkPolicy, when set, has a NetworkPolicy admit connections to the pods only from the
	// WebApp's namespace and the namespaces it lists (the ingress controller's, the gateway's), so
	// that the rest of the cluster cannot reach the app around its front door.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Network Policy",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	NetworkPolicy *NetworkPolicy `json:"networkPolicy,omitempty"`

	// Ingress, when set, exposes the WebApp outside the cluster through an Ingress of its hosts and
	// paths; without it, the WebApp is reachable inside the cluster only, through its Service.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Ingress"
	Ingress *Ingress `json:"ingress,omitempty"`

	// Route, when set, exposes the WebApp outside the cluster through a Gateway API HTTPRoute of its
	// host names and paths, attached to the Gateways it names; it may be set with Ingress.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Route"
	Route *Route `json:"route,omitempty"`

	// Metrics, when set, has Prometheus (through the Prometheus Operator) scrape the app's metrics
	// from the port and path it names.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Metrics"
	Metrics *Metrics `json:"metrics,omitempty"`
	// RolloutOnConfigChange rolls the pods, as an image change does, when the data of a ConfigMap they
	// read (env, envFrom, volumes, of every container) changes, and of a Secret when the operator runs
	// with Secret rollouts on (off by default): Kubernetes itself does not restart them. Set it to false for apps that reload their configuration on their own; the
	// operator then still reports a reference to an object that does not exist (ConfigMissing).
	// +optional
	// +kubebuilder:default=true
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Roll Out On Config Change",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:booleanSwitch","urn:alm:descriptor:com.tectonic.ui:advanced"}
	RolloutOnConfigChange *bool `json:"rolloutOnConfigChange,omitempty"`
}

// ConfigRevisionAnnotation is the pod template annotation that holds the fingerprint of the data of
// the ConfigMaps and Secrets the pods read (WebAppStatus.ConfigRevision): a change of that data
// changes the pod template, and so rolls the Deployment.
const ConfigRevisionAnnotation = "webapp-operator.io/config-revision"

// HealthCheck is an HTTP GET probe used for both readiness and liveness.
type HealthCheck struct {
	// Path is the HTTP path to probe, e.g. "/healthz".
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:Pattern=`^/[^\s]*$`
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Health Check Path",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	Path string `json:"path"`

	// Port is the port to probe. Defaults to spec.port.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Health Check Port",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	Port *int32 `json:"port,omitempty"`
}

// ServiceSpec configures the Service in front of the web app.
// +kubebuilder:validation:XValidation:rule="!has(self.nodePort) || self.type != 'ClusterIP'",message="service.nodePort requires service.type NodePort or LoadBalancer"
type ServiceSpec struct {
	// Type is the Service type.
	// +optional
	// +kubebuilder:default=ClusterIP
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Service Type",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:select:ClusterIP","urn:alm:descriptor:com.tectonic.ui:select:NodePort","urn:alm:descriptor:com.tectonic.ui:select:LoadBalancer"}
	Type ServiceType `json:"type,omitempty"`

	// Port is the port the Service listens on.
	// +optional
	// +kubebuilder:default=80
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Service Port",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	Port int32 `json:"port,omitempty"`

	// NodePort pins the node port for NodePort and LoadBalancer Services.
	// Left empty, Kubernetes picks one.
	// +optional
	// +kubebuilder:validation:Minimum=30000
	// +kubebuilder:validation:Maximum=32767
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Node Port",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number","urn:alm:descriptor:com.tectonic.ui:advanced"}
	NodePort *int32 `json:"nodePort,omitempty"`
}

// WebAppStatus is the observed state of a WebApp.
type WebAppStatus struct {
	// ObservedGeneration is the metadata.generation this status was computed for.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Observed Generation",xDescriptors={"urn:alm:descriptor:text"}
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Replicas is the number of pods of the Deployment, of any version.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Replicas",xDescriptors={"urn:alm:descriptor:text"}
	Replicas int32 `json:"replicas,omitempty"`

	// ReadyReplicas is the number of pods that pass their readiness probe.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Ready Replicas",xDescriptors={"urn:alm:descriptor:text"}
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`

	// AvailableReplicas is the number of pods ready for at least the Deployment's minReadySeconds.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Available Replicas",xDescriptors={"urn:alm:descriptor:text"}
	AvailableReplicas int32 `json:"availableReplicas,omitempty"`

	// UpdatedReplicas is the number of pods that run the latest spec.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Updated Replicas",xDescriptors={"urn:alm:descriptor:text"}
	UpdatedReplicas int32 `json:"updatedReplicas,omitempty"`

	// Selector is the label selector of the pods, in string form, for the scale subresource.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Selector",xDescriptors={"urn:alm:descriptor:text"}
	Selector string `json:"selector,omitempty"`

	// URL is where the WebApp answers: its external URL once its Ingress has an address
	// (https://shop.example.com/) or its route is accepted (http://shop.example.com/; the route's when
	// both are), and the in-cluster address of its Service otherwise (http://shop.default.svc:80).
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="URL",xDescriptors={"urn:alm:descriptor:org.w3:link"}
	URL string `json:"url,omitempty"`

	// Revisions are the pod templates that were Ready, newest first (at most 5): what an automatic
	// rollback goes back to.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=5
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Revisions"
	Revisions []Revision `json:"revisions,omitempty"`

	// RolledBack is set while the Deployment runs an earlier revision because the rollout of this
	// generation failed (spec.rollout.autoRollback); a change of the spec clears it.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Rolled Back"
	RolledBack *RollbackStatus `json:"rolledBack,omitempty"`

	// ConfigRevision is the fingerprint of the data of the ConfigMaps and Secrets that the
	// Deployment's pod template references, as that template carries it: once Ready, every pod runs
	// with this configuration. Empty when the pods read none, or with rolloutOnConfigChange false.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Config Revision",xDescriptors={"urn:alm:descriptor:text"}
	ConfigRevision string `json:"configRevision,omitempty"`

	// Conditions are Ready, Available, Reconciling and Stalled, in the kstatus style, and Autoscaling
	// while spec.autoscaling is set.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Conditions",xDescriptors={"urn:alm:descriptor:io.kubernetes.conditions"}
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// WebApp runs a stateless HTTP service: the operator turns it into a Deployment and a
// Service of the same name, keeps them in line and reports their health in status.
// +kubebuilder:object:root=true
// +kubebuilder:deprecatedversion:warning="apps.webapp-operator.io/v1alpha1 WebApp is deprecated; use apps.webapp-operator.io/v1beta1"
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.status.selector
// +kubebuilder:resource:shortName=wa,categories=all
// +kubebuilder:printcolumn:name="Image",type=string,JSONPath=`.spec.image`
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

// WebAppList contains a list of WebApp.
// +kubebuilder:object:root=true
type WebAppList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []WebApp `json:"items"`
}
