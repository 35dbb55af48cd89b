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

// The pod-level parts of a WebApp: what a real web service needs beyond an image and a port, each
// optional, each validated at admission as the Deployment's own validation would, and none of them
// a whole core/v1 PodSpec: privileged containers, host namespaces, hostPath volumes and added
// capabilities have no field here at all.

// Pod is what the pod around the app's container has: its metadata, identity, security, where it
// runs, its volumes and the other containers. It is a reviewed subset of a PodSpec, not a PodSpec:
// privileged containers, host namespaces, hostPath volumes and added capabilities have no field here.
// +kubebuilder:validation:XValidation:rule="!has(self.sidecars) || !has(self.initContainers) || self.sidecars.all(c, !self.initContainers.exists(i, i.name == c.name))",message="sidecars and initContainers need names of their own"
// +kubebuilder:validation:XValidation:rule="(!has(self.sidecars) || self.sidecars.all(c, !has(c.volumeMounts) || c.volumeMounts.all(m, has(self.volumes) && self.volumes.exists(v, v.name == m.name)))) && (!has(self.initContainers) || self.initContainers.all(c, !has(c.volumeMounts) || c.volumeMounts.all(m, has(self.volumes) && self.volumes.exists(v, v.name == m.name))))",message="volumeMounts name volumes of pod.volumes"
type Pod struct {
	// Labels are extra labels for the pods. The selector labels app.kubernetes.io/name,
	// app.kubernetes.io/instance and app.kubernetes.io/managed-by are reserved.
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	// +kubebuilder:validation:XValidation:rule="!('app.kubernetes.io/name' in self) && !('app.kubernetes.io/instance' in self) && !('app.kubernetes.io/managed-by' in self)",message="pod labels must not set the reserved labels app.kubernetes.io/name, app.kubernetes.io/instance or app.kubernetes.io/managed-by"
	// +kubebuilder:validation:XValidation:rule="self.all(k, !format.qualifiedName().validate(k).hasValue())",message="pod label keys must be qualified names: an optional DNS subdomain prefix and '/', then at most 63 letters, digits, '-', '_' or '.', alphanumeric at both ends"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Pod Labels",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	Labels map[string]LabelValue `json:"labels,omitempty"`

	// Annotations are extra annotations for the pods; webapp-operator.io/config-revision is reserved.
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	// +kubebuilder:validation:XValidation:rule="self.all(k, !format.qualifiedName().validate(k.lowerAscii()).hasValue())",message="pod annotation keys must be qualified names: an optional DNS subdomain prefix and '/', then at most 63 letters, digits, '-', '_' or '.', alphanumeric at both ends"
	// +kubebuilder:validation:XValidation:rule="!('webapp-operator.io/config-revision' in self)",message="pod annotations must not set webapp-operator.io/config-revision, which the operator sets"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Pod Annotations",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	Annotations map[string]AnnotationValue `json:"annotations,omitempty"`

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
	// +kubebuilder:default=false
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Mount the Service Account Token",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:booleanSwitch","urn:alm:descriptor:com.tectonic.ui:advanced"}
	AutomountServiceAccountToken *bool `json:"automountServiceAccountToken,omitempty"`

	// ImagePullSecrets are the registry credentials for private images.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=16
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Image Pull Secrets",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	ImagePullSecrets []ImagePullSecret `json:"imagePullSecrets,omitempty"`

	// TerminationGracePeriodSeconds is how long a stopping pod may take, the app's preStop included,
	// before it is killed. Without it, the app's preStop pause plus 30 seconds for the app to drain
	// (35 with the default pause), or 30 with a preStop command or request: a default that depends
	// on container.lifecycle, which is why the schema states none.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=86400
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Termination Grace Period Seconds",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number","urn:alm:descriptor:com.tectonic.ui:advanced"}
	TerminationGracePeriodSeconds *int64 `json:"terminationGracePeriodSeconds,omitempty"`

	// Security says how the pods run: by default, the restricted Pod Security level with the image's
	// user; here, another user, group, fsGroup or a read-only root file system.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Security",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	Security *Security `json:"security,omitempty"`

	// Scheduling says where the pods may run: node selector, tolerations, node affinity, spreading,
	// priority.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Scheduling",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	Scheduling *Scheduling `json:"scheduling,omitempty"`

	// Volumes are the pod's volumes, each with where the app's container mounts it: configuration
	// from ConfigMaps and Secrets, scratch space, or an existing PersistentVolumeClaim. Sidecars and
	// init containers mount them by name.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:XValidation:rule="self.all(v, self.filter(w, w.mountPath == v.mountPath).size() == 1)",message="each volume needs a mountPath of its own"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Volumes",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	Volumes []Volume `json:"volumes,omitempty"`

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
}

// Security says how the pods run. Without it they meet the restricted Pod Security Standard with
// the image's own user: non-root, no privilege escalation, every capability dropped, the runtime's
// default seccomp profile. Nothing here can make a pod privileged.
type Security struct {
	// RunAsUser runs every container as this UID instead of the image's USER. 0 (root) is allowed
	// for images that need it, and then the pods no longer meet the restricted level: a namespace
	// that enforces it refuses them (the WebApp says so, with reason ReplicaFailure).
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=2147483647
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Run As User",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number","urn:alm:descriptor:com.tectonic.ui:advanced"}
	RunAsUser *int64 `json:"runAsUser,omitempty"`

	// RunAsGroup runs every container with this primary GID.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=2147483647
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Run As Group",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number","urn:alm:descriptor:com.tectonic.ui:advanced"}
	RunAsGroup *int64 `json:"runAsGroup,omitempty"`

	// FSGroup owns the volumes the pod mounts, so that a non-root user can write to them.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=2147483647
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="FS Group",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number","urn:alm:descriptor:com.tectonic.ui:advanced"}
	FSGroup *int64 `json:"fsGroup,omitempty"`

	// ReadOnlyRootFilesystem mounts every container's root file system read-only; give the app an
	// emptyDir volume for what it writes.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Read-Only Root File System",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:booleanSwitch","urn:alm:descriptor:com.tectonic.ui:advanced"}
	ReadOnlyRootFilesystem *bool `json:"readOnlyRootFilesystem,omitempty"`
}

// Volume is a volume of the pod and where the container mounts it: a ConfigMap, a Secret, an
// emptyDir or an existing PersistentVolumeClaim. Exactly one source.
// +kubebuilder:validation:XValidation:rule="(has(self.configMap) ? 1 : 0) + (has(self.secret) ? 1 : 0) + (has(self.emptyDir) ? 1 : 0) + (has(self.persistentVolumeClaim) ? 1 : 0) == 1",message="a volume needs exactly one of configMap, secret, emptyDir or persistentVolumeClaim"
type Volume struct {
	// Name of the volume, a DNS label; sidecars and init containers mount it by this name.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Name",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	Name string `json:"name"`

	// MountPath is where the container sees it: an absolute path.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:Pattern=`^/[^:]*$`
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Mount Path",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	MountPath string `json:"mountPath"`

	// SubPath mounts one entry of the volume instead of its root: a relative path without "..".
	// +optional
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:XValidation:rule="!self.startsWith('/') && !self.matches('(^|/)[.][.](/|$)')",message="subPath is a relative path without '..'"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Sub Path",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	SubPath string `json:"subPath,omitempty"`

	// ReadOnly mounts it read-only. ConfigMaps and Secrets are read-only whatever this says.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Read Only",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:booleanSwitch"}
	ReadOnly bool `json:"readOnly,omitempty"`

	// ConfigMap mounts the keys of a ConfigMap as files.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="ConfigMap"
	ConfigMap *ConfigMapVolume `json:"configMap,omitempty"`

	// Secret mounts the keys of a Secret as files.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Secret"
	Secret *SecretVolume `json:"secret,omitempty"`

	// EmptyDir is scratch space that lives as long as the pod.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Empty Dir"
	EmptyDir *EmptyDirVolume `json:"emptyDir,omitempty"`

	// PersistentVolumeClaim mounts an existing claim. The WebApp does not create or delete it; with
	// more than one replica it needs an access mode that allows that (ReadWriteMany or ReadOnlyMany).
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Persistent Volume Claim"
	PersistentVolumeClaim *PersistentVolumeClaimVolume `json:"persistentVolumeClaim,omitempty"`
}

// ConfigMapVolume selects a ConfigMap and, optionally, which keys become which files.
type ConfigMapVolume struct {
	// Name of the ConfigMap, in the WebApp's namespace.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="!format.dns1123Subdomain().validate(self).hasValue()",message="must be a DNS subdomain name: lower case letters, digits, '-' and '.'"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="ConfigMap",xDescriptors={"urn:alm:descriptor:io.kubernetes:ConfigMap"}
	Name string `json:"name"`

	// Items maps keys to file paths; without it every key becomes a file named like the key.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Items"
	Items []KeyToPath `json:"items,omitempty"`

	// DefaultMode is the mode of the files, 0 to 0777 (511); 0644 (420) by default.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=511
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Default Mode",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	DefaultMode *int32 `json:"defaultMode,omitempty"`

	// Optional: when true, a missing ConfigMap mounts an empty directory instead of keeping the pod
	// from starting.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Optional",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:booleanSwitch"}
	Optional *bool `json:"optional,omitempty"`
}

// SecretVolume selects a Secret and, optionally, which keys become which files.
type SecretVolume struct {
	// Name of the Secret, in the WebApp's namespace.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="!format.dns1123Subdomain().validate(self).hasValue()",message="must be a DNS subdomain name: lower case letters, digits, '-' and '.'"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Secret",xDescriptors={"urn:alm:descriptor:io.kubernetes:Secret"}
	Name string `json:"name"`

	// Items maps keys to file paths; without it every key becomes a file named like the key.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Items"
	Items []KeyToPath `json:"items,omitempty"`

	// DefaultMode is the mode of the files, 0 to 0777 (511); 0644 (420) by default.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=511
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Default Mode",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	DefaultMode *int32 `json:"defaultMode,omitempty"`

	// Optional: when true, a missing Secret mounts an empty directory instead of keeping the pod
	// from starting.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Optional",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:booleanSwitch"}
	Optional *bool `json:"optional,omitempty"`
}

// KeyToPath puts one key of a ConfigMap or Secret in a file.
type KeyToPath struct {
	// Key in the ConfigMap or Secret.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[.]?[-_a-zA-Z0-9][-._a-zA-Z0-9]*$`
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Key",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	Key string `json:"key"`

	// Path of the file, relative to the mount path, without "..".
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:XValidation:rule="!self.startsWith('/') && !self.matches('(^|/)[.][.](/|$)')",message="path is a relative path without '..'"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Path",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	Path string `json:"path"`

	// Mode of this file, 0 to 0777 (511); the volume's defaultMode otherwise.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=511
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Mode",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	Mode *int32 `json:"mode,omitempty"`
}

// EmptyDirVolume is scratch space on the node's disk, or in memory.
type EmptyDirVolume struct {
	// Medium is "" (the node's disk) or Memory (tmpfs, counted against the container's memory).
	// +optional
	// +kubebuilder:validation:Enum="";Memory
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Medium",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	Medium string `json:"medium,omitempty"`

	// SizeLimit caps what the pod may write there; past it, the pod is evicted.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Size Limit",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	SizeLimit *ResourceQuantity `json:"sizeLimit,omitempty"`
}

// PersistentVolumeClaimVolume names an existing PersistentVolumeClaim.
type PersistentVolumeClaimVolume struct {
	// ClaimName is the claim's name, in the WebApp's namespace.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="!format.dns1123Subdomain().validate(self).hasValue()",message="must be a DNS subdomain name: lower case letters, digits, '-' and '.'"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Claim Name",xDescriptors={"urn:alm:descriptor:io.kubernetes:PersistentVolumeClaim"}
	ClaimName string `json:"claimName"`
}

// ImagePullSecret names a Secret of type kubernetes.io/dockerconfigjson in the WebApp's namespace.
type ImagePullSecret struct {
	// Name of the Secret.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="!format.dns1123Subdomain().validate(self).hasValue()",message="must be a DNS subdomain name: lower case letters, digits, '-' and '.'"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Secret",xDescriptors={"urn:alm:descriptor:io.kubernetes:Secret"}
	Name string `json:"name"`
}

// Scheduling says where the pods may run. Without topologySpreadConstraints the pods carry none, so
// kube-scheduler's default spread applies: replicas spread across nodes, and across zones on nodes
// labelled topology.kubernetes.io/zone, as a preference that never leaves a pod pending. The operator
// does not render that default itself, because explicit constraints behave differently: the
// scheduler then ignores, when scoring, every node that lacks one of their keys, so on a cluster
// without zone labels an explicit zone constraint would switch the spread off.
type Scheduling struct {
	// NodeSelector restricts the pods to nodes with these labels.
	// +optional
	// +kubebuilder:validation:MaxProperties=16
	// +kubebuilder:validation:XValidation:rule="self.all(k, !format.qualifiedName().validate(k).hasValue())",message="nodeSelector keys must be qualified names"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Node Selector",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	NodeSelector map[string]LabelValue `json:"nodeSelector,omitempty"`

	// Tolerations let the pods run on nodes with matching taints.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Tolerations",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	Tolerations []Toleration `json:"tolerations,omitempty"`

	// NodeAffinity requires or prefers nodes by their labels.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Node Affinity",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	NodeAffinity *NodeAffinity `json:"nodeAffinity,omitempty"`

	// TopologySpreadConstraints spread the replicas across nodes or zones more strictly than the
	// default spread (see scheduling), for apps that must survive the loss of one. Each spreads this
	// WebApp's pods of one revision across the domains of topologyKey. Once any is set, the
	// scheduler's default spread no longer applies to the pods.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:XValidation:rule="self.all(c, self.filter(d, d.topologyKey == c.topologyKey && (has(d.whenUnsatisfiable) ? d.whenUnsatisfiable : 'ScheduleAnyway') == (has(c.whenUnsatisfiable) ? c.whenUnsatisfiable : 'ScheduleAnyway')).size() == 1)",message="one constraint per topologyKey and whenUnsatisfiable"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Topology Spread Constraints",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	TopologySpreadConstraints []TopologySpreadConstraint `json:"topologySpreadConstraints,omitempty"`

	// PriorityClassName gives the pods that PriorityClass's priority.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="!format.dns1123Subdomain().validate(self).hasValue()",message="must be a DNS subdomain name: lower case letters, digits, '-' and '.'"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Priority Class Name",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	PriorityClassName string `json:"priorityClassName,omitempty"`
}

// Toleration tolerates a taint.
// +kubebuilder:validation:XValidation:rule="!has(self.operator) || self.operator != 'Exists' || !has(self.value) || size(self.value) == 0",message="a toleration with operator Exists has no value"
// +kubebuilder:validation:XValidation:rule="has(self.key) && size(self.key) > 0 || has(self.operator) && self.operator == 'Exists'",message="a toleration without a key needs operator Exists"
// +kubebuilder:validation:XValidation:rule="!has(self.tolerationSeconds) || has(self.effect) && self.effect == 'NoExecute'",message="tolerationSeconds needs effect NoExecute"
type Toleration struct {
	// Key of the taint; empty with operator Exists tolerates every taint.
	// +optional
	// +kubebuilder:validation:MaxLength=317
	// +kubebuilder:validation:XValidation:rule="self == '' || !format.qualifiedName().validate(self).hasValue()",message="a taint key is a qualified name"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Key",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	Key string `json:"key,omitempty"`

	// Operator is Equal (default: key and value must match) or Exists (key only).
	// +optional
	// +kubebuilder:validation:Enum=Equal;Exists
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Operator",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:select:Equal","urn:alm:descriptor:com.tectonic.ui:select:Exists"}
	Operator string `json:"operator,omitempty"`

	// Value of the taint.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Value",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	Value LabelValue `json:"value,omitempty"`

	// Effect to tolerate: NoSchedule, PreferNoSchedule or NoExecute; empty means all.
	// +optional
	// +kubebuilder:validation:Enum="";NoSchedule;PreferNoSchedule;NoExecute
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Effect",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:select:NoSchedule","urn:alm:descriptor:com.tectonic.ui:select:PreferNoSchedule","urn:alm:descriptor:com.tectonic.ui:select:NoExecute"}
	Effect string `json:"effect,omitempty"`

	// TolerationSeconds is how long a pod stays on a node tainted NoExecute before it is evicted.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=31536000
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Toleration Seconds",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	TolerationSeconds *int64 `json:"tolerationSeconds,omitempty"`
}

// NodeAffinity selects nodes by their labels: required (hard) and preferred (soft) terms.
type NodeAffinity struct {
	// Required: the pods run only on nodes that match one of these terms.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=8
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Required Terms"
	Required []NodeSelectorTerm `json:"required,omitempty"`

	// Preferred: the scheduler favours nodes that match these terms, by weight.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=8
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Preferred Terms"
	Preferred []PreferredNodeSelectorTerm `json:"preferred,omitempty"`
}

// NodeSelectorTerm matches a node when every expression matches.
type NodeSelectorTerm struct {
	// MatchExpressions on the node's labels.
	// +required
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=8
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Match Expressions"
	MatchExpressions []NodeSelectorRequirement `json:"matchExpressions"`
}

// PreferredNodeSelectorTerm is a node selector term with a weight.
type PreferredNodeSelectorTerm struct {
	// Weight, 1 to 100.
	// +required
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Weight",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	Weight int32 `json:"weight"`

	// Term to prefer.
	// +required
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Term"
	Term NodeSelectorTerm `json:"term"`
}

// NodeSelectorRequirement is one expression on a node label.
// +kubebuilder:validation:XValidation:rule="self.operator in ['Exists', 'DoesNotExist'] ? !has(self.values) || size(self.values) == 0 : has(self.values) && size(self.values) > 0",message="In, NotIn, Gt and Lt need values; Exists and DoesNotExist take none"
// +kubebuilder:validation:XValidation:rule="!(self.operator in ['Gt', 'Lt']) || size(self.values) == 1 && self.values[0].matches('^-?[0-9]{1,18}$')",message="Gt and Lt take one integer value"
type NodeSelectorRequirement struct {
	// Key of the node label.
	// +required
	// +kubebuilder:validation:MaxLength=317
	// +kubebuilder:validation:XValidation:rule="!format.qualifiedName().validate(self).hasValue()",message="a label key is a qualified name"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Key",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	Key string `json:"key"`

	// Operator is In, NotIn, Exists, DoesNotExist, Gt or Lt.
	// +required
	// +kubebuilder:validation:Enum=In;NotIn;Exists;DoesNotExist;Gt;Lt
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Operator",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:select:In","urn:alm:descriptor:com.tectonic.ui:select:NotIn","urn:alm:descriptor:com.tectonic.ui:select:Exists","urn:alm:descriptor:com.tectonic.ui:select:DoesNotExist","urn:alm:descriptor:com.tectonic.ui:select:Gt","urn:alm:descriptor:com.tectonic.ui:select:Lt"}
	Operator string `json:"operator"`

	// Values for In, NotIn (label values), Gt and Lt (one integer).
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Values"
	Values []LabelValue `json:"values,omitempty"`
}

// TopologySpreadConstraint spreads the WebApp's pods across the domains of a node label.
type TopologySpreadConstraint struct {
	// MaxSkew is the largest difference allowed between the domains' pod counts.
	// +required
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Max Skew",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	MaxSkew int32 `json:"maxSkew"`

	// TopologyKey is the node label whose values are the domains (kubernetes.io/hostname,
	// topology.kubernetes.io/zone...).
	// +required
	// +kubebuilder:validation:MaxLength=317
	// +kubebuilder:validation:XValidation:rule="!format.qualifiedName().validate(self).hasValue()",message="a topology key is a qualified name"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Topology Key",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	TopologyKey string `json:"topologyKey"`

	// WhenUnsatisfiable is ScheduleAnyway (default: a preference) or DoNotSchedule (a rule that
	// may leave pods pending).
	// +optional
	// +kubebuilder:validation:Enum=ScheduleAnyway;DoNotSchedule
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="When Unsatisfiable",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:select:ScheduleAnyway","urn:alm:descriptor:com.tectonic.ui:select:DoNotSchedule"}
	WhenUnsatisfiable string `json:"whenUnsatisfiable,omitempty"`
}

// Container is a sidecar or an init container: its own image and command, sharing the pod's
// volumes and the restricted security defaults.
type Container struct {
	// Name of the container, a DNS label other than app (the main container's).
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +kubebuilder:validation:XValidation:rule="self != 'app'",message="app is the main container's name"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Name",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	Name string `json:"name"`

	// Image of the container.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:XValidation:rule="self.matches('^(([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])([.]([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))*(:[0-9]+)?/|[[][a-fA-F0-9:]+[]](:[0-9]+)?/)?[a-z0-9]+(([._]|__|-+)[a-z0-9]+)*(/[a-z0-9]+(([._]|__|-+)[a-z0-9]+)*)*(:[a-zA-Z0-9_][a-zA-Z0-9_.-]{0,127})?(@[A-Za-z][A-Za-z0-9]*([-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,})?$')",message="image must be an image reference: [registry[:port]/]path[:tag][@digest], the path in lower case"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Image",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	Image string `json:"image"`

	// Command overrides the image's ENTRYPOINT.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=4096
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Command"
	Command []string `json:"command,omitempty"`

	// Args overrides the image's CMD.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=4096
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Args"
	Args []string `json:"args,omitempty"`

	// Env sets environment variables.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=32
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Environment Variables"
	Env []EnvVar `json:"env,omitempty"`

	// Resources are its requests and limits.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Resources",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:resourceRequirements"}
	Resources ResourceRequirements `json:"resources,omitempty"`

	// VolumeMounts mount volumes of pod.volumes (by name) into it.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:XValidation:rule="self.all(m, self.filter(n, n.mountPath == m.mountPath).size() == 1)",message="each volume mount needs a mountPath of its own"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Volume Mounts"
	VolumeMounts []VolumeMount `json:"volumeMounts,omitempty"`
}

// VolumeMount mounts one of pod.volumes into a sidecar or init container.
type VolumeMount struct {
	// Name of the volume in pod.volumes.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Volume",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	Name string `json:"name"`

	// MountPath is where the container sees it: an absolute path.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:Pattern=`^/[^:]*$`
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Mount Path",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	MountPath string `json:"mountPath"`

	// ReadOnly mounts it read-only.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Read Only",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:booleanSwitch"}
	ReadOnly bool `json:"readOnly,omitempty"`
}
