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

// PodIssue is a pod that cannot become ready on its own.
type PodIssue struct {
	// Reason is ReasonPodFailing, or a reason that only an edit of the WebApp can clear
	// (ReasonImageRunsAsRoot, ReasonInvalidImage): those make the WebApp Stalled.
	Reason string
	// Message names the pod, the container and the kubelet's reason, and the fix where known.
	Message string
}

// Terminal reports whether no retry of the same pod template can cure the issue.
func (i *PodIssue) Terminal() bool { return i.Reason != ReasonPodFailing }

// FindPodIssue returns the first of pods (by name) that cannot become ready on its own: a container
// stuck pulling its image, crash-looping or misconfigured, or a pod the scheduler cannot place. It
// returns nil when there is none. Terminating pods are ignored.
func FindPodIssue(pods []corev1.Pod) *PodIssue {
	sorted := append([]corev1.Pod(nil), pods...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	for i := range sorted {
		if issue := podIssue(&sorted[i]); issue != nil {
			return issue
		}
	}
	return nil
}

func podIssue(p *corev1.Pod) *PodIssue {
	if p.DeletionTimestamp != nil {
		return nil
	}
	// init containers and sidecars first: the app's container waits for them
	for _, cs := range append(append([]corev1.ContainerStatus(nil), p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...) {
		if w := cs.State.Waiting; w != nil && failingWaitReasons[w.Reason] {
			who := p.Name
			if cs.Name != appContainer {
				who += ": container " + cs.Name
			}
			return classify(who, w)
		}
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return &PodIssue{Reason: ReasonPodFailing, Message: fmt.Sprintf("pod %s: %s: %s", p.Name, c.Reason, c.Message)}
		}
	}
	return nil
}

// classify turns a container's waiting state into an issue. Two kubelet refusals can never pass
// without an edit, so they get reasons of their own and say what to change.
func classify(who string, w *corev1.ContainerStateWaiting) *PodIssue {
	kubelet := fmt.Sprintf("pod %s: %s: %s", who, w.Reason, w.Message)
	switch {
	// "container has runAsNonRoot and image will run as root", "... image has non-numeric user
	// (nginx), cannot verify user is non-root"
	case w.Reason == "CreateContainerConfigError" && strings.Contains(w.Message, "runAsNonRoot"):
		return &PodIssue{Reason: ReasonImageRunsAsRoot, Message: "the image runs as root, or as a user name the " +
			"kubelet cannot verify is not root, and WebApp pods run as non-root: use an image whose USER is a " +
			"numeric non-root UID, or set spec.pod.security.runAsUser to a non-root UID the image can run as (" +
			kubelet + ")"}
	case w.Reason == "InvalidImageName":
		return &PodIssue{Reason: ReasonInvalidImage, Message: "the image reference does not parse: correct " +
			"spec.container.image, or the image of the container named here (" + kubelet + ")"}
	}
	return &PodIssue{Reason: ReasonPodFailing, Message: kubelet}
}
