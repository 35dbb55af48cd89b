package resources

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/utils/ptr"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/internal/status"
)

// The Deployment runs the WebApp's pods. The operator creates and patches it (never updates or
// deletes it: the garbage collector removes it with its owner).
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;patch

// Deployment is the workload child: its rollout is the WebApp's readiness.
var Deployment Child = kind[*appsv1.Deployment, *appsv1ac.DeploymentApplyConfiguration]{
	name:    "Deployment",
	newObj:  func() *appsv1.Deployment { return &appsv1.Deployment{} },
	render:  renderDeployment,
	extract: appsv1ac.ExtractDeployment,
	health:  deploymentHealth,
}

const (
	// ContainerName is the name of the single container of every pod.
	ContainerName = "app"
	// PortName names the container port; the Service and the probes target it by name.
	PortName = "http"
)

// PodLabels are the labels the operator sets on every pod of app: the selector's, and managed-by.
func PodLabels(app *webappv1.WebApp) map[string]string {
	return objectLabels(app)
}

// renderDeployment renders the Deployment that runs app's pods.
func renderDeployment(app *webappv1.WebApp) (*appsv1ac.DeploymentApplyConfiguration, error) {
	container, err := container(app)
	if err != nil {
		return nil, err
	}
	podLabels := map[string]string{}
	for k, v := range app.Spec.PodLabels {
		podLabels[k] = string(v)
	}
	// Reserved keys win; admission already refuses them. managed-by is not in the selector (which
	// never changes) but on every pod: the operator caches only pods that carry it.
	for k, v := range PodLabels(app) {
		podLabels[k] = v
	}
	template := corev1ac.PodTemplateSpec().
		WithLabels(podLabels).
		WithSpec(corev1ac.PodSpec().WithContainers(container))
	if len(app.Spec.PodAnnotations) > 0 {
		annotations := make(map[string]string, len(app.Spec.PodAnnotations))
		for k, v := range app.Spec.PodAnnotations {
			annotations[k] = string(v)
		}
		template.WithAnnotations(annotations)
	}
	spec := appsv1ac.DeploymentSpec().
		WithReplicas(ptr.Deref(app.Spec.Replicas, 1)).
		WithSelector(metav1ac.LabelSelector().WithMatchLabels(SelectorLabels(app))).
		WithTemplate(template)
	if app.Spec.ProgressDeadlineSeconds != nil {
		spec.WithProgressDeadlineSeconds(*app.Spec.ProgressDeadlineSeconds)
	}
	return appsv1ac.Deployment(app.Name, app.Namespace).
		WithLabels(objectLabels(app)).
		WithOwnerReferences(ownerReference(app)).
		WithSpec(spec), nil
}

func container(app *webappv1.WebApp) (*corev1ac.ContainerApplyConfiguration, error) {
	c := corev1ac.Container().
		WithName(ContainerName).
		WithImage(app.Spec.Image).
		WithPorts(corev1ac.ContainerPort().
			WithName(PortName).
			WithContainerPort(containerPort(app)).
			WithProtocol(corev1.ProtocolTCP))
	if len(app.Spec.Env) > 0 {
		var env []*corev1ac.EnvVarApplyConfiguration
		if err := convert(app.Spec.Env, &env); err != nil {
			return nil, fmt.Errorf("spec.env: %w", err)
		}
		c.WithEnv(env...)
	}
	if len(app.Spec.EnvFrom) > 0 {
		var envFrom []*corev1ac.EnvFromSourceApplyConfiguration
		if err := convert(app.Spec.EnvFrom, &envFrom); err != nil {
			return nil, fmt.Errorf("spec.envFrom: %w", err)
		}
		c.WithEnvFrom(envFrom...)
	}
	if r := app.Spec.Resources; len(r.Limits) > 0 || len(r.Requests) > 0 {
		resources := corev1ac.ResourceRequirements()
		if err := convert(r, resources); err != nil {
			return nil, fmt.Errorf("spec.resources: %w", err)
		}
		c.WithResources(resources)
	}
	if hc := app.Spec.HealthCheck; hc != nil {
		c.WithReadinessProbe(probe(hc).WithPeriodSeconds(5).WithFailureThreshold(3))
		// Liveness waits longer and tolerates more failures than readiness: a slow app should be
		// taken out of the Service long before it is restarted.
		c.WithLivenessProbe(probe(hc).WithInitialDelaySeconds(10).WithPeriodSeconds(10).WithFailureThreshold(6))
	}
	return c, nil
}

func probe(hc *webappv1.HealthCheck) *corev1ac.ProbeApplyConfiguration {
	port := intstr.FromString(PortName)
	if hc.Port != nil {
		port = intstr.FromInt32(*hc.Port)
	}
	return corev1ac.Probe().WithHTTPGet(corev1ac.HTTPGetAction().WithPath(hc.Path).WithPort(port))
}

func containerPort(app *webappv1.WebApp) int32 {
	if app.Spec.Port == 0 {
		return 8080
	}
	return app.Spec.Port
}

// deploymentHealth reads the Deployment's status the way `kubectl rollout status` does.
func deploymentHealth(_ *webappv1.WebApp, d *appsv1.Deployment) status.Health {
	if d.Status.ObservedGeneration < d.Generation {
		return progressing(status.ReasonRolloutInProgress,
			fmt.Sprintf("waiting for the Deployment controller to observe generation %d", d.Generation))
	}
	// The ReplicaSet cannot create pods (Pod Security admission, a ResourceQuota, a LimitRange, a
	// webhook): no deadline will fix it, and the API server's message says what to change.
	if c := deploymentCondition(d, appsv1.DeploymentReplicaFailure); c != nil && c.Status == corev1.ConditionTrue {
		return status.Health{Stalled: true, Reason: status.ReasonReplicaFailure,
			Message: fmt.Sprintf("pods cannot be created: %s", c.Message)}
	}
	if c := deploymentCondition(d, appsv1.DeploymentProgressing); c != nil &&
		c.Status == corev1.ConditionFalse && c.Reason == "ProgressDeadlineExceeded" {
		return status.Health{Stalled: true, Reason: status.ReasonProgressDeadlineExceeded,
			Message: fmt.Sprintf("rollout made no progress within %ds: %s", ptr.Deref(d.Spec.ProgressDeadlineSeconds, 600), c.Message)}
	}
	desired := ptr.Deref(d.Spec.Replicas, 1)
	s := d.Status
	switch {
	case s.UpdatedReplicas < desired:
		return progressing(status.ReasonRolloutInProgress,
			fmt.Sprintf("%d of %d replicas updated to the latest spec", s.UpdatedReplicas, desired))
	case s.Replicas > s.UpdatedReplicas:
		return progressing(status.ReasonRolloutInProgress,
			fmt.Sprintf("%d old replicas pending termination", s.Replicas-s.UpdatedReplicas))
	case s.AvailableReplicas < desired:
		return progressing(status.ReasonReplicasUnavailable,
			fmt.Sprintf("%d of %d updated replicas available", s.AvailableReplicas, desired))
	case desired == 0:
		return status.Health{Ready: true, Reason: status.ReasonScaledToZero, Message: "scaled to zero replicas"}
	}
	return status.Health{Ready: true, Reason: status.ReasonReady,
		Message: fmt.Sprintf("%d of %d replicas available and up to date", s.AvailableReplicas, desired)}
}

func progressing(reason, message string) status.Health {
	return status.Health{Reason: reason, Message: message}
}

func deploymentCondition(d *appsv1.Deployment, t appsv1.DeploymentConditionType) *appsv1.DeploymentCondition {
	for i := range d.Status.Conditions {
		if d.Status.Conditions[i].Type == t {
			return &d.Status.Conditions[i]
		}
	}
	return nil
}
