package bundle_test

import (
	"slices"
	"testing"

	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/webapp-operator/webapp-operator/internal/webhook"
)

// TestCSVConvertsThroughOLMsWebhook: under OLM v0 the conversion webhook's Service, certificate and
// the CRD's conversion stanza are OLM's, made from the CSV's one ConversionWebhook definition. It
// must name the CRD, the operator's Deployment and the port and path the operator serves, and the
// bundle's CRD must already convert through a webhook: OLM's catalog operator applies that CRD as it
// is, before the CSV installs, and `strategy: None` between two schemas prunes data.
func TestCSVConvertsThroughOLMsWebhook(t *testing.T) {
	csv := loadCSV(t)
	defs := csv.Spec.WebhookDefinitions
	if len(defs) != 1 {
		t.Fatalf("want one webhook definition, got %d", len(defs))
	}
	d := defs[0]
	deploys := csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs
	if len(deploys) != 1 {
		t.Fatalf("want one Deployment, got %d", len(deploys))
	}
	switch {
	case d.Type != operatorsv1alpha1.ConversionWebhook:
		t.Errorf("type %s, want ConversionWebhook", d.Type)
	case !slices.Equal(d.ConversionCRDs, []string{webhook.CRDName}):
		t.Errorf("conversionCRDs %v, want [%s]", d.ConversionCRDs, webhook.CRDName)
	case d.DeploymentName != deploys[0].Name:
		t.Errorf("deploymentName %q, the CSV's Deployment is %q", d.DeploymentName, deploys[0].Name)
	case d.WebhookPath == nil || *d.WebhookPath != webhook.Path:
		t.Errorf("webhookPath %v, want %s", d.WebhookPath, webhook.Path)
	case d.TargetPort == nil || *d.TargetPort != intstr.FromInt32(webhook.DefaultPort):
		t.Errorf("targetPort %v, want %d, where the operator serves", d.TargetPort, webhook.DefaultPort)
	case d.ContainerPort != 443:
		t.Errorf("containerPort (the Service's port) %d, want 443", d.ContainerPort)
	case !slices.Equal(d.AdmissionReviewVersions, []string{"v1"}):
		t.Errorf("admissionReviewVersions %v, want [v1]", d.AdmissionReviewVersions)
	case d.SideEffects == nil || *d.SideEffects != admissionregistrationv1.SideEffectClassNone:
		t.Errorf("sideEffects %v, want None", d.SideEffects)
	}
	manager := deploys[0].Spec.Template.Spec.Containers[0]
	if !slices.ContainsFunc(manager.Ports, func(p corev1.ContainerPort) bool {
		return p.ContainerPort == webhook.DefaultPort
	}) {
		t.Errorf("the manager declares no port %d: %v", webhook.DefaultPort, manager.Ports)
	}

	conv := loadCRD(t).Spec.Conversion
	if conv == nil || conv.Strategy != apiextensionsv1.WebhookConverter || conv.Webhook == nil ||
		conv.Webhook.ClientConfig == nil || conv.Webhook.ClientConfig.Service == nil {
		t.Fatalf("the bundle's CRD does not convert through a webhook Service: %+v", conv)
	}
	svc := conv.Webhook.ClientConfig.Service
	// what OLM makes of the definition (createOrUpdateConversionWebhook): <deploymentName>-service
	if svc.Name != d.DeploymentName+"-service" || svc.Path == nil || *svc.Path != webhook.Path ||
		svc.Port == nil || *svc.Port != d.ContainerPort {
		t.Errorf("the CRD calls %s:%v%v, want OLM's Service %s-service:%d%s", svc.Name, svc.Port, svc.Path,
			d.DeploymentName, d.ContainerPort, webhook.Path)
	}
	if !slices.Equal(conv.Webhook.ConversionReviewVersions, d.AdmissionReviewVersions) {
		t.Errorf("the CRD's review versions %v differ from the definition's %v", conv.Webhook.ConversionReviewVersions,
			d.AdmissionReviewVersions)
	}
	if len(conv.Webhook.ClientConfig.CABundle) > 0 {
		t.Error("the bundle's CRD carries a caBundle: OLM sets its own")
	}
}
