package status

// Condition reasons. They are part of the API: users and tools match on them, and
// docs/conditions.md lists each with what it means and what to do.
const (
	ReasonReady                    = "Ready"
	ReasonScaledToZero             = "ScaledToZero"
	ReasonCreating                 = "Creating"
	ReasonRolloutInProgress        = "RolloutInProgress"
	ReasonReplicasUnavailable      = "ReplicasUnavailable"
	ReasonProgressDeadlineExceeded = "ProgressDeadlineExceeded"
	ReasonNameConflict             = "NameConflict"
	ReasonInvalidSpec              = "InvalidSpec"
	ReasonReconcileError           = "ReconcileError"
	ReasonPodFailing               = "PodFailing"
	ReasonReplicaFailure           = "ReplicaFailure"
	ReasonApplyDenied              = "ApplyDenied"
	ReasonAddressPending           = "AddressPending"
	ReasonRoutePending             = "RoutePending"
	ReasonRouteAPIMissing          = "RouteAPIMissing"
	ReasonPaused                   = "Paused"
	ReasonRollingBack              = "RollingBack"
	ReasonRolledBack               = "RolledBack"
	ReasonMonitoringAPIMissing     = "MonitoringAPIMissing"
	ReasonConfigMissing            = "ConfigMissing"
	ReasonConfigWatchForbidden     = "ConfigWatchForbidden"
	ReasonScaling                  = "Scaling"
	ReasonImageRunsAsRoot          = "ImageRunsAsRoot"
	ReasonInvalidImage             = "InvalidImage"

	ReasonMinimumReplicasAvailable   = "MinimumReplicasAvailable"
	ReasonMinimumReplicasUnavailable = "MinimumReplicasUnavailable"
	ReasonDeploymentNotFound         = "DeploymentNotFound"

	ReasonAutoscalingActive   = "AutoscalingActive"
	ReasonAutoscalingLimited  = "AutoscalingLimited"
	ReasonAutoscalingInactive = "AutoscalingInactive"
	ReasonAutoscalingPending  = "AutoscalingPending"
)

// ReadyReasons are the reasons of the Ready, Reconciling and Stalled conditions, in the order of
// docs/conditions.md.
var ReadyReasons = []string{
	ReasonReady, ReasonScaling, ReasonScaledToZero, ReasonPaused, ReasonCreating, ReasonRolloutInProgress, ReasonReplicasUnavailable,
	ReasonAddressPending, ReasonRoutePending, ReasonRollingBack, ReasonPodFailing, ReasonReconcileError,
	ReasonProgressDeadlineExceeded, ReasonRolledBack, ReasonImageRunsAsRoot, ReasonInvalidImage, ReasonReplicaFailure,
	ReasonConfigMissing, ReasonConfigWatchForbidden, ReasonNameConflict, ReasonInvalidSpec, ReasonRouteAPIMissing, ReasonMonitoringAPIMissing, ReasonApplyDenied,
}

// AvailableReasons are the reasons of the Available condition.
var AvailableReasons = []string{ReasonMinimumReplicasAvailable, ReasonMinimumReplicasUnavailable, ReasonDeploymentNotFound}

// AutoscalingReasons are the reasons of the Autoscaling condition.
var AutoscalingReasons = []string{ReasonAutoscalingActive, ReasonAutoscalingLimited, ReasonAutoscalingInactive,
	ReasonAutoscalingPending}
