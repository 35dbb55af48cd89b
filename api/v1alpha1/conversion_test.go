/*
Copyright 2026 The webapp-operator Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package v1alpha1_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/utils/ptr"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/api/v1beta1"
	"github.com/webapp-operator/webapp-operator/internal/resources"
	"github.com/webapp-operator/webapp-operator/internal/served"
)

// The mapping rules of docs/api-design.md, one case each: what the v1beta1 form of a v1alpha1 spec
// is, and that it converts back to the same spec.

// alphaApp is a v1alpha1 WebApp as the API server admits it: with v1alpha1's schema defaults.
func alphaApp(edit func(*webappv1.WebAppSpec)) *webappv1.WebApp {
	app := &webappv1.WebApp{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "default"},
		Spec: webappv1.WebAppSpec{Image: "ghcr.io/acme/shop:1.4.2", Replicas: ptr.To[int32](1), Port: 8080,
			Service: webappv1.ServiceSpec{Type: webappv1.ServiceTypeClusterIP, Port: 80}, RolloutOnConfigChange: ptr.To(true)}}
	if edit != nil {
		edit(&app.Spec)
	}
	return app
}

// toBeta converts app to v1beta1, checks that it converts back unchanged, and returns the v1beta1 form.
func toBeta(t *testing.T, app *webappv1.WebApp) *v1beta1.WebApp {
	t.Helper()
	beta := &v1beta1.WebApp{}
	if err := app.ConvertTo(beta); err != nil {
		t.Fatal(err)
	}
	back := &webappv1.WebApp{}
	if err := back.ConvertFrom(beta); err != nil {
		t.Fatal(err)
	}
	if !equality.Semantic.DeepEqual(app, back) {
		t.Fatalf("v1alpha1 -> v1beta1 -> v1alpha1 differs (-want +got):\n%s", cmp.Diff(app, back))
	}
	return beta
}

// toAlpha converts a v1beta1 app to v1alpha1, checks that it converts back unchanged, and returns
// the v1alpha1 form.
func toAlpha(t *testing.T, app *v1beta1.WebApp) *webappv1.WebApp {
	t.Helper()
	alpha := &webappv1.WebApp{}
	if err := alpha.ConvertFrom(app); err != nil {
		t.Fatal(err)
	}
	back := &v1beta1.WebApp{}
	if err := alpha.ConvertTo(back); err != nil {
		t.Fatal(err)
	}
	if !equality.Semantic.DeepEqual(app, back) {
		t.Fatalf("v1beta1 -> v1alpha1 -> v1beta1 differs (-want +got):\n%s", cmp.Diff(app, back))
	}
	return alpha
}

func want[T any](t *testing.T, what string, got, wanted T) {
	t.Helper()
	if !equality.Semantic.DeepEqual(got, wanted) {
		t.Errorf("%s (-want +got):\n%s", what, cmp.Diff(wanted, got))
	}
}

func TestConvertDefaultsOnlyV1beta1Declares(t *testing.T) {
	beta := toBeta(t, alphaApp(nil))
	r := beta.Spec.Rollout
	want(t, "rollout", r, v1beta1.Rollout{
		Strategy: &v1beta1.RolloutStrategy{Type: v1beta1.RollingUpdateStrategyType, RollingUpdate: &v1beta1.RollingUpdate{
			MaxSurge: ptr.To(intstr.FromString("25%")), MaxUnavailable: ptr.To(intstr.FromInt32(0))}},
		MinReadySeconds: ptr.To[int32](0), ProgressDeadlineSeconds: ptr.To[int32](600), RevisionHistoryLimit: ptr.To[int32](10),
		OnFailure: v1beta1.RolloutFailureReport, FailureSeconds: ptr.To[int32](120), OnConfigChange: v1beta1.ConfigChangeRollout})
	want(t, "automountServiceAccountToken", beta.Spec.Pod.AutomountServiceAccountToken, ptr.To(false))
	want(t, "disruptionBudget", beta.Spec.Scaling.DisruptionBudget, v1beta1.DisruptionBudget{Enabled: ptr.To(true), MaxUnavailable: ptr.To(intstr.FromInt32(1))})
	want(t, "no terminationGracePeriodSeconds: its default depends on preStop", beta.Spec.Pod.TerminationGracePeriodSeconds, nil)
	want(t, "no carrier: the app wrote none of these", beta.Annotations, nil)
}

func TestConvertDefaultsWrittenByHandAreKept(t *testing.T) {
	app := alphaApp(func(s *webappv1.WebAppSpec) {
		s.ProgressDeadlineSeconds, s.MinReadySeconds, s.RevisionHistoryLimit = ptr.To[int32](600), ptr.To[int32](0), ptr.To[int32](10)
		s.AutomountServiceAccountToken = ptr.To(false)
		s.Strategy = &webappv1.RolloutStrategy{MaxSurge: ptr.To(intstr.FromString("25%")), MaxUnavailable: ptr.To(intstr.FromInt32(0))}
		s.DisruptionBudget = &webappv1.DisruptionBudget{Enabled: ptr.To(true), MaxUnavailable: ptr.To(intstr.FromInt32(1))}
		s.Autoscaling = &webappv1.Autoscaling{MinReplicas: ptr.To[int32](1), MaxReplicas: 3, TargetCPUUtilizationPercentage: ptr.To[int32](80)}
		s.Ports = []webappv1.ContainerPort{{Name: "metrics", ContainerPort: 9090, Protocol: "TCP"}}
		s.Probes = &webappv1.Probes{Startup: &webappv1.Probe{Exec: &webappv1.ExecAction{Command: []string{"true"}}, PeriodSeconds: ptr.To[int32](10)}}
	})
	beta := toBeta(t, app)
	want(t, "carrier", beta.Annotations[webappv1.AlphaCarrierAnnotation],
		`{"written":["ports[metrics].protocol","probes.startup.periodSeconds","automountServiceAccountToken","strategy.maxSurge","strategy.maxUnavailable","minReadySeconds","progressDeadlineSeconds","revisionHistoryLimit","autoscaling.targetCPUUtilizationPercentage","disruptionBudget.maxUnavailable"]}`)
}

func TestConvertEmptyOptionalObjectsAreKept(t *testing.T) {
	app := alphaApp(func(s *webappv1.WebAppSpec) {
		s.Rollout = &webappv1.Rollout{FailureSeconds: ptr.To[int32](120)}
		s.DisruptionBudget = &webappv1.DisruptionBudget{Enabled: ptr.To(true)}
		s.Strategy = &webappv1.RolloutStrategy{}
		s.Lifecycle = &webappv1.Lifecycle{}
	})
	beta := toBeta(t, app)
	want(t, "carrier", beta.Annotations[webappv1.AlphaCarrierAnnotation], `{"written":["lifecycle","strategy","rollout","disruptionBudget"]}`)
	delete(beta.Annotations, webappv1.AlphaCarrierAnnotation)
	alpha := &webappv1.WebApp{}
	if err := alpha.ConvertFrom(beta); err != nil {
		t.Fatal(err)
	}
	want(t, "without the carrier, objects of default content are dropped", alpha.Spec, alphaApp(nil).Spec)
}

func TestConvertHealthCheckExpands(t *testing.T) {
	for _, port := range []*int32{nil, ptr.To[int32](9000)} {
		app := alphaApp(func(s *webappv1.WebAppSpec) { s.HealthCheck = &webappv1.HealthCheck{Path: "/healthz", Port: port} })
		beta := toBeta(t, app)
		var p *intstr.IntOrString
		if port != nil {
			p = ptr.To(intstr.FromInt32(*port))
		}
		get := &v1beta1.HTTPGetAction{Path: "/healthz", Port: p}
		want(t, "probes", beta.Spec.Container.Probes, &v1beta1.Probes{
			Readiness: &v1beta1.Probe{HTTPGet: get, PeriodSeconds: ptr.To[int32](5), FailureThreshold: ptr.To[int32](3),
				TimeoutSeconds: ptr.To[int32](1), SuccessThreshold: ptr.To[int32](1)},
			Liveness: &v1beta1.Probe{HTTPGet: get, InitialDelaySeconds: ptr.To[int32](10), PeriodSeconds: ptr.To[int32](10),
				FailureThreshold: ptr.To[int32](6), TimeoutSeconds: ptr.To[int32](1), SuccessThreshold: ptr.To[int32](1)},
		})
		want(t, "carrier", beta.Annotations[webappv1.AlphaCarrierAnnotation], `{"healthCheck":true}`)
		// Without the carrier the same probes come back as probes: and they render the pod the
		// shorthand renders.
		delete(beta.Annotations, webappv1.AlphaCarrierAnnotation)
		asProbes := &webappv1.WebApp{}
		if err := asProbes.ConvertFrom(beta); err != nil {
			t.Fatal(err)
		}
		if asProbes.Spec.HealthCheck != nil || asProbes.Spec.Probes == nil {
			t.Fatalf("want probes without the carrier, got %+v", asProbes.Spec)
		}
		want(t, "the containers rendered from the probes", appContainer(t, asProbes), appContainer(t, app))
	}
}

func appContainer(t *testing.T, app *webappv1.WebApp) any {
	t.Helper()
	hub, err := served.ToHub(app)
	if err != nil {
		t.Fatal(err)
	}
	desired, err := resources.Deployment.Desired(hub)
	if err != nil {
		t.Fatal(err)
	}
	d := desired.(*appsv1ac.DeploymentApplyConfiguration)
	c := d.Spec.Template.Spec.Containers[0]
	// Kubernetes defaults what is left unset, so the pod the API server stores is the same whether
	// a timing equal to its default is written out or not.
	timings := func(p *corev1ac.ProbeApplyConfiguration) []int32 {
		return []int32{ptr.Deref(p.InitialDelaySeconds, 0), ptr.Deref(p.PeriodSeconds, 10), ptr.Deref(p.TimeoutSeconds, 1),
			ptr.Deref(p.SuccessThreshold, 1), ptr.Deref(p.FailureThreshold, 3)}
	}
	return []any{c.ReadinessProbe.HTTPGet, timings(c.ReadinessProbe), c.LivenessProbe.HTTPGet, timings(c.LivenessProbe), c.StartupProbe}
}

func TestConvertHealthCheckEditedInV1beta1BecomesProbes(t *testing.T) {
	beta := toBeta(t, alphaApp(func(s *webappv1.WebAppSpec) { s.HealthCheck = &webappv1.HealthCheck{Path: "/healthz"} }))
	beta.Spec.Container.Probes.Readiness.PeriodSeconds = ptr.To[int32](7)
	alpha := &webappv1.WebApp{}
	if err := alpha.ConvertFrom(beta); err != nil {
		t.Fatal(err)
	}
	if alpha.Spec.HealthCheck != nil || alpha.Spec.Probes.Readiness.PeriodSeconds == nil || *alpha.Spec.Probes.Readiness.PeriodSeconds != 7 {
		t.Errorf("an edit made in v1beta1 must win over the healthCheck mark: %+v", alpha.Spec)
	}
}

func TestConvertPortsSplitAndJoin(t *testing.T) {
	app := alphaApp(func(s *webappv1.WebAppSpec) {
		s.Port = 3000
		s.Service = webappv1.ServiceSpec{Type: webappv1.ServiceTypeNodePort, Port: 8080, NodePort: ptr.To[int32](30080)}
		s.Ports = []webappv1.ContainerPort{{Name: "metrics", ContainerPort: 9090, ServicePort: ptr.To[int32](9100)},
			{Name: "dns", ContainerPort: 53, Protocol: "UDP"}}
	})
	beta := toBeta(t, app)
	want(t, "container ports", beta.Spec.Container.Ports, []v1beta1.ContainerPort{{Name: "http", ContainerPort: 3000, Protocol: "TCP"},
		{Name: "metrics", ContainerPort: 9090, Protocol: "TCP"}, {Name: "dns", ContainerPort: 53, Protocol: "UDP"}})
	want(t, "service", beta.Spec.Exposure.Service, v1beta1.Service{Type: v1beta1.ServiceTypeNodePort, Ports: []v1beta1.ServicePort{
		{Name: "http", Port: 8080, NodePort: ptr.To[int32](30080)}, {Name: "metrics", Port: 9100}}})
}

func betaApp() *v1beta1.WebApp {
	beta := &v1beta1.WebApp{}
	if err := alphaApp(nil).ConvertTo(beta); err != nil {
		panic(err)
	}
	return beta
}

func TestConvertWhatV1alpha1CannotSayTravelsInTheCarrier(t *testing.T) {
	beta := betaApp()
	beta.Spec.Container.Ports = append(beta.Spec.Container.Ports, v1beta1.ContainerPort{Name: "admin", ContainerPort: 9000, Protocol: "TCP"})
	beta.Spec.Exposure.Service = v1beta1.Service{Type: v1beta1.ServiceTypeNodePort, Ports: []v1beta1.ServicePort{
		{Name: "admin", Port: 9000, NodePort: ptr.To[int32](31000)}, {Name: "http", Port: 80}}}
	alpha := toAlpha(t, beta)
	want(t, "carrier", alpha.Annotations[webappv1.BetaCarrierAnnotation], `{"nodePorts":{"admin":31000},"servicePorts":["admin","http"]}`)
	want(t, "ports", alpha.Spec.Ports, []webappv1.ContainerPort{{Name: "admin", ContainerPort: 9000, ServicePort: ptr.To[int32](9000)}})
}

func TestConvertRolloutPolicies(t *testing.T) {
	for _, tt := range []struct {
		rollout   *webappv1.Rollout
		onConfig  bool
		onFailure v1beta1.RolloutFailurePolicy
		seconds   int32
		config    v1beta1.ConfigChangePolicy
	}{
		{nil, true, v1beta1.RolloutFailureReport, 120, v1beta1.ConfigChangeRollout},
		{&webappv1.Rollout{AutoRollback: true, FailureSeconds: ptr.To[int32](120)}, false, v1beta1.RolloutFailureRollback, 120, v1beta1.ConfigChangeIgnore},
		{&webappv1.Rollout{FailureSeconds: ptr.To[int32](60)}, true, v1beta1.RolloutFailureReport, 60, v1beta1.ConfigChangeRollout},
	} {
		beta := toBeta(t, alphaApp(func(s *webappv1.WebAppSpec) { s.Rollout, s.RolloutOnConfigChange = tt.rollout, ptr.To(tt.onConfig) }))
		r := beta.Spec.Rollout
		if r.OnFailure != tt.onFailure || *r.FailureSeconds != tt.seconds || r.OnConfigChange != tt.config {
			t.Errorf("%+v: got onFailure %s, failureSeconds %d, onConfigChange %s", tt.rollout, r.OnFailure, *r.FailureSeconds, r.OnConfigChange)
		}
	}
}

func TestConvertMaxUnavailableFollowsMaxSurge(t *testing.T) {
	beta := toBeta(t, alphaApp(func(s *webappv1.WebAppSpec) {
		s.Strategy = &webappv1.RolloutStrategy{MaxSurge: ptr.To(intstr.FromInt32(0))}
	}))
	want(t, "maxUnavailable with maxSurge 0: the Deployment's 25%", beta.Spec.Rollout.Strategy.RollingUpdate.MaxUnavailable, ptr.To(intstr.FromString("25%")))
}

func TestConvertAutoscalerTargets(t *testing.T) {
	beta := toBeta(t, alphaApp(func(s *webappv1.WebAppSpec) {
		s.Autoscaling = &webappv1.Autoscaling{MinReplicas: ptr.To[int32](2), MaxReplicas: 5, TargetMemoryUtilizationPercentage: ptr.To[int32](70)}
	}))
	want(t, "targets", beta.Spec.Scaling.Autoscaler.Targets, &v1beta1.AutoscalerTargets{MemoryUtilization: ptr.To[int32](70)})
	beta = toBeta(t, alphaApp(func(s *webappv1.WebAppSpec) { s.Autoscaling = &webappv1.Autoscaling{MaxReplicas: 5} }))
	want(t, "targets", beta.Spec.Scaling.Autoscaler.Targets, &v1beta1.AutoscalerTargets{CPUUtilization: ptr.To[int32](80)})
}

func TestConvertCarriers(t *testing.T) {
	t.Run("a carrier that does not parse is treated as absent", func(t *testing.T) {
		beta := toBeta(t, alphaApp(func(s *webappv1.WebAppSpec) { s.ProgressDeadlineSeconds = ptr.To[int32](600) }))
		beta.Annotations[webappv1.AlphaCarrierAnnotation] = "{not json"
		alpha := &webappv1.WebApp{}
		if err := alpha.ConvertFrom(beta); err != nil {
			t.Fatal(err)
		}
		want(t, "progressDeadlineSeconds", alpha.Spec.ProgressDeadlineSeconds, nil)
		want(t, "annotations", alpha.Annotations, nil)
	})
	t.Run("a version's carrier is removed when converting into that version", func(t *testing.T) {
		app := alphaApp(nil)
		app.Annotations = map[string]string{webappv1.AlphaCarrierAnnotation: `{"written":["minReadySeconds"]}`, "keep": "me"}
		beta := &v1beta1.WebApp{}
		if err := app.ConvertTo(beta); err != nil {
			t.Fatal(err)
		}
		want(t, "annotations", beta.Annotations, map[string]string{"keep": "me"})
	})
	t.Run("other annotations pass through", func(t *testing.T) {
		app := alphaApp(func(s *webappv1.WebAppSpec) { s.HealthCheck = &webappv1.HealthCheck{Path: "/"} })
		app.Annotations = map[string]string{"keep": "me"}
		beta := toBeta(t, app)
		want(t, "annotations", beta.Annotations, map[string]string{"keep": "me", webappv1.AlphaCarrierAnnotation: `{"healthCheck":true}`})
	})
}

func TestConvertStatusAsItIs(t *testing.T) {
	app := alphaApp(nil)
	app.Status = webappv1.WebAppStatus{ObservedGeneration: 3, Replicas: 2, URL: "http://shop.default.svc:80",
		Revisions:  []webappv1.Revision{{Revision: 2, Generation: 3, Image: "a", ReadyAt: metav1.Unix(1_700_000_000, 0)}},
		RolledBack: &webappv1.RollbackStatus{Generation: 4, Image: "b", Reason: "r", Message: "m", At: metav1.Unix(1_700_000_100, 0)},
		Conditions: []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Ready", LastTransitionTime: metav1.Unix(1_700_000_000, 0)}}}
	beta := toBeta(t, app)
	want(t, "status", beta.Status.RolledBack.Message, "m")
	want(t, "status", beta.Status.Conditions, app.Status.Conditions)
}
