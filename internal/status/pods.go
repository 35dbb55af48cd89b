package status

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// failingWaitReasons are container states that do not fix themselves: retrying the same spec keeps
// failing until someone changes the image, the config or the code.
var failingWaitReasons = map[string]bool{
	"ErrImagePull": true, "ImagePullBackOff": true, "ErrImageNeverPull": true, "InvalidImageName": true,
	"CrashLoopBackOff": true, "CreateContainerConfigError": true, "CreateContainerError": true,
	"RunContainerError": true,
}

// appContainer is the name of the app's container (resources.ContainerName); messages name the
// others, the init containers and sidecars, by their own names.
const appContainer = "app"

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
	// init containers and sidecars first: the app's container waits for them
	for _, cs := range append(append([]corev1.ContainerStatus(nil), p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...) {
		if w := cs.State.Waiting; w != nil && failingWaitReasons[w.Reason] {
			who := p.Name
			if cs.Name != appContainer {
				who += ": container " + cs.Name
			}
			return fmt.Sprintf("pod %s: %s: %s%s", who, w.Reason, w.Message, hint(w.Message))
		}
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return fmt.Sprintf("pod %s: %s: %s", p.Name, c.Reason, c.Message)
		}
	}
	return ""
}

// hint says what to change for the failures whose kubelet message names a cause but not a fix.
func hint(message string) string {
	// "container has runAsNonRoot and image will run as root", "... image has non-numeric user
	// (nginx), cannot verify user is non-root"
	if strings.Contains(message, "runAsNonRoot") {
		return " (the image runs as root, or as a user name rather than a UID: WebApp pods run as non-root; " +
			"use an image with a numeric non-root USER, or set spec.security.runAsUser to a UID the image can run as)"
	}
	return ""
}
