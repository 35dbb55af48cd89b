package resources

import (
	"fmt"

	"github.com/distribution/reference"
	corev1 "k8s.io/api/core/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/utils/ptr"

	"github.com/webapp-operator/webapp-operator/api/v1beta1"
	"github.com/webapp-operator/webapp-operator/internal/status"
)

const (
	// ContainerName is the name of the app's container; sidecars and init containers have their own.
	ContainerName = "app"
	// PortName names the main container port; the Service and the probes target it by name.
	PortName = "http"
)

// mainContainer renders the container that serves the WebApp.
func mainContainer(app *v1beta1.WebApp) (*corev1ac.ContainerApplyConfiguration, error) {
	spec := &app.Spec.Container
	c := corev1ac.Container().
		WithName(ContainerName).
		WithImage(spec.Image).
		WithCommand(spec.Command...).
		WithArgs(spec.Args...)
	for i := range spec.Ports {
		p := &spec.Ports[i]
		c.WithPorts(corev1ac.ContainerPort().
			WithName(p.Name).
			WithContainerPort(portNumber(p)).
			WithProtocol(protocol(p.Protocol)))
	}
	if err := withEnvAndResources(c, spec.Env, spec.EnvFrom, spec.Resources, "spec.container"); err != nil {
		return nil, err
	}
	for _, v := range app.Spec.Pod.Volumes {
		m := corev1ac.VolumeMount().WithName(v.Name).WithMountPath(v.MountPath)
		if v.SubPath != "" {
			m.WithSubPath(v.SubPath)
		}
		if v.ReadOnly {
			m.WithReadOnly(true)
		}
		c.WithVolumeMounts(m)
	}
	probes(c, spec.Probes)
	return c.WithSecurityContext(containerSecurityContext(app.Spec.Pod.Security)), nil
}

// sideContainer renders a sidecar or an init container, under the same security defaults as the app.
func sideContainer(app *v1beta1.WebApp, s *v1beta1.Container, path string) (*corev1ac.ContainerApplyConfiguration, error) {
	c := corev1ac.Container().
		WithName(s.Name).
		WithImage(s.Image).
		WithCommand(s.Command...).
		WithArgs(s.Args...)
	if err := withEnvAndResources(c, s.Env, nil, s.Resources, path); err != nil {
		return nil, err
	}
	for _, m := range s.VolumeMounts {
		mount := corev1ac.VolumeMount().WithName(m.Name).WithMountPath(m.MountPath)
		if m.ReadOnly {
			mount.WithReadOnly(true)
		}
		c.WithVolumeMounts(mount)
	}
	return c.WithSecurityContext(containerSecurityContext(app.Spec.Pod.Security)), nil
}

// withEnvAndResources copies env, envFrom and resources: our types share core/v1's JSON shape.
func withEnvAndResources(c *corev1ac.ContainerApplyConfiguration, env []v1beta1.EnvVar, envFrom []v1beta1.EnvFromSource,
	r v1beta1.ResourceRequirements, path string) error {
	if len(env) > 0 {
		var out []*corev1ac.EnvVarApplyConfiguration
		if err := convert(env, &out); err != nil {
			return fmt.Errorf("%s.env: %w", path, err)
		}
		c.WithEnv(out...)
	}
	if len(envFrom) > 0 {
		var out []*corev1ac.EnvFromSourceApplyConfiguration
		if err := convert(envFrom, &out); err != nil {
			return fmt.Errorf("%s.envFrom: %w", path, err)
		}
		c.WithEnvFrom(out...)
	}
	if len(r.Limits) > 0 || len(r.Requests) > 0 {
		out := corev1ac.ResourceRequirements()
		if err := convert(r, out); err != nil {
			return fmt.Errorf("%s.resources: %w", path, err)
		}
		c.WithResources(out)
	}
	return nil
}

// containerSecurityContext is the restricted level's part that lives on each container.
func containerSecurityContext(s *v1beta1.Security) *corev1ac.SecurityContextApplyConfiguration {
	sc := corev1ac.SecurityContext().
		WithAllowPrivilegeEscalation(false).
		WithCapabilities(corev1ac.Capabilities().WithDrop("ALL"))
	if s != nil && ptr.Deref(s.ReadOnlyRootFilesystem, false) {
		sc.WithReadOnlyRootFilesystem(true)
	}
	return sc
}

// portNumber is p's number. The main port's default repeats the CRD's (8080), so that a WebApp that
// never went through the API server (a unit test, an object built in code) renders the same.
func portNumber(p *v1beta1.ContainerPort) int32 {
	if p.Name == PortName && p.ContainerPort == 0 {
		return 8080
	}
	return p.ContainerPort
}

// containerPort is the number of the main port, http.
func containerPort(app *v1beta1.WebApp) int32 {
	if p := findPort(app, PortName); p != nil {
		return portNumber(p)
	}
	return 8080
}

// findPort is the container port named name, or nil.
func findPort(app *v1beta1.WebApp, name string) *v1beta1.ContainerPort {
	for i := range app.Spec.Container.Ports {
		if app.Spec.Container.Ports[i].Name == name {
			return &app.Spec.Container.Ports[i]
		}
	}
	return nil
}

func protocol(p string) corev1.Protocol {
	if p == "" {
		return corev1.ProtocolTCP
	}
	return corev1.Protocol(p)
}

// checkImages refuses an image reference that the kubelet could never pull (InvalidImageName), with
// the same parser the kubelet uses: the WebApp is Stalled at once, and no pod that cannot start is
// created. The CRD cannot refuse such a reference at admission without tightening a served version.
func checkImages(app *v1beta1.WebApp) error {
	check := func(field, image string) error {
		if _, err := reference.ParseNormalizedNamed(image); err != nil {
			return status.NewProblem(status.ReasonInvalidImage, "%s: image %q is not a valid image reference: %v", field, image, err)
		}
		return nil
	}
	if err := check("spec.container.image", app.Spec.Container.Image); err != nil {
		return err
	}
	for i, c := range app.Spec.Pod.Sidecars {
		if err := check(fmt.Sprintf("spec.pod.sidecars[%d].image", i), c.Image); err != nil {
			return err
		}
	}
	for i, c := range app.Spec.Pod.InitContainers {
		if err := check(fmt.Sprintf("spec.pod.initContainers[%d].image", i), c.Image); err != nil {
			return err
		}
	}
	return nil
}
