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
	"k8s.io/apimachinery/pkg/util/intstr"
)

// The availability parts of a WebApp: the children that keep it serving through voluntary
// disruptions and load. Each is optional, and each is a child object the operator owns, corrects and
// deletes again when the WebApp stops asking for it.

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
	// percentage of the replicas (1 by default). It is never 0: a budget that allows no eviction at
	// all blocks every node drain.
	// +optional
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:MaxLength=4
	// +kubebuilder:validation:XValidation:rule="type(self) == int ? self >= 1 && self <= 1000 : self.matches('^([1-9]|[1-9][0-9]|100)%$')",message="a number from 1 to 1000, or a percentage from 1% to 100%"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Max Unavailable Pods",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text","urn:alm:descriptor:com.tectonic.ui:advanced"}
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty"`
}
