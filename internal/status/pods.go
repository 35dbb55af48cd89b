package status

import (
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
)

// failingWaitReasons are container states that do not fix themselves: retrying the same spec keeps
// failing until someone changes the image, the config or the code.
var failingWaitReasons = map[string]bool{
	"ErrImagePull": true, "ImagePullBackOff": true, "ErrImageNeverPull": true, "InvalidImageName": true,
	"CrashLoopBackOff": true, "CreateContainerConfigError": true, "CreateContainerError": true,
	"RunContainerError": true,
}

// PodIssue describes the first of pods (by name) that cannot become ready on its own: a container
// stuck pulling its image, crash-looping or misconfigured, or a pod the scheduler cannot place.
// It returns "" when there is none. Terminating pods are ignored.
func PodIssue(pods []corev1.Pod) string {
	sorted := append([]corev1.Pod(nil), pods...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	for i := range sorted {
		if issue := podIssue(&sorted[i]); issue != "" {
			return issue
		}
	}
	return ""
}

func podIssue(p *corev1.Pod) string {
	if p.DeletionTimestamp != nil {
		return ""
	}
	for _, cs := range p.Status.ContainerStatuses {
		if w := cs.State.Waiting; w != nil && failingWaitReasons[w.Reason] {
			return fmt.Sprintf("pod %s: %s: %s", p.Name, w.Reason, w.Message)
		}
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return fmt.Sprintf("pod %s: %s: %s", p.Name, c.Reason, c.Message)
		}
	}
	return ""
}
