package resources

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/webapp-operator/webapp-operator/api/v1beta1"
)

// The pod template of the Deployment: what the pods run (pod.go, container.go, probes.go), secure
// by default. Every pod meets the restricted Pod Security Standard unless the WebApp asks for root
// (spec.pod.security.runAsUser: 0); no field of the WebApp can make a pod privileged, share a host
// namespace, mount a host path or add a capability.

// podTemplate renders app's pod template.
func podTemplate(app *v1beta1.WebApp) (*corev1ac.PodTemplateSpecApplyConfiguration, error) {
	spec, err := podSpec(app)
	if err != nil {
		return nil, err
	}
	podLabels := map[string]string{}
	for k, v := range app.Spec.Pod.Labels {
		podLabels[k] = string(v)
	}
	// Reserved keys win; admission already refuses them. managed-by is not in the selector (which
	// never changes) but on every pod: the operator caches only pods that carry it.
	for k, v := range PodLabels(app) {
		podLabels[k] = v
	}
	template := corev1ac.PodTemplateSpec().WithLabels(podLabels).WithSpec(spec)
	// kubectl logs, exec and attach pick the app's container without -c, sidecars or not, unless
	// the WebApp's own pod annotations name another.
	annotations := map[string]string{DefaultContainerAnnotation: ContainerName}
	for k, v := range app.Spec.Pod.Annotations {
		annotations[k] = string(v)
	}
	// The operator's own (WithConfigRevision); admission already refuses it.
	delete(annotations, v1beta1.ConfigRevisionAnnotation)
	template.WithAnnotations(annotations)
	return template, nil
}

// DefaultContainerAnnotation is kubectl's: the container its commands pick when none is named.
const DefaultContainerAnnotation = "kubectl.kubernetes.io/default-container"

func podSpec(app *v1beta1.WebApp) (*corev1ac.PodSpecApplyConfiguration, error) {
	main, err := mainContainer(app)
	if err != nil {
		return nil, err
	}
	pod := &app.Spec.Pod
	// before WithContainers, which copies main
	grace := stopping(main, app.Spec.Container.Lifecycle, pod.TerminationGracePeriodSeconds)
	spec := corev1ac.PodSpec().
		WithContainers(main).
		WithSecurityContext(podSecurityContext(pod.Security)).
		// A token the app does not use is only a risk; automountServiceAccountToken asks for it.
		WithAutomountServiceAccountToken(ptr.Deref(pod.AutomountServiceAccountToken, false))
	// Init containers run first, in order; the sidecars after them, as native sidecars (restartPolicy
	// Always): started before the app, stopped after it.
	for i := range pod.InitContainers {
		c, err := sideContainer(app, &pod.InitContainers[i], fmt.Sprintf("spec.pod.initContainers[%d]", i))
		if err != nil {
			return nil, err
		}
		spec.WithInitContainers(c)
	}
	for i := range pod.Sidecars {
		c, err := sideContainer(app, &pod.Sidecars[i], fmt.Sprintf("spec.pod.sidecars[%d]", i))
		if err != nil {
			return nil, err
		}
		spec.WithInitContainers(c.WithRestartPolicy(corev1.ContainerRestartPolicyAlways))
	}
	for i := range pod.Volumes {
		v, err := volume(&pod.Volumes[i])
		if err != nil {
			return nil, fmt.Errorf("spec.pod.volumes[%d]: %w", i, err)
		}
		spec.WithVolumes(v)
	}
	if pod.ServiceAccountName != "" {
		spec.WithServiceAccountName(pod.ServiceAccountName)
	}
	for _, s := range pod.ImagePullSecrets {
		spec.WithImagePullSecrets(corev1ac.LocalObjectReference().WithName(s.Name))
	}
	if grace != nil {
		spec.WithTerminationGracePeriodSeconds(*grace)
	}
	schedule(spec, app)
	return spec, nil
}

const (
	// PreStopPause is how long the app container keeps serving, by default, once its pod is stopping
	// and before it gets SIGTERM: kube-proxy and the gateway still send it requests for a moment
	// (docs/zero-downtime.md measures how long).
	PreStopPause = 5
	// drainSeconds is the app's time to drain after SIGTERM: Kubernetes' default grace period.
	drainSeconds = 30
)

// stopping renders how main stops, and returns the pod's grace period: l's preStop action and the
// grace period, else a PreStopPause sleep (no longer than the grace period, none for 0) and a grace
// period that adds the app's drain to the pause. The sleep action needs no command in the image; it
// is on by default from Kubernetes 1.30, older than any API server the bundle installs on
// (minKubeVersion).
func stopping(main *corev1ac.ContainerApplyConfiguration, l *v1beta1.Lifecycle, grace *int64) *int64 {
	var preStop *v1beta1.Handler
	if l != nil {
		preStop = l.PreStop
	}
	if preStop == nil {
		pause := min(PreStopPause, ptr.Deref(grace, PreStopPause))
		if pause > 0 {
			preStop = &v1beta1.Handler{SleepSeconds: &pause}
		}
	}
	if preStop != nil {
		main.WithLifecycle(corev1ac.Lifecycle().WithPreStop(handler(preStop)))
	}
	if grace == nil && preStop.SleepSeconds != nil {
		return ptr.To(*preStop.SleepSeconds + drainSeconds)
	}
	return grace
}

// podSecurityContext runs the pods as non-root with the runtime's default seccomp profile. The
// image's USER decides the UID unless the WebApp names one: no UID is pinned by default, because
// OpenShift assigns each namespace its own range and refuses pods outside it.
func podSecurityContext(s *v1beta1.Security) *corev1ac.PodSecurityContextApplyConfiguration {
	sc := corev1ac.PodSecurityContext().
		WithSeccompProfile(corev1ac.SeccompProfile().WithType(corev1.SeccompProfileTypeRuntimeDefault))
	if s == nil {
		return sc.WithRunAsNonRoot(true)
	}
	// runAsNonRoot with runAsUser 0 would keep every container from starting: asking for root is
	// asking to leave the restricted level, and a namespace that enforces it says so.
	if s.RunAsUser == nil || *s.RunAsUser != 0 {
		sc.WithRunAsNonRoot(true)
	}
	if s.RunAsUser != nil {
		sc.WithRunAsUser(*s.RunAsUser)
	}
	if s.RunAsGroup != nil {
		sc.WithRunAsGroup(*s.RunAsGroup)
	}
	if s.FSGroup != nil {
		sc.WithFSGroup(*s.FSGroup)
	}
	return sc
}

// volume renders one of spec.pod.volumes; its mount is the container's (container.go).
func volume(v *v1beta1.Volume) (*corev1ac.VolumeApplyConfiguration, error) {
	out := corev1ac.Volume().WithName(v.Name)
	switch {
	case v.ConfigMap != nil:
		src := corev1ac.ConfigMapVolumeSource().WithName(v.ConfigMap.Name).WithItems(keysToPaths(v.ConfigMap.Items)...)
		if v.ConfigMap.DefaultMode != nil {
			src.WithDefaultMode(*v.ConfigMap.DefaultMode)
		}
		if v.ConfigMap.Optional != nil {
			src.WithOptional(*v.ConfigMap.Optional)
		}
		out.WithConfigMap(src)
	case v.Secret != nil:
		src := corev1ac.SecretVolumeSource().WithSecretName(v.Secret.Name).WithItems(keysToPaths(v.Secret.Items)...)
		if v.Secret.DefaultMode != nil {
			src.WithDefaultMode(*v.Secret.DefaultMode)
		}
		if v.Secret.Optional != nil {
			src.WithOptional(*v.Secret.Optional)
		}
		out.WithSecret(src)
	case v.EmptyDir != nil:
		src := corev1ac.EmptyDirVolumeSource()
		if v.EmptyDir.Medium != "" {
			src.WithMedium(corev1.StorageMedium(v.EmptyDir.Medium))
		}
		if v.EmptyDir.SizeLimit != nil {
			src.WithSizeLimit(v.EmptyDir.SizeLimit.Quantity)
		}
		out.WithEmptyDir(src)
	case v.PersistentVolumeClaim != nil:
		out.WithPersistentVolumeClaim(corev1ac.PersistentVolumeClaimVolumeSource().
			WithClaimName(v.PersistentVolumeClaim.ClaimName).
			WithReadOnly(v.ReadOnly))
	default:
		// admission requires exactly one source; a WebApp that skipped admission says so here
		return nil, fmt.Errorf("volume %q has no source", v.Name)
	}
	return out, nil
}

func keysToPaths(items []v1beta1.KeyToPath) []*corev1ac.KeyToPathApplyConfiguration {
	out := make([]*corev1ac.KeyToPathApplyConfiguration, 0, len(items))
	for _, it := range items {
		k := corev1ac.KeyToPath().WithKey(it.Key).WithPath(it.Path)
		if it.Mode != nil {
			k.WithMode(*it.Mode)
		}
		out = append(out, k)
	}
	return out
}

// schedule places the pods where the WebApp says. Without pod.scheduling the pod spec has no
// scheduling fields at all, as before they existed, and without topologySpreadConstraints no spread:
// kube-scheduler's default spread (nodes, and zones where labelled) then applies, which explicit
// constraints could not reproduce (see v1beta1.Scheduling; test/integration's scheduling specs).
func schedule(spec *corev1ac.PodSpecApplyConfiguration, app *v1beta1.WebApp) {
	s := app.Spec.Pod.Scheduling
	if s == nil {
		return
	}
	if len(s.NodeSelector) > 0 {
		sel := make(map[string]string, len(s.NodeSelector))
		for k, v := range s.NodeSelector {
			sel[k] = string(v)
		}
		spec.WithNodeSelector(sel)
	}
	for _, t := range s.Tolerations {
		tol := corev1ac.Toleration()
		if t.Key != "" {
			tol.WithKey(t.Key)
		}
		if t.Operator != "" {
			tol.WithOperator(corev1.TolerationOperator(t.Operator))
		}
		if t.Value != "" {
			tol.WithValue(string(t.Value))
		}
		if t.Effect != "" {
			tol.WithEffect(corev1.TaintEffect(t.Effect))
		}
		if t.TolerationSeconds != nil {
			tol.WithTolerationSeconds(*t.TolerationSeconds)
		}
		spec.WithTolerations(tol)
	}
	if a := s.NodeAffinity; a != nil && (len(a.Required) > 0 || len(a.Preferred) > 0) {
		spec.WithAffinity(corev1ac.Affinity().WithNodeAffinity(nodeAffinity(a)))
	}
	for _, c := range s.TopologySpreadConstraints {
		spec.WithTopologySpreadConstraints(spreadConstraint(app, c))
	}
	if s.PriorityClassName != "" {
		spec.WithPriorityClassName(s.PriorityClassName)
	}
}

func nodeAffinity(a *v1beta1.NodeAffinity) *corev1ac.NodeAffinityApplyConfiguration {
	out := corev1ac.NodeAffinity()
	if len(a.Required) > 0 {
		sel := corev1ac.NodeSelector()
		for i := range a.Required {
			sel.WithNodeSelectorTerms(nodeSelectorTerm(&a.Required[i]))
		}
		out.WithRequiredDuringSchedulingIgnoredDuringExecution(sel)
	}
	for i := range a.Preferred {
		out.WithPreferredDuringSchedulingIgnoredDuringExecution(corev1ac.PreferredSchedulingTerm().
			WithWeight(a.Preferred[i].Weight).
			WithPreference(nodeSelectorTerm(&a.Preferred[i].Term)))
	}
	return out
}

func nodeSelectorTerm(t *v1beta1.NodeSelectorTerm) *corev1ac.NodeSelectorTermApplyConfiguration {
	out := corev1ac.NodeSelectorTerm()
	for _, e := range t.MatchExpressions {
		req := corev1ac.NodeSelectorRequirement().WithKey(e.Key).WithOperator(corev1.NodeSelectorOperator(e.Operator))
		for _, v := range e.Values {
			req.WithValues(string(v))
		}
		out.WithMatchExpressions(req)
	}
	return out
}

// spreadConstraint counts only the pods of the same revision (matchLabelKeys pod-template-hash), so
// that a rollout spreads its new pods instead of balancing them against the old ones.
func spreadConstraint(app *v1beta1.WebApp, c v1beta1.TopologySpreadConstraint) *corev1ac.TopologySpreadConstraintApplyConfiguration {
	when := corev1.ScheduleAnyway
	if c.WhenUnsatisfiable != "" {
		when = corev1.UnsatisfiableConstraintAction(c.WhenUnsatisfiable)
	}
	return corev1ac.TopologySpreadConstraint().
		WithMaxSkew(c.MaxSkew).
		WithTopologyKey(c.TopologyKey).
		WithWhenUnsatisfiable(when).
		WithLabelSelector(metav1ac.LabelSelector().WithMatchLabels(SelectorLabels(app))).
		WithMatchLabelKeys(appsv1.DefaultDeploymentUniqueLabelKey)
}
