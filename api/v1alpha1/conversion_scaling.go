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

	"github.com/webapp-operator/webapp-operator/api/v1beta1"
)

// Scaling: autoscaling becomes scaling.autoscaler, its two utilization targets one targets struct;
// disruptionBudget moves under scaling. v1beta1 declares the defaults v1alpha1 gives in prose (a
// CPU target of 80, a budget of maxUnavailable 1, present unless disabled); they are dropped on the
// way back unless the app wrote them.

const defaultCPUUtilization = 80

var defaultBudgetMaxUnavailable = intstr.FromInt32(1)

func scalingToBeta(cv *converter, s *WebAppSpec, out *v1beta1.WebAppSpec) {
	if a := s.Autoscaling; a != nil {
		out.Scaling.Autoscaler = &v1beta1.Autoscaler{
			MinReplicas: copyPtr(a.MinReplicas),
			MaxReplicas: a.MaxReplicas,
			Targets:     targetsToBeta(cv, a),
			Behavior:    recast[*v1beta1.ScalingBehavior](cv, a.Behavior),
		}
	}
	b := &out.Scaling.DisruptionBudget
	b.Enabled = ptrTo(true)
	b.MaxUnavailable = ptrTo(defaultBudgetMaxUnavailable)
	if d := s.DisruptionBudget; d != nil {
		if d.Enabled != nil {
			b.Enabled = copyPtr(d.Enabled)
		}
		if d.MaxUnavailable != nil {
			b.MaxUnavailable = copyPtr(d.MaxUnavailable)
			if *d.MaxUnavailable == defaultBudgetMaxUnavailable {
				cv.alpha.write("disruptionBudget.maxUnavailable")
			}
		}
		if *b.Enabled && d.MaxUnavailable == nil {
			cv.alpha.write("disruptionBudget")
		}
	}
}

func scalingFromBeta(cv *converter, s *v1beta1.WebAppSpec, out *WebAppSpec) {
	if a := s.Scaling.Autoscaler; a != nil {
		out.Autoscaling = &Autoscaling{
			MinReplicas: copyPtr(a.MinReplicas),
			MaxReplicas: a.MaxReplicas,
			Behavior:    recast[*ScalingBehavior](cv, a.Behavior),
		}
		targetsFromBeta(cv, a.Targets, out.Autoscaling)
	}
	b := &s.Scaling.DisruptionBudget
	maxUnavailable := copyPtr(b.MaxUnavailable)
	if maxUnavailable != nil && *maxUnavailable == defaultBudgetMaxUnavailable && !cv.alpha.written("disruptionBudget.maxUnavailable") {
		maxUnavailable = nil
	}
	disabled := b.Enabled != nil && !*b.Enabled
	if disabled || maxUnavailable != nil || cv.alpha.written("disruptionBudget") {
		enabled := b.Enabled
		if enabled == nil {
			enabled = ptrTo(true)
		}
		out.DisruptionBudget = &DisruptionBudget{Enabled: copyPtr(enabled), MaxUnavailable: maxUnavailable}
	}
}

func targetsToBeta(cv *converter, a *Autoscaling) *v1beta1.AutoscalerTargets {
	cpu, memory := a.TargetCPUUtilizationPercentage, a.TargetMemoryUtilizationPercentage
	switch {
	case cpu == nil && memory == nil:
		return &v1beta1.AutoscalerTargets{CPUUtilization: ptrTo[int32](defaultCPUUtilization)}
	case memory == nil && *cpu == defaultCPUUtilization:
		cv.alpha.write("autoscaling.targetCPUUtilizationPercentage")
	}
	return &v1beta1.AutoscalerTargets{CPUUtilization: copyPtr(cpu), MemoryUtilization: copyPtr(memory)}
}

func targetsFromBeta(cv *converter, t *v1beta1.AutoscalerTargets, out *Autoscaling) {
	if t == nil {
		return
	}
	if t.MemoryUtilization == nil && t.CPUUtilization != nil && *t.CPUUtilization == defaultCPUUtilization &&
		!cv.alpha.written("autoscaling.targetCPUUtilizationPercentage") {
		return
	}
	out.TargetCPUUtilizationPercentage = copyPtr(t.CPUUtilization)
	out.TargetMemoryUtilizationPercentage = copyPtr(t.MemoryUtilization)
}
