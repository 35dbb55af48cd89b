package resources

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
)

func TestProbes(t *testing.T) {
	mainPort := intstr.FromString(PortName)
	tests := []struct {
		name                          string
		probes                        *webappv1.Probes
		healthCheck                   *webappv1.HealthCheck
		wantReady, wantLive, wantBoot *corev1.Probe
	}{{
		name: "none: ready as soon as the container runs",
	}, {
		name:        "healthCheck: readiness and liveness from one path",
		healthCheck: &webappv1.HealthCheck{Path: "/healthz"},
		wantReady: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: mainPort}},
			PeriodSeconds: 5, FailureThreshold: 3},
		wantLive: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: mainPort}},
			InitialDelaySeconds: 10, PeriodSeconds: 10, FailureThreshold: 6},
	}, {
		name: "each probe its own way, with timings",
		probes: &webappv1.Probes{
			Readiness: &webappv1.Probe{HTTPGet: &webappv1.HTTPGetAction{Path: "/ready", Scheme: "HTTPS"},
				PeriodSeconds: ptr.To[int32](2), SuccessThreshold: ptr.To[int32](2), TimeoutSeconds: ptr.To[int32](3)},
			Liveness: &webappv1.Probe{TCPSocket: &webappv1.TCPSocketAction{Port: ptr.To(intstr.FromString("admin"))},
				InitialDelaySeconds: ptr.To[int32](30), FailureThreshold: ptr.To[int32](10)},
			Startup: &webappv1.Probe{GRPC: &webappv1.GRPCAction{Port: 9000, Service: ptr.To("shop")}, PeriodSeconds: ptr.To[int32](1)},
		},
		wantReady: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/ready", Port: mainPort, Scheme: corev1.URISchemeHTTPS}},
			PeriodSeconds: 2, SuccessThreshold: 2, TimeoutSeconds: 3},
		wantLive: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromString("admin")}},
			InitialDelaySeconds: 30, FailureThreshold: 10},
		wantBoot: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{GRPC: &corev1.GRPCAction{Port: 9000, Service: ptr.To("shop")}}, PeriodSeconds: 1},
	}, {
		name:      "a command; the main port by default for TCP",
		probes:    &webappv1.Probes{Readiness: &webappv1.Probe{Exec: &webappv1.ExecAction{Command: []string{"/check", "-q"}}}, Liveness: &webappv1.Probe{TCPSocket: &webappv1.TCPSocketAction{}}},
		wantReady: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"/check", "-q"}}}},
		wantLive:  &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: mainPort}}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := deployment(t, newApp(func(a *webappv1.WebApp) {
				a.Spec.Probes = tt.probes
				a.Spec.HealthCheck = tt.healthCheck
			})).Spec.Template.Spec.Containers[0]
			expect(t, "readiness", c.ReadinessProbe, tt.wantReady)
			expect(t, "liveness", c.LivenessProbe, tt.wantLive)
			expect(t, "startup", c.StartupProbe, tt.wantBoot)
		})
	}
}

// Unless the WebApp says otherwise, the app pauses before SIGTERM while the endpoints forget it,
// and the grace period adds the app's drain to the pause.
func TestLifecycle(t *testing.T) {
	sleep := func(s int64) *corev1.LifecycleHandler {
		return &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: s}}
	}
	tests := []struct {
		name      string
		lifecycle *webappv1.Lifecycle
		wantStop  *corev1.LifecycleHandler
		wantGrace *int64
	}{
		{name: "none: the default pause, and the drain after it", wantStop: sleep(PreStopPause), wantGrace: ptr.To[int64](35)},
		{name: "a pause, and more time to stop", lifecycle: &webappv1.Lifecycle{PreStop: &webappv1.Handler{SleepSeconds: ptr.To[int64](2)},
			TerminationGracePeriodSeconds: ptr.To[int64](60)},
			wantStop: sleep(2), wantGrace: ptr.To[int64](60)},
		{name: "a pause: the drain after it", lifecycle: &webappv1.Lifecycle{PreStop: &webappv1.Handler{SleepSeconds: ptr.To[int64](20)}},
			wantStop: sleep(20), wantGrace: ptr.To[int64](50)},
		{name: "more time to stop: the default pause", lifecycle: &webappv1.Lifecycle{TerminationGracePeriodSeconds: ptr.To[int64](90)},
			wantStop: sleep(PreStopPause), wantGrace: ptr.To[int64](90)},
		{name: "less time to stop than the pause: the pause fits", lifecycle: &webappv1.Lifecycle{TerminationGracePeriodSeconds: ptr.To[int64](3)},
			wantStop: sleep(3), wantGrace: ptr.To[int64](3)},
		{name: "no time to stop: no pause", lifecycle: &webappv1.Lifecycle{TerminationGracePeriodSeconds: ptr.To[int64](0)},
			wantGrace: ptr.To[int64](0)},
		{name: "a command: Kubernetes' grace period", lifecycle: &webappv1.Lifecycle{PreStop: &webappv1.Handler{Exec: &webappv1.ExecAction{Command: []string{"/drain"}}}},
			wantStop: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"/drain"}}}},
		{name: "a request to the main port", lifecycle: &webappv1.Lifecycle{PreStop: &webappv1.Handler{HTTPGet: &webappv1.HTTPGetAction{Path: "/drain"}}},
			wantStop: &corev1.LifecycleHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/drain", Port: intstr.FromString(PortName)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := deployment(t, newApp(func(a *webappv1.WebApp) { a.Spec.Lifecycle = tt.lifecycle })).Spec.Template.Spec
			var got *corev1.LifecycleHandler
			if l := pod.Containers[0].Lifecycle; l != nil {
				got = l.PreStop
			}
			expect(t, "preStop", got, tt.wantStop)
			expect(t, "grace", pod.TerminationGracePeriodSeconds, tt.wantGrace)
			for _, c := range append(pod.InitContainers, pod.Containers[1:]...) {
				expect(t, c.Name+" lifecycle", c.Lifecycle, (*corev1.Lifecycle)(nil))
			}
		})
	}
}
