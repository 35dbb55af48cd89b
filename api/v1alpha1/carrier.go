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
	"encoding/json"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The carrier annotations hold what one version says and the other cannot, so that neither round
// trip loses it. Each is a small JSON object, written by the conversion into the other version and
// read back (and removed) on the way home; a version's carrier is therefore visible only in the
// other version. A carrier that does not parse is treated as absent: a CRD's rules cannot refuse an
// annotation, so one may have been written by hand.
const (
	// AlphaCarrierAnnotation, on a v1beta1 object, holds what its v1alpha1 form says that v1beta1
	// cannot tell apart from a default.
	AlphaCarrierAnnotation = "conversion.webapp-operator.io/v1alpha1"
	// BetaCarrierAnnotation, on a v1alpha1 object, holds what its v1beta1 form says that v1alpha1
	// has no field for.
	BetaCarrierAnnotation = "conversion.webapp-operator.io/v1beta1"
	// UndecodableAnnotation, on a WebApp that does not decode into its version's Go type (a looser
	// CRD of an earlier release admitted it), holds its spec as written and that version, while it
	// is read in another version, whose spec is then empty. The conversion webhook writes it and
	// takes it back (internal/webhook); the operator reports such a WebApp Stalled.
	UndecodableAnnotation = "conversion.webapp-operator.io/undecodable"
)

// alphaCarrier is what v1alpha1 says and v1beta1 cannot.
type alphaCarrier struct {
	// HealthCheck: the app wrote the healthCheck shorthand, not the probes it expands to.
	HealthCheck bool `json:"healthCheck,omitempty"`
	// Written are the v1alpha1 paths the app wrote with content v1beta1 cannot tell from its
	// defaults: an optional object with default content (rollout: {}), or a value equal to a default
	// only v1beta1 declares (progressDeadlineSeconds: 600). Without them, the conversion back drops
	// such values, so that a v1alpha1 reader sees no value appear that nobody wrote.
	Written []string `json:"written,omitempty"`
}

func (c *alphaCarrier) empty() bool { return !c.HealthCheck && len(c.Written) == 0 }

// write records that the app wrote path.
func (c *alphaCarrier) write(path string) { c.Written = append(c.Written, path) }

// written says whether the app wrote path.
func (c *alphaCarrier) written(path string) bool { return slices.Contains(c.Written, path) }

// betaCarrier is what v1beta1 says and v1alpha1 has no field for.
type betaCarrier struct {
	// NodePorts are the nodePorts of exposure.service.ports entries other than http, by name.
	NodePorts map[string]int32 `json:"nodePorts,omitempty"`
	// ServicePorts is the order of exposure.service.ports, by name, when it is not http first and
	// then the order of container.ports.
	ServicePorts []string `json:"servicePorts,omitempty"`
}

func (c *betaCarrier) empty() bool { return len(c.NodePorts) == 0 && len(c.ServicePorts) == 0 }

type carrier interface {
	alphaCarrier | betaCarrier
}

// takeCarrier removes the annotation key from meta and returns what it holds: an empty carrier
// when it is absent or does not parse.
func takeCarrier[T carrier](meta *metav1.ObjectMeta, key string) *T {
	c := new(T)
	raw, ok := meta.Annotations[key]
	if !ok {
		return c
	}
	delete(meta.Annotations, key)
	if len(meta.Annotations) == 0 {
		meta.Annotations = nil
	}
	if err := json.Unmarshal([]byte(raw), c); err != nil {
		return new(T)
	}
	return c
}

// putCarrier writes c under key, or removes key when c has nothing to say.
func putCarrier[T interface{ empty() bool }](meta *metav1.ObjectMeta, key string, c T) {
	delete(meta.Annotations, key)
	if len(meta.Annotations) == 0 {
		meta.Annotations = nil
	}
	if c.empty() {
		return
	}
	b, err := json.Marshal(c)
	if err != nil {
		return
	}
	if meta.Annotations == nil {
		meta.Annotations = map[string]string{}
	}
	meta.Annotations[key] = string(b)
}
