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
	Revision int64 `json:"revision"`
	// Generation is the WebApp's metadata.generation the template was rendered from.
	Generation int64 `json:"generation"`
	// Image is the image of the app's container.
	Image string `json:"image"`
	// ConfigRevision is the fingerprint of the ConfigMaps and Secrets its pods read (status.configRevision).
	// +optional
	ConfigRevision string `json:"configRevision,omitempty"`
	// ReadyAt is when the WebApp was first Ready on it.
	ReadyAt metav1.Time `json:"readyAt"`
}

// RollbackStatus records a rollback: while it is set, the Deployment keeps the template it was
// rolled back to, whatever the spec of the failed generation says.
type RollbackStatus struct {
	// Generation is the WebApp's generation whose rollout failed.
	Generation int64 `json:"generation"`
	// Image is the image of that generation.
	Image string `json:"image"`
	// Reason and Message say why its rollout counted as failed.
	Reason  string `json:"reason"`
	Message string `json:"message"`
	// To is the Ready revision the Deployment went back to.
	To Revision `json:"to"`
	// At is when the operator rolled back.
	At metav1.Time `json:"at"`
}

// WebAppStatus is the observed state of a WebApp.
type WebAppStatus struct {
	// ObservedGeneration is the metadata.generation this status was computed for.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Replicas is the number of pods of the Deployment, of any version.
	// +optional
	Replicas int32 `json:"replicas,omitempty"`

	// ReadyReplicas is the number of pods that pass their readiness probe.
	// +optional
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`

	// AvailableReplicas is the number of pods ready for at least the Deployment's minReadySeconds.
	// +optional
	AvailableReplicas int32 `json:"availableReplicas,omitempty"`

	// UpdatedReplicas is the number of pods that run the latest spec.
	// +optional
	UpdatedReplicas int32 `json:"updatedReplicas,omitempty"`

	// Selector is the label selector of the pods, in string form, for the scale subresource.
	// +optional
	Selector string `json:"selector,omitempty"`

	// URL is where the WebApp answers: its external URL once its Ingress has an address
	// (https://shop.example.com/) or its route is accepted (http://shop.example.com/; the route's when
	// both are), and the in-cluster address of its Service otherwise (http://shop.default.svc:80).
	// +optional
	URL string `json:"url,omitempty"`

	// Revisions are the pod templates that were Ready, newest first (at most 5): what an automatic
	// rollback goes back to.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=5
	Revisions []Revision `json:"revisions,omitempty"`

	// RolledBack is set while the Deployment runs an earlier revision because the rollout of this
	// generation failed (rollout.onFailure Rollback); a change of the spec clears it.
	// +optional
	RolledBack *RollbackStatus `json:"rolledBack,omitempty"`

	// ConfigRevision is the fingerprint of the data of the ConfigMaps and Secrets that the
	// Deployment's pod template references, as that template carries it: once Ready, every pod runs
	// with this configuration. Empty when the pods read none, or with rollout.onConfigChange Ignore.
	// +optional
	ConfigRevision string `json:"configRevision,omitempty"`

	// Conditions are Ready, Available, Reconciling and Stalled, in the kstatus style, and Autoscaling
	// while scaling.autoscaler is set.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}
