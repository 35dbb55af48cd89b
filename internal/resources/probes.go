package resources

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"

	"github.com/webapp-operator/webapp-operator/api/v1beta1"
)

// probes sets the container's probes, one by one. A timing left unset is left to Kubernetes.
func probes(c *corev1ac.ContainerApplyConfiguration, p *v1beta1.Probes) {
	if p == nil {
		return
	}
	if p.Readiness != nil {
		c.WithReadinessProbe(probe(p.Readiness))
	}
	if p.Liveness != nil {
		c.WithLivenessProbe(probe(p.Liveness))
	}
	if p.Startup != nil {
		c.WithStartupProbe(probe(p.Startup))
	}
}

func probe(p *v1beta1.Probe) *corev1ac.ProbeApplyConfiguration {
	out := corev1ac.Probe()
	switch {
	case p.HTTPGet != nil:
		out.WithHTTPGet(httpGet(p.HTTPGet))
	case p.TCPSocket != nil:
		out.WithTCPSocket(corev1ac.TCPSocketAction().WithPort(portOrMain(p.TCPSocket.Port)))
	case p.GRPC != nil:
		g := corev1ac.GRPCAction().WithPort(p.GRPC.Port)
		if p.GRPC.Service != nil {
			g.WithService(*p.GRPC.Service)
		}
		out.WithGRPC(g)
	case p.Exec != nil:
		out.WithExec(corev1ac.ExecAction().WithCommand(p.Exec.Command...))
	}
	set := func(v *int32, with func(int32) *corev1ac.ProbeApplyConfiguration) {
		if v != nil {
			with(*v)
		}
	}
	set(p.InitialDelaySeconds, out.WithInitialDelaySeconds)
	set(p.PeriodSeconds, out.WithPeriodSeconds)
	set(p.TimeoutSeconds, out.WithTimeoutSeconds)
	set(p.SuccessThreshold, out.WithSuccessThreshold)
	set(p.FailureThreshold, out.WithFailureThreshold)
	return out
}

// handler renders a preStop action.
func handler(h *v1beta1.Handler) *corev1ac.LifecycleHandlerApplyConfiguration {
	out := corev1ac.LifecycleHandler()
	switch {
	case h.Exec != nil:
		out.WithExec(corev1ac.ExecAction().WithCommand(h.Exec.Command...))
	case h.HTTPGet != nil:
		out.WithHTTPGet(httpGet(h.HTTPGet))
	case h.SleepSeconds != nil:
		out.WithSleep(corev1ac.SleepAction().WithSeconds(*h.SleepSeconds))
	}
	return out
}

func httpGet(g *v1beta1.HTTPGetAction) *corev1ac.HTTPGetActionApplyConfiguration {
	out := corev1ac.HTTPGetAction().WithPath(g.Path).WithPort(portOrMain(g.Port))
	if g.Scheme != "" {
		out.WithScheme(corev1.URIScheme(g.Scheme))
	}
	return out
}

// portOrMain is port, or the main port by name.
func portOrMain(port *intstr.IntOrString) intstr.IntOrString {
	if port == nil {
		return intstr.FromString(PortName)
	}
	return *port
}
