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

// Condition types of a WebApp, the same in every version. They follow the kstatus conventions
// (sigs.k8s.io/cli-utils/pkg/kstatus), so GitOps tools and `kubectl wait` understand them.
const (
	// ConditionReady is True when every desired replica runs the latest spec and is available.
	ConditionReady = "Ready"
	// ConditionAvailable mirrors the Deployment's minimum availability.
	ConditionAvailable = "Available"
	// ConditionReconciling is True while the operator is converging the children towards the spec.
	ConditionReconciling = "Reconciling"
	// ConditionStalled is True when progress is impossible without a change by the user.
	ConditionStalled = "Stalled"
	// ConditionAutoscaling, present only while scaling.autoscaler is set, says whether the
	// HorizontalPodAutoscaler can scale the WebApp: False when it cannot (no metrics, no scale
	// subresource), Unknown until it has reported. It never holds Ready back, since the app serves.
	ConditionAutoscaling = "Autoscaling"
)

// ConfigRevisionAnnotation is the pod template annotation that holds the fingerprint of the data of
// the ConfigMaps and Secrets the pods read (WebAppStatus.ConfigRevision): a change of that data
// changes the pod template, and so rolls the Deployment.
const ConfigRevisionAnnotation = "webapp-operator.io/config-revision"
