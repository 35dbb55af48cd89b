// Package render turns a WebApp into the objects the operator applies: a Deployment and a Service.
//
// Every function here is pure: the same WebApp always renders the same apply configurations, which
// is what lets the reconciler skip a write when the live object already carries exactly these fields.
// Apply configurations (rather than typed objects) are used because server-side apply needs to send
// only the fields we own; a typed object would also send zero values such as `strategy: {}`.
package render

import (
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/utils/ptr"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
)

const (
	// FieldOwner is the single server-side apply field manager of every object the operator writes.
	FieldOwner = "webapp-operator"

	// LabelName, LabelInstance and LabelManagedBy are the standard app.kubernetes.io labels.
	// Name and instance form the pod selector, which must never change for the life of a
	// Deployment, so it never contains the image or anything else that varies.
	LabelName      = "app.kubernetes.io/name"
	LabelInstance  = "app.kubernetes.io/instance"
	LabelManagedBy = "app.kubernetes.io/managed-by"

	// AppName is the value of app.kubernetes.io/name on every child object.
	AppName = "webapp"
	// ManagedBy is the value of app.kubernetes.io/managed-by; the operator caches only objects carrying it.
	ManagedBy = "webapp-operator"

	// ContainerName is the name of the single container of every pod.
	ContainerName = "app"
	// PortName names the container port; the Service and the probes target it by name.
	PortName = "http"
)

// SelectorLabels are the labels that select the pods of app. They are stable across every spec change.
func SelectorLabels(app *webappv1.WebApp) map[string]string {
	return map[string]string{LabelName: AppName, LabelInstance: app.Name}
}

// Selector is SelectorLabels in string form, as the scale subresource wants it.
func Selector(app *webappv1.WebApp) string {
	return labels.SelectorFromSet(SelectorLabels(app)).String()
}

// objectLabels are the labels of the Deployment and the Service themselves.
func objectLabels(app *webappv1.WebApp) map[string]string {
	l := SelectorLabels(app)
	l[LabelManagedBy] = ManagedBy
	return l
}

// ownerReference makes app the controller of a child, so the garbage collector deletes the
// child with the WebApp and so a child is recognisably ours.
func ownerReference(app *webappv1.WebApp) *metav1ac.OwnerReferenceApplyConfiguration {
	return metav1ac.OwnerReference().
		WithAPIVersion(webappv1.GroupVersion.String()).
		WithKind("WebApp").
		WithName(app.Name).
		WithUID(app.UID).
		WithController(true).
		WithBlockOwnerDeletion(true)
}

// Deployment renders the Deployment that runs app's pods.
func Deployment(app *webappv1.WebApp) (*appsv1ac.DeploymentApplyConfiguration, error) {
	container, err := container(app)
	if err != nil {
		return nil, err
	}
	podLabels := map[string]string{}
	for k, v := range app.Spec.PodLabels {
		podLabels[k] = v
	}
	for k, v := range SelectorLabels(app) { // reserved keys win; admission already refuses them
		podLabels[k] = v
	}
	template := corev1ac.PodTemplateSpec().
		WithLabels(podLabels).
		WithSpec(corev1ac.PodSpec().WithContainers(container))
	if len(app.Spec.PodAnnotations) > 0 {
		template.WithAnnotations(app.Spec.PodAnnotations)
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
	if r := app.Spec.Resources; len(r.Limits) > 0 || len(r.Requests) > 0 || len(r.Claims) > 0 {
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

// Service renders the Service that exposes app's pods.
func Service(app *webappv1.WebApp) *corev1ac.ServiceApplyConfiguration {
	port := corev1ac.ServicePort().
		WithName(PortName).
		WithProtocol(corev1.ProtocolTCP).
		WithPort(servicePort(app)).
		WithTargetPort(intstr.FromString(PortName))
	if svcType := serviceType(app); svcType != corev1.ServiceTypeClusterIP && app.Spec.Service.NodePort != nil {
		port.WithNodePort(*app.Spec.Service.NodePort)
	}
	return corev1ac.Service(app.Name, app.Namespace).
		WithLabels(objectLabels(app)).
		WithOwnerReferences(ownerReference(app)).
		WithSpec(corev1ac.ServiceSpec().
			WithType(serviceType(app)).
			WithSelector(SelectorLabels(app)).
			WithPorts(port))
}

// URL is the in-cluster address of app's Service.
func URL(app *webappv1.WebApp) string {
	return fmt.Sprintf("http://%s.%s.svc:%d", app.Name, app.Namespace, servicePort(app))
}

// The defaults below repeat the CRD's OpenAPI defaults, so that a WebApp that never went
// through the API server (a unit test, an object built in code) renders the same objects.

func containerPort(app *webappv1.WebApp) int32 {
	if app.Spec.Port == 0 {
		return 8080
	}
	return app.Spec.Port
}

func servicePort(app *webappv1.WebApp) int32 {
	if app.Spec.Service.Port == 0 {
		return 80
	}
	return app.Spec.Service.Port
}

func serviceType(app *webappv1.WebApp) corev1.ServiceType {
	if app.Spec.Service.Type == "" {
		return corev1.ServiceTypeClusterIP
	}
	return corev1.ServiceType(app.Spec.Service.Type)
}

// convert copies a core/v1 value into its apply configuration. Both share one JSON shape and the
// typed values use omitempty, so the result holds exactly the fields the user set.
func convert(in, out any) error {
	data, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, out)
}
