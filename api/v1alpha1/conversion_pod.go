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
	"github.com/webapp-operator/webapp-operator/api/v1beta1"
)

// The pod: podLabels, podAnnotations and the pod-level settings move under pod; lifecycle is split
// between the container (preStop) and the pod (the grace period), and joined back.

func podToBeta(cv *converter, s *WebAppSpec, out *v1beta1.WebAppSpec) {
	p := &out.Pod
	p.Labels = recast[map[string]v1beta1.LabelValue](cv, s.PodLabels)
	p.Annotations = recast[map[string]v1beta1.AnnotationValue](cv, s.PodAnnotations)
	p.ServiceAccountName = s.ServiceAccountName
	p.AutomountServiceAccountToken = defaultedToBeta(cv, s.AutomountServiceAccountToken, false, "automountServiceAccountToken")
	p.ImagePullSecrets = recast[[]v1beta1.ImagePullSecret](cv, s.ImagePullSecrets)
	p.Security = recast[*v1beta1.Security](cv, s.Security)
	p.Scheduling = recast[*v1beta1.Scheduling](cv, s.Scheduling)
	p.Volumes = recast[[]v1beta1.Volume](cv, s.Volumes)
	p.Sidecars = recast[[]v1beta1.Container](cv, s.Sidecars)
	p.InitContainers = recast[[]v1beta1.Container](cv, s.InitContainers)
	if l := s.Lifecycle; l != nil {
		p.TerminationGracePeriodSeconds = copyPtr(l.TerminationGracePeriodSeconds)
		if l.PreStop == nil && l.TerminationGracePeriodSeconds == nil {
			cv.alpha.write("lifecycle")
		}
	}
}

func podFromBeta(cv *converter, s *v1beta1.WebAppSpec, out *WebAppSpec) {
	p := &s.Pod
	out.PodLabels = recast[map[string]LabelValue](cv, p.Labels)
	out.PodAnnotations = recast[map[string]AnnotationValue](cv, p.Annotations)
	out.ServiceAccountName = p.ServiceAccountName
	out.AutomountServiceAccountToken = defaultedFromBeta(cv, p.AutomountServiceAccountToken, false, "automountServiceAccountToken")
	out.ImagePullSecrets = recast[[]ImagePullSecret](cv, p.ImagePullSecrets)
	out.Security = recast[*Security](cv, p.Security)
	out.Scheduling = recast[*Scheduling](cv, p.Scheduling)
	out.Volumes = recast[[]Volume](cv, p.Volumes)
	out.Sidecars = recast[[]Container](cv, p.Sidecars)
	out.InitContainers = recast[[]Container](cv, p.InitContainers)
	var preStop *v1beta1.Handler
	if s.Container.Lifecycle != nil {
		preStop = s.Container.Lifecycle.PreStop
	}
	if preStop != nil || p.TerminationGracePeriodSeconds != nil || cv.alpha.written("lifecycle") {
		out.Lifecycle = &Lifecycle{
			PreStop:                       recast[*Handler](cv, preStop),
			TerminationGracePeriodSeconds: copyPtr(p.TerminationGracePeriodSeconds),
		}
	}
}

// defaultedToBeta is v, or v1beta1's default for a value v1alpha1 leaves unset; a v equal to that
// default is noted as written, so that the way back keeps it.
func defaultedToBeta[T comparable](cv *converter, v *T, dflt T, path string) *T {
	switch {
	case v == nil:
		return &dflt
	case *v == dflt:
		cv.alpha.write(path)
	}
	return copyPtr(v)
}

// defaultedFromBeta is v, or nil when v is v1beta1's default and the app did not write it.
func defaultedFromBeta[T comparable](cv *converter, v *T, dflt T, path string) *T {
	if v != nil && *v == dflt && !cv.alpha.written(path) {
		return nil
	}
	return copyPtr(v)
}
