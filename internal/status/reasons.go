package status

// Condition reasons. They are part of the API: users and tools match on them, and docs list them
// with what to do about each.
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

	ReasonMinimumReplicasAvailable   = "MinimumReplicasAvailable"
	ReasonMinimumReplicasUnavailable = "MinimumReplicasUnavailable"
	ReasonDeploymentNotFound         = "DeploymentNotFound"
)
