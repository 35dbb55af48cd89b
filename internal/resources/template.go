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

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
)

// The upgrade policy: a new version of the operator that renders a different pod template (a new
// default, a new annotation) must not restart every WebApp of the cluster at once. A Deployment's
// template is stamped with the inputs it was rendered from (the WebApp's spec, less what does not
// feed the template, and the configuration its pods read) and its fingerprint. When a pass finds the inputs unchanged and the
// template as stamped (nobody changed it since), yet renders another one, the difference can only
// come from the operator: the running template stays until the WebApp next changes, and then the
// new one rolls out with that change. A template that was changed by someone else is still put back.

// TemplateAnnotation, on the Deployment (not its pod template, which would roll the pods), is the
// stamp: "<inputs>/<fingerprint>".
const TemplateAnnotation = "webapp-operator.io/template"

// TemplateInputs names what app's pod template is rendered from: a fingerprint of its spec without
// the fields that do not feed the pod template (notTemplateFields), and of the configuration its
// pods read (ConfigRevision). Changing the replicas, the Service or a route changes no input: the
// Deployment is not rewritten for them, nor does a template that a newer operator renders roll out
// with them.
func TemplateInputs(app *webappv1.WebApp, configRevision string) (string, error) {
	spec := app.Spec.DeepCopy()
	notTemplateFields(spec)
	data, err := json.Marshal(spec)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(append(data, configRevision...))
	return hex.EncodeToString(sum[:])[:16], nil
}

// notTemplateFields clears the fields of spec that the pod template is not rendered from
// (TestNotTemplateFieldsDoNotChangeThePodTemplate holds this list against the renderer).
func notTemplateFields(spec *webappv1.WebAppSpec) {
	spec.Replicas, spec.Service, spec.MinReadySeconds, spec.Strategy = nil, webappv1.ServiceSpec{}, nil, nil
	spec.Paused, spec.Rollout, spec.RevisionHistoryLimit, spec.ProgressDeadlineSeconds = false, nil, nil, nil
	spec.DisruptionBudget, spec.Autoscaling, spec.NetworkPolicy = nil, nil, nil
	spec.Ingress, spec.Route, spec.Metrics = nil, nil, nil
}

// StampTemplate records in the rendered Deployment desired that its template comes from inputs.
func StampTemplate(desired runtime.ApplyConfiguration, inputs string) error {
	_, err := TemplateFor(desired, nil, inputs)
	return err
}

// TemplateFor decides the pod template of the rendered Deployment desired against live (nil when
// there is none of ours) and stamps it. It keeps live's pod template (the fields our field manager
// owns) and stamp when the difference between them can only be the operator's: live's stamp names
// the same inputs, and its template is still the one stamped. A Deployment without a stamp (made by
// a version before this policy, or whose annotations someone replaced) is not held: nothing says
// that its template is still the operator's, and a drifted one must be put back. Otherwise desired
// keeps its own template, stamped with inputs. It reports whether it held live's template.
func TemplateFor(desired runtime.ApplyConfiguration, live *appsv1.Deployment, inputs string) (bool, error) {
	d, err := renderedDeployment(desired)
	if err != nil {
		return false, err
	}
	stamp, err := templateStamp(inputs, d.Spec.Template)
	if err != nil {
		return false, err
	}
	held := false
	if live != nil {
		if held, err = holdTemplate(d, live, inputs, stamp); err != nil {
			return false, err
		}
	}
	if !held {
		d.WithAnnotations(map[string]string{TemplateAnnotation: stamp})
	}
	return held, nil
}

// holdTemplate gives d live's template and stamp when only the operator renders it otherwise (see
// TemplateFor); stamp is d's own.
func holdTemplate(d *appsv1ac.DeploymentApplyConfiguration, live *appsv1.Deployment, inputs, stamp string) (bool, error) {
	// Only a stamp of the same inputs and another template can hold: checked first, so that a pass
	// over an up-to-date Deployment (stamped as desired) does not extract its fields a second time.
	liveStamp := live.Annotations[TemplateAnnotation]
	if liveStamp == stamp || !strings.HasPrefix(liveStamp, inputs+"/") {
		return false, nil
	}
	owned, err := appsv1ac.ExtractDeployment(live, FieldOwner)
	if err != nil || owned.Spec == nil || owned.Spec.Template == nil {
		return false, err
	}
	ownedStamp, err := templateStamp(inputs, owned.Spec.Template)
	if err != nil || ownedStamp == stamp || liveStamp != ownedStamp {
		return false, err // the same template; other inputs, a template changed since, or no stamp
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
