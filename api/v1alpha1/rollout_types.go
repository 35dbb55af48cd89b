package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Rollout says what the operator does when the rollout of a new pod template fails.
type Rollout struct {
	// AutoRollback, when true, makes the operator go back to the last pod template that was Ready
	// (status.revisions) once a rollout fails: the Deployment's progress deadline passed, or the new
	// pods kept failing (crash loop, image pull) for failureSeconds. The WebApp then reports
	// RolledBack (Ready on the old revision, Stalled) until its spec changes; the spec itself is
	// left as it is. The pods of the old revision read the ConfigMaps and Secrets as they are now.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Automatic Rollback",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:booleanSwitch"}
	AutoRollback bool `json:"autoRollback,omitempty"`

	// FailureSeconds is how long the WebApp may stay not Ready while new pods fail to start before
	// the rollout counts as failed (120 by default). The progress deadline ends a rollout as failed
	// in any case.
	// +optional
	// +kubebuilder:default=120
	// +kubebuilder:validation:Minimum=10
	// +kubebuilder:validation:Maximum=3600
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Failure Seconds",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number","urn:alm:descriptor:com.tectonic.ui:advanced"}
	FailureSeconds *int32 `json:"failureSeconds,omitempty"`
}

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
