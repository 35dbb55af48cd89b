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

// MaxRevisions is how many Ready revisions status.revisions keeps.
const MaxRevisions = 5

// Revision is a pod template that was Ready.
type Revision struct {
	// Revision is the Deployment's revision (its deployment.kubernetes.io/revision annotation)
	// that ran the template.
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Deployment Revision",xDescriptors={"urn:alm:descriptor:text"}
	Revision int64 `json:"revision"`
	// Generation is the WebApp's metadata.generation the template was rendered from.
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Generation",xDescriptors={"urn:alm:descriptor:text"}
	Generation int64 `json:"generation"`
	// Image is the image of the app's container.
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Image",xDescriptors={"urn:alm:descriptor:text"}
	Image string `json:"image"`
	// ConfigRevision is the fingerprint of the ConfigMaps and Secrets its pods read (status.configRevision).
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Config Revision",xDescriptors={"urn:alm:descriptor:text"}
	ConfigRevision string `json:"configRevision,omitempty"`
	// ReadyAt is when the WebApp was first Ready on it.
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Ready At",xDescriptors={"urn:alm:descriptor:text"}
	ReadyAt metav1.Time `json:"readyAt"`
}

// RollbackStatus records a rollback: while it is set, the Deployment keeps the template it was
// rolled back to, whatever the spec of the failed generation says.
type RollbackStatus struct {
	// Generation is the WebApp's generation whose rollout failed.
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Failed Generation",xDescriptors={"urn:alm:descriptor:text"}
	Generation int64 `json:"generation"`
	// Image is the image of that generation.
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Failed Image",xDescriptors={"urn:alm:descriptor:text"}
	Image string `json:"image"`
	// Reason and Message say why its rollout counted as failed.
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Reason",xDescriptors={"urn:alm:descriptor:text"}
	Reason string `json:"reason"`
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Message",xDescriptors={"urn:alm:descriptor:text"}
	Message string `json:"message"`
	// To is the Ready revision the Deployment went back to.
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Rolled Back To",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:hidden"}
	To Revision `json:"to"`
	// At is when the operator rolled back.
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Rolled Back At",xDescriptors={"urn:alm:descriptor:text"}
	At metav1.Time `json:"at"`
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
	// generation failed (rollout.onFailure Rollback); a change of the spec clears it.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Rolled Back"
	RolledBack *RollbackStatus `json:"rolledBack,omitempty"`

	// ConfigRevision is the fingerprint of the data of the ConfigMaps and Secrets that the
	// Deployment's pod template references, as that template carries it: once Ready, every pod runs
	// with this configuration. Empty when the pods read none, or with rollout.onConfigChange Ignore.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Config Revision",xDescriptors={"urn:alm:descriptor:text"}
	ConfigRevision string `json:"configRevision,omitempty"`

	// Conditions are Ready, Available, Reconciling and Stalled, in the kstatus style, and Autoscaling
	// while scaling.autoscaler is set.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Conditions",xDescriptors={"urn:alm:descriptor:io.kubernetes.conditions"}
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}
