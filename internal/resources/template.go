package resources

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
)

// The upgrade policy: a new version of the operator that renders a different pod template (a new
// default, a new annotation) must not restart every WebApp of the cluster at once. A Deployment's
// template is stamped with the inputs it was rendered from (the WebApp's generation and the
// configuration it reads) and its fingerprint. When a pass finds the inputs unchanged and the
// template as stamped (nobody changed it since), yet renders another one, the difference can only
// come from the operator: the running template stays until the WebApp next changes, and then the
// new one rolls out with that change. A template that was changed by someone else is still put back.

// TemplateAnnotation, on the Deployment (not its pod template, which would roll the pods), is the
// stamp: "<inputs>/<fingerprint>".
const TemplateAnnotation = "webapp-operator.io/template"

// TemplateInputs names what a WebApp's pod template is rendered from: its generation and the
// fingerprint of the configuration its pods read (ConfigRevision).
func TemplateInputs(generation int64, configRevision string) string {
	return fmt.Sprintf("%d.%s", generation, configRevision)
}

// StampTemplate records in the rendered Deployment desired that its template comes from inputs.
func StampTemplate(desired runtime.ApplyConfiguration, inputs string) error {
	d, err := renderedDeployment(desired)
	if err != nil {
		return err
	}
	stamp, err := templateStamp(inputs, d.Spec.Template)
	if err != nil {
		return err
	}
	d.WithAnnotations(map[string]string{TemplateAnnotation: stamp})
	return nil
}

// HoldTemplate keeps live's pod template (the fields our field manager owns) and stamp in desired
// when the difference between them can only be the operator's: live's stamp names the same inputs,
// and its template is still the one stamped. A Deployment stamped by no operator (made by a version
// before this policy) counts as unchanged since it was made, and gets a stamp. It reports whether
// it held the template; desired is left alone when it did not.
func HoldTemplate(desired runtime.ApplyConfiguration, live *appsv1.Deployment, inputs string) (bool, error) {
	d, err := renderedDeployment(desired)
	if err != nil {
		return false, err
	}
	owned, err := appsv1ac.ExtractDeployment(live, FieldOwner)
	if err != nil || owned.Spec == nil || owned.Spec.Template == nil {
		return false, err
	}
	ownedStamp, err := templateStamp(inputs, owned.Spec.Template)
	if err != nil {
		return false, err
	}
	desiredStamp, err := templateStamp(inputs, d.Spec.Template)
	if err != nil || desiredStamp == ownedStamp {
		return false, err
	}
	stamp, found := live.Annotations[TemplateAnnotation]
	if found && stamp != ownedStamp {
		return false, nil // other inputs (a change of the WebApp), or a template changed since
	}
	d.Spec.Template = owned.Spec.Template
	d.WithAnnotations(map[string]string{TemplateAnnotation: ownedStamp})
	return true, nil
}

func templateStamp(inputs string, t *corev1ac.PodTemplateSpecApplyConfiguration) (string, error) {
	data, err := json.Marshal(t)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return inputs + "/" + hex.EncodeToString(sum[:])[:16], nil
}

func renderedDeployment(desired runtime.ApplyConfiguration) (*appsv1ac.DeploymentApplyConfiguration, error) {
	d, ok := desired.(*appsv1ac.DeploymentApplyConfiguration)
	if !ok || d.Spec == nil || d.Spec.Template == nil {
		return nil, fmt.Errorf("not a rendered Deployment: %T", desired)
	}
	return d, nil
}

// TemplateInputsOf returns the inputs of live's stamp, or "".
func TemplateInputsOf(live *appsv1.Deployment) string {
	inputs, _, _ := strings.Cut(live.Annotations[TemplateAnnotation], "/")
	return inputs
}
