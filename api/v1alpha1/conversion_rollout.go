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

// Rollout: the seven top-level fields that govern a rollout move under rollout. strategy is wrapped
// in the union (type RollingUpdate); the booleans autoRollback and rolloutOnConfigChange become the
// enums onFailure and onConfigChange. The defaults v1beta1 declares and v1alpha1 leaves to the
// Deployment are filled in one way and dropped the other unless the app wrote them.

// The rollout values v1beta1 declares as defaults: those in effect when v1alpha1 leaves them unset.
const (
	defaultMinReadySeconds         = 0
	defaultProgressDeadlineSeconds = 600
	defaultRevisionHistoryLimit    = 10
	defaultFailureSeconds          = 120
)

// defaultMaxSurge is the Deployment's, which the operator leaves in place.
var defaultMaxSurge = intstr.FromString("25%")

// defaultMaxUnavailable is what the operator renders for an unset maxUnavailable: 0, so that a
// rollout starts new pods before it stops old ones, unless maxSurge is 0; then the Deployment's 25%.
func defaultMaxUnavailable(maxSurge *intstr.IntOrString) intstr.IntOrString {
	if maxSurge != nil {
		if surge, err := intstr.GetScaledValueFromIntOrPercent(maxSurge, 100, true); err == nil && surge == 0 {
			return intstr.FromString("25%")
		}
	}
	return intstr.FromInt32(0)
}

func rolloutToBeta(cv *converter, s *WebAppSpec, out *v1beta1.WebAppSpec) {
	r := &out.Rollout
	r.Strategy = strategyToBeta(cv, s.Strategy)
	r.Paused = s.Paused
	r.MinReadySeconds = defaultedToBeta(cv, s.MinReadySeconds, defaultMinReadySeconds, "minReadySeconds")
	r.ProgressDeadlineSeconds = defaultedToBeta(cv, s.ProgressDeadlineSeconds, defaultProgressDeadlineSeconds, "progressDeadlineSeconds")
	r.RevisionHistoryLimit = defaultedToBeta(cv, s.RevisionHistoryLimit, defaultRevisionHistoryLimit, "revisionHistoryLimit")
	r.OnFailure = v1beta1.RolloutFailureReport
	r.FailureSeconds = ptrTo[int32](defaultFailureSeconds)
	if p := s.Rollout; p != nil {
		if p.AutoRollback {
			r.OnFailure = v1beta1.RolloutFailureRollback
		}
		if p.FailureSeconds != nil {
			r.FailureSeconds = copyPtr(p.FailureSeconds)
		}
		if !p.AutoRollback && *r.FailureSeconds == defaultFailureSeconds {
			cv.alpha.write("rollout")
		}
	}
	r.OnConfigChange = v1beta1.ConfigChangeRollout
	if s.RolloutOnConfigChange != nil && !*s.RolloutOnConfigChange {
		r.OnConfigChange = v1beta1.ConfigChangeIgnore
	}
}

func rolloutFromBeta(cv *converter, s *v1beta1.WebAppSpec, out *WebAppSpec) {
	r := &s.Rollout
	out.Strategy = strategyFromBeta(cv, r.Strategy)
	out.Paused = r.Paused
	out.MinReadySeconds = defaultedFromBeta(cv, r.MinReadySeconds, defaultMinReadySeconds, "minReadySeconds")
	out.ProgressDeadlineSeconds = defaultedFromBeta(cv, r.ProgressDeadlineSeconds, defaultProgressDeadlineSeconds, "progressDeadlineSeconds")
	out.RevisionHistoryLimit = defaultedFromBeta(cv, r.RevisionHistoryLimit, defaultRevisionHistoryLimit, "revisionHistoryLimit")
	rollback := r.OnFailure == v1beta1.RolloutFailureRollback
	failure := r.FailureSeconds
	if rollback || failure != nil && *failure != defaultFailureSeconds || cv.alpha.written("rollout") {
		if failure == nil {
			failure = ptrTo[int32](defaultFailureSeconds)
		}
		out.Rollout = &Rollout{AutoRollback: rollback, FailureSeconds: copyPtr(failure)}
	}
	out.RolloutOnConfigChange = ptrTo(r.OnConfigChange != v1beta1.ConfigChangeIgnore)
}

func strategyToBeta(cv *converter, s *RolloutStrategy) *v1beta1.RolloutStrategy {
	ru := &v1beta1.RollingUpdate{MaxSurge: ptrTo(defaultMaxSurge)}
	if s != nil {
		if s.MaxSurge != nil {
			ru.MaxSurge = copyPtr(s.MaxSurge)
			if *s.MaxSurge == defaultMaxSurge {
				cv.alpha.write("strategy.maxSurge")
			}
		}
		if s.MaxUnavailable != nil && *s.MaxUnavailable == defaultMaxUnavailable(ru.MaxSurge) {
			cv.alpha.write("strategy.maxUnavailable")
		}
		if s.MaxSurge == nil && s.MaxUnavailable == nil {
			cv.alpha.write("strategy")
		}
	}
	ru.MaxUnavailable = ptrTo(defaultMaxUnavailable(ru.MaxSurge))
	if s != nil && s.MaxUnavailable != nil {
		ru.MaxUnavailable = copyPtr(s.MaxUnavailable)
	}
	return &v1beta1.RolloutStrategy{Type: v1beta1.RollingUpdateStrategyType, RollingUpdate: ru}
}

func strategyFromBeta(cv *converter, s *v1beta1.RolloutStrategy) *RolloutStrategy {
	var ru *v1beta1.RollingUpdate
	if s != nil {
		ru = s.RollingUpdate
	}
	if ru == nil {
		ru = &v1beta1.RollingUpdate{}
	}
	out := &RolloutStrategy{MaxSurge: copyPtr(ru.MaxSurge), MaxUnavailable: copyPtr(ru.MaxUnavailable)}
	if ru.MaxUnavailable != nil && *ru.MaxUnavailable == defaultMaxUnavailable(ru.MaxSurge) && !cv.alpha.written("strategy.maxUnavailable") {
		out.MaxUnavailable = nil
	}
	if ru.MaxSurge != nil && *ru.MaxSurge == defaultMaxSurge && !cv.alpha.written("strategy.maxSurge") {
		out.MaxSurge = nil
	}
	if out.MaxSurge == nil && out.MaxUnavailable == nil && !cv.alpha.written("strategy") {
		return nil
	}
	return out
}

func ptrTo[T any](v T) *T { return &v }
