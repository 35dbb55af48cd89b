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

	"sigs.k8s.io/controller-runtime/pkg/conversion"

	"github.com/webapp-operator/webapp-operator/api/v1beta1"
)

// v1alpha1 is a spoke of the conversion: it converts to and from v1beta1, the hub
// (docs/api-design.md, "The mapping"). Both directions are pure functions of the object; what one
// version cannot say travels in an annotation of the other (carrier.go), so that a round trip
// through either version gives back the object it started from.

var _ conversion.Convertible = &WebApp{}

// ConvertTo converts this WebApp to the hub version, v1beta1.
func (src *WebApp) ConvertTo(dstRaw conversion.Hub) error {
	dst := dstRaw.(*v1beta1.WebApp)
	cv := &converter{}
	dst.ObjectMeta = *src.ObjectMeta.DeepCopy()
	cv.beta = takeCarrier[betaCarrier](&dst.ObjectMeta, BetaCarrierAnnotation)
	cv.alpha = &alphaCarrier{}
	dst.Spec = specToBeta(cv, &src.Spec)
	dst.Status = recast[v1beta1.WebAppStatus](cv, src.Status)
	putCarrier(&dst.ObjectMeta, AlphaCarrierAnnotation, cv.alpha)
	return cv.err
}

// ConvertFrom converts a WebApp of the hub version, v1beta1, to this version.
func (dst *WebApp) ConvertFrom(srcRaw conversion.Hub) error {
	src := srcRaw.(*v1beta1.WebApp)
	cv := &converter{}
	dst.ObjectMeta = *src.ObjectMeta.DeepCopy()
	cv.alpha = takeCarrier[alphaCarrier](&dst.ObjectMeta, AlphaCarrierAnnotation)
	cv.beta = &betaCarrier{}
	dst.Spec = specFromBeta(cv, &src.Spec)
	dst.Status = recast[WebAppStatus](cv, src.Status)
	putCarrier(&dst.ObjectMeta, BetaCarrierAnnotation, cv.beta)
	return cv.err
}

// converter is the state of one conversion: the carrier read from the object and the one written
// for the other version, and the first error met.
type converter struct {
	alpha *alphaCarrier
	beta  *betaCarrier
	err   error
}

func specToBeta(cv *converter, s *WebAppSpec) v1beta1.WebAppSpec {
	out := v1beta1.WebAppSpec{Replicas: copyPtr(s.Replicas)}
	containerToBeta(cv, s, &out)
	podToBeta(cv, s, &out)
	exposureToBeta(cv, s, &out)
	rolloutToBeta(cv, s, &out)
	scalingToBeta(cv, s, &out)
	out.Observability.Metrics = recast[*v1beta1.Metrics](cv, s.Metrics)
	return out
}

func specFromBeta(cv *converter, s *v1beta1.WebAppSpec) WebAppSpec {
	out := WebAppSpec{Replicas: copyPtr(s.Replicas)}
	containerFromBeta(cv, s, &out)
	podFromBeta(cv, s, &out)
	exposureFromBeta(cv, s, &out)
	rolloutFromBeta(cv, s, &out)
	scalingFromBeta(cv, s, &out)
	out.Metrics = recast[*Metrics](cv, s.Observability.Metrics)
	return out
}

// recast converts between the two versions' copies of a nested type that has the same shape in
// both (docs/api-design.md lists them), through its JSON form: the copies are separate types so
// that v1alpha1 stays frozen while v1beta1 may grow. The round-trip tests fail if the shapes part.
func recast[T any](cv *converter, in any) T {
	var out T
	b, err := json.Marshal(in)
	if err == nil {
		err = json.Unmarshal(b, &out)
	}
	if err != nil && cv.err == nil {
		cv.err = err
	}
	return out
}

func copyPtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
