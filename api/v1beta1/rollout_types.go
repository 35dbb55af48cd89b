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

// RolloutFailurePolicy says what the operator does when a rollout fails.
// +kubebuilder:validation:Enum=Report;Rollback
type RolloutFailurePolicy string

const (
	// RolloutFailureReport reports the failure (Stalled) and leaves the Deployment as it is.
	RolloutFailureReport RolloutFailurePolicy = "Report"
	// RolloutFailureRollback goes back to the last pod template that was Ready.
	RolloutFailureRollback RolloutFailurePolicy = "Rollback"
)

// ConfigChangePolicy says what a change of the ConfigMaps and Secrets the pods read does.
// +kubebuilder:validation:Enum=Rollout;Ignore
type ConfigChangePolicy string

const (
	// ConfigChangeRollout rolls the pods, as an image change does.
	ConfigChangeRollout ConfigChangePolicy = "Rollout"
	// ConfigChangeIgnore leaves the pods running, for apps that reload their configuration.
	ConfigChangeIgnore ConfigChangePolicy = "Ignore"
)

// RolloutStrategyType names the member of the strategy union.
// +kubebuilder:validation:Enum=RollingUpdate
type RolloutStrategyType string

// RollingUpdateStrategyType replaces old pods with new ones a few at a time, as a Deployment does.
const RollingUpdateStrategyType RolloutStrategyType = "RollingUpdate"

// Rollout says how a new pod template replaces the old one, and what happens when it fails: the
// Deployment's rollout knobs, under their Deployment names, and the operator's own.
// +kubebuilder:validation:XValidation:rule="!has(self.minReadySeconds) || self.minReadySeconds < (has(self.progressDeadlineSeconds) ? self.progressDeadlineSeconds : 600)",message="minReadySeconds must be less than progressDeadlineSeconds"
type Rollout struct {
	// Strategy is a pointer, unlike the groups, so that a Go client that leaves it out leaves it out
	// of the JSON too, and gets the default with its rollingUpdate member.

	// Strategy is how pods are replaced: a union discriminated by type, of which RollingUpdate is
	// the only member today. Left out, it is a RollingUpdate with the defaults of rollingUpdate.
	// +optional
	// +kubebuilder:default={type: RollingUpdate, rollingUpdate: {}}
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Rollout Strategy",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	Strategy *RolloutStrategy `json:"strategy,omitempty"`

	// Paused stops pod template changes from rolling out, like `kubectl rollout pause`: the
	// Deployment is paused, so a new image, environment or config waits, while replicas, the Service
	// and the other children are still kept in line. Setting it back to false rolls out what waited.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Paused",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:booleanSwitch"}
	Paused bool `json:"paused,omitempty"`

	// MinReadySeconds is how long a new pod must stay ready before it counts as available, so that a
	// rollout does not move on from a pod that crashes a moment after starting.
	// +optional
	// +kubebuilder:default=0
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=3600
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Min Ready Seconds",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number","urn:alm:descriptor:com.tectonic.ui:advanced"}
	MinReadySeconds *int32 `json:"minReadySeconds,omitempty"`

	// ProgressDeadlineSeconds is how long a rollout may make no progress before the WebApp is
	// reported Stalled (reason ProgressDeadlineExceeded).
	// +optional
	// +kubebuilder:default=600
	// +kubebuilder:validation:Minimum=10
	// +kubebuilder:validation:Maximum=86400
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Progress Deadline Seconds",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number","urn:alm:descriptor:com.tectonic.ui:advanced"}
	ProgressDeadlineSeconds *int32 `json:"progressDeadlineSeconds,omitempty"`

	// RevisionHistoryLimit is how many old ReplicaSets the Deployment keeps for `kubectl rollout
	// undo`.
	// +optional
	// +kubebuilder:default=10
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Revision History Limit",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number","urn:alm:descriptor:com.tectonic.ui:advanced"}
	RevisionHistoryLimit *int32 `json:"revisionHistoryLimit,omitempty"`

	// OnFailure is what the operator does once a rollout fails (the progress deadline passed, or the
	// new pods kept failing for failureSeconds): Report it (the WebApp is Stalled), or Rollback to
	// the last pod template that was Ready (status.revisions). After a rollback the WebApp reports
	// RolledBack until its spec changes; the spec itself is left as it is, and the pods of the old
	// revision read the ConfigMaps and Secrets as they are now.
	// +optional
	// +kubebuilder:default=Report
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="On Failure",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:select:Report","urn:alm:descriptor:com.tectonic.ui:select:Rollback"}
	OnFailure RolloutFailurePolicy `json:"onFailure,omitempty"`

	// FailureSeconds is how long the WebApp may stay not Ready while new pods fail to start before
	// the rollout counts as failed. The progress deadline ends a rollout as failed in any case.
	// +optional
	// +kubebuilder:default=120
	// +kubebuilder:validation:Minimum=10
	// +kubebuilder:validation:Maximum=3600
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Failure Seconds",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number","urn:alm:descriptor:com.tectonic.ui:advanced"}
	FailureSeconds *int32 `json:"failureSeconds,omitempty"`

	// OnConfigChange is what a change of the data of a ConfigMap the pods read (env, envFrom,
	// volumes, of every container) does, and of a Secret when the operator runs with Secret rollouts
	// on (off by default): Rollout rolls the pods, as an image change does, since Kubernetes itself
	// does not restart them; Ignore leaves them, for apps that reload their configuration on their
	// own. The operator reports a reference to an object that does not exist (ConfigMissing) either
	// way.
	// +optional
	// +kubebuilder:default=Rollout
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="On Config Change",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:select:Rollout","urn:alm:descriptor:com.tectonic.ui:select:Ignore","urn:alm:descriptor:com.tectonic.ui:advanced"}
	OnConfigChange ConfigChangePolicy `json:"onConfigChange,omitempty"`
}

// RolloutStrategy is a union: type names the member that is set.
// +kubebuilder:validation:XValidation:rule="has(self.rollingUpdate) == (self.type == 'RollingUpdate')",message="rollingUpdate is set exactly when type is RollingUpdate"
type RolloutStrategy struct {
	// Type is the kind of rollout: RollingUpdate.
	// +optional
	// +kubebuilder:default=RollingUpdate
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Strategy Type",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:select:RollingUpdate","urn:alm:descriptor:com.tectonic.ui:advanced"}
	Type RolloutStrategyType `json:"type,omitempty"`

	// RollingUpdate tunes the rolling update: how many pods above or below replicas it may use.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Rolling Update",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	RollingUpdate *RollingUpdate `json:"rollingUpdate,omitempty"`
}

// RollingUpdate tunes the Deployment's rolling update. By default a rollout starts new pods before
// it stops old ones (maxUnavailable 0), so fewer pods than replicas never serve.
// +kubebuilder:validation:XValidation:rule="!has(self.maxSurge) || !has(self.maxUnavailable) || !(string(self.maxSurge) in ['0', '0%'] && string(self.maxUnavailable) in ['0', '0%'])",message="maxSurge and maxUnavailable cannot both be 0: the rollout could not make progress (with maxSurge 0, set maxUnavailable)"
type RollingUpdate struct {
	// MaxSurge is how many pods above replicas a rollout may add: a number or a percentage.
	// +optional
	// +kubebuilder:default="25%"
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:MaxLength=4
	// +kubebuilder:validation:XValidation:rule="type(self) == int ? self >= 0 && self <= 1000 : self.matches('^([0-9]|[1-9][0-9]|100)%$')",message="a number from 0 to 1000, or a percentage from 0% to 100%"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Max Surge",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text","urn:alm:descriptor:com.tectonic.ui:advanced"}
	MaxSurge *intstr.IntOrString `json:"maxSurge,omitempty"`

	// MaxUnavailable is how many pods a rollout may take away below replicas: a number or a
	// percentage. With maxSurge 0 it must be above 0.
	// +optional
	// +kubebuilder:default=0
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:MaxLength=4
	// +kubebuilder:validation:XValidation:rule="type(self) == int ? self >= 0 && self <= 1000 : self.matches('^([0-9]|[1-9][0-9]|100)%$')",message="a number from 0 to 1000, or a percentage from 0% to 100%"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Max Unavailable",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text","urn:alm:descriptor:com.tectonic.ui:advanced"}
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty"`
}
