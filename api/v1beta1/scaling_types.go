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
	"k8s.io/apimachinery/pkg/util/intstr"
)

// The availability parts of a WebApp: the children that keep it serving through voluntary
// disruptions and load. Each is optional, and each is a child object the operator owns, corrects and
// deletes again when the WebApp stops asking for it.

// Scaling is how many pods run, and how many may go at once: the autoscaler and the disruption
// budget. The replicas themselves are spec.replicas, where a Deployment has them.
type Scaling struct {
	// Autoscaler has a HorizontalPodAutoscaler set the replicas from the pods' CPU or memory use;
	// spec.replicas is then not used.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Autoscaler"
	Autoscaler *Autoscaler `json:"autoscaler,omitempty"`

	// DisruptionBudget tunes the PodDisruptionBudget that a WebApp with more than one replica gets,
	// so that node drains keep it serving; set enabled: false to do without.
	// +optional
	// +kubebuilder:default={}
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Disruption Budget",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	DisruptionBudget DisruptionBudget `json:"disruptionBudget,omitempty"`
}

// DisruptionBudget configures the PodDisruptionBudget the operator creates for a WebApp that runs
// more than one replica, so that a node drain or a cluster upgrade evicts its pods one at a time
// instead of all at once. A WebApp with one replica (or none) gets no budget: a budget cannot keep a
// single pod serving, only block the drain.
type DisruptionBudget struct {
	// Enabled creates the budget (the default). Set it to false to do without one; the operator then
	// deletes the budget it created.
	// +optional
	// +kubebuilder:default=true
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Disruption Budget Enabled",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:booleanSwitch","urn:alm:descriptor:com.tectonic.ui:advanced"}
	Enabled *bool `json:"enabled,omitempty"`

	// MaxUnavailable is how many pods a voluntary disruption may take away at once: a number or a
	// percentage of the replicas. It is never 0: a budget that allows no eviction at all blocks
	// every node drain.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:MaxLength=4
	// +kubebuilder:validation:XValidation:rule="type(self) == int ? self >= 1 && self <= 1000 : self.matches('^([1-9]|[1-9][0-9]|100)%$')",message="a number from 1 to 1000, or a percentage from 1% to 100%"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Max Unavailable Pods",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text","urn:alm:descriptor:com.tectonic.ui:advanced"}
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty"`
}

// Autoscaler lets a HorizontalPodAutoscaler (autoscaling/v2) set the number of replicas from the
// pods' CPU or memory use, between minReplicas and maxReplicas.
//
// The autoscaler scales the WebApp's Deployment, not the WebApp: while autoscaling is on, the
// operator stops setting the Deployment's replicas (and spec.replicas is not used), so that the
// autoscaler and the operator never undo each other's work, and a GitOps tool that applies the
// WebApp never undoes the autoscaler's either. Utilization targets are percentages of the pods'
// requests: give the containers CPU (or memory) requests in container.resources.
// +kubebuilder:validation:XValidation:rule="!has(self.minReplicas) || self.minReplicas <= self.maxReplicas",message="autoscaler.minReplicas must not exceed maxReplicas"
type Autoscaler struct {
	// MinReplicas is the fewest replicas the autoscaler keeps.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Min Replicas",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:podCount"}
	MinReplicas *int32 `json:"minReplicas,omitempty"`

	// MaxReplicas is the most replicas the autoscaler may run.
	// +required
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Max Replicas",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:podCount"}
	MaxReplicas int32 `json:"maxReplicas"`

	// Targets are the average uses the autoscaler aims at, each at most once.
	// +optional
	// +kubebuilder:default={cpuUtilization: 80}
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Targets"
	Targets *AutoscalerTargets `json:"targets,omitempty"`

	// Behavior tunes how fast the autoscaler scales up and down (the autoscaler's defaults
	// otherwise: up at once, down after five minutes of lower use), for apps whose load swings.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Scaling Behavior",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	Behavior *ScalingBehavior `json:"behavior,omitempty"`
}

// AutoscalerTargets are the utilization targets of the autoscaler: percentages of the pods'
// requests. A struct rather than a list, since each target appears at most once.
// +kubebuilder:validation:MinProperties=1
type AutoscalerTargets struct {
	// CPUUtilization is the average CPU use the autoscaler aims at, as a percentage of the pods' CPU
	// requests.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Target CPU Utilization (%)",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	CPUUtilization *int32 `json:"cpuUtilization,omitempty"`

	// MemoryUtilization is the average memory use the autoscaler aims at, as a percentage of the
	// pods' memory requests.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Target Memory Utilization (%)",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	MemoryUtilization *int32 `json:"memoryUtilization,omitempty"`
}

// ScalingBehavior is the autoscaler's behavior in each direction.
type ScalingBehavior struct {
	// ScaleUp tunes scaling up.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Scale Up",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	ScaleUp *ScalingRules `json:"scaleUp,omitempty"`

	// ScaleDown tunes scaling down.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Scale Down",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	ScaleDown *ScalingRules `json:"scaleDown,omitempty"`
}

// ScalingRules are the rules of one direction, as autoscaling/v2 has them.
type ScalingRules struct {
	// StabilizationWindowSeconds is how long past recommendations are considered before scaling,
	// so that a brief spike or dip does not make the replicas flap: 0 to 3600.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=3600
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Stabilization Window Seconds",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number","urn:alm:descriptor:com.tectonic.ui:advanced"}
	StabilizationWindowSeconds *int32 `json:"stabilizationWindowSeconds,omitempty"`

	// SelectPolicy chooses among the policies: Max (the largest change, the default), Min, or
	// Disabled (no scaling in this direction at all).
	// +optional
	// +kubebuilder:validation:Enum=Max;Min;Disabled
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Select Policy",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:select:Max","urn:alm:descriptor:com.tectonic.ui:select:Min","urn:alm:descriptor:com.tectonic.ui:select:Disabled","urn:alm:descriptor:com.tectonic.ui:advanced"}
	SelectPolicy string `json:"selectPolicy,omitempty"`

	// Policies limit how much may change within a period: so many pods, or such a percentage of
	// the current replicas.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=4
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Policies",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	Policies []ScalingPolicy `json:"policies,omitempty"`
}

// ScalingPolicy allows a change of value pods (or percent) within periodSeconds.
type ScalingPolicy struct {
	// Type is Pods or Percent.
	// +required
	// +kubebuilder:validation:Enum=Pods;Percent
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Type",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:select:Pods","urn:alm:descriptor:com.tectonic.ui:select:Percent"}
	Type string `json:"type"`

	// Value is the number of pods, or the percentage, that may change: more than 0.
	// +required
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Value",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	Value int32 `json:"value"`

	// PeriodSeconds is the window the value applies to: 1 to 1800.
	// +required
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1800
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Period Seconds",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	PeriodSeconds int32 `json:"periodSeconds"`
}
