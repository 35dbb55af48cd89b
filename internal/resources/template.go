package resources

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"

	"github.com/webapp-operator/webapp-operator/api/v1beta1"
)

// The Deployment's pod template is decided here, next to its rendering: rendered from the spec and
// the configuration, or kept as it runs. docs/design.md explains the upgrade policy and rollback.

const (
	// TemplateAnnotation, on the Deployment (not its pod template, which would roll the pods),
	// stamps the template with the inputs it was rendered from: "<inputs>/<fingerprint>".
	TemplateAnnotation = "webapp-operator.io/template"
	// RollbackAnnotation, on the Deployment, records a rollback (a v1beta1.RollbackStatus in JSON).
	// Written in the same apply as the old template, it travels with it: a pass that reads the
	// WebApp before its status write reaches the cache still sees it, and does not roll the failed
	// spec out again.
	RollbackAnnotation = "webapp-operator.io/rolled-back"
)

// TemplateSource says where the pod template of the Deployment to apply comes from.
type TemplateSource int

const (
	// TemplateRendered: rendered from the spec and the configuration.
	TemplateRendered TemplateSource = iota
	// TemplateHeld: the running one, which only this version of the operator renders otherwise;
	// the rendered one rolls out with the WebApp's next change (the upgrade policy).
	TemplateHeld
	// TemplatePinned: the running one, which a rollback of the WebApp's generation keeps.
	TemplatePinned
	// TemplateRolledBack: an earlier revision's, which this pass rolls back to (RollBack).
	TemplateRolledBack
)

// DeploymentInputs are what a WebApp's Deployment is decided from.
type DeploymentInputs struct {
	App *v1beta1.WebApp
	// Live is the WebApp's Deployment in the cluster; nil when there is none of the WebApp's.
	Live *appsv1.Deployment
	// ConfigRevision fingerprints the configuration the pods read (ConfigRevision); "" for none.
	ConfigRevision string
	// TemplateSpec is what the stamp fingerprints of App's spec (TemplateInputs): the caller's, since
	// it must stay what every stamp so far fingerprinted (served.TemplateSpec).
	TemplateSpec []byte
}

// DesiredDeployment renders the WebApp's Deployment and decides its pod template; the first that
// applies wins:
//   - a rollback of this generation is recorded on the live Deployment: its template stays (pinned);
//   - the live template's stamp names the same inputs and the template is still as stamped: the
//     rendered one differs only because the operator renders it otherwise, so the live one stays (held);
//   - else the rendered template, carrying the config revision, stamped with its inputs.
func DesiredDeployment(in DeploymentInputs) (*appsv1ac.DeploymentApplyConfiguration, TemplateSource, error) {
	d, err := renderDeployment(in.App)
	if err != nil {
		return nil, TemplateRendered, err
	}
	if RolledBackFor(in.App, in.Live) != nil {
		if pinned, err := keepLiveTemplate(d, in.Live); err != nil || pinned {
			return d, TemplatePinned, err
		}
	}
	if in.ConfigRevision != "" {
		d.Spec.Template.WithAnnotations(map[string]string{v1beta1.ConfigRevisionAnnotation: in.ConfigRevision})
	}
	if len(in.TemplateSpec) == 0 {
		return nil, TemplateRendered, errNoTemplateSpec
	}
	inputs := TemplateInputs(in.TemplateSpec, in.ConfigRevision)
	stamp, err := templateStamp(inputs, d.Spec.Template)
	if err != nil {
		return nil, TemplateRendered, err
	}
	if in.Live != nil {
		if held, err := holdTemplate(d, in.Live, inputs, stamp); err != nil || held {
			return d, TemplateHeld, err
		}
	}
	d.WithAnnotations(map[string]string{TemplateAnnotation: stamp})
	return d, TemplateRendered, nil
}

// errNoTemplateSpec: without it, every WebApp's stamp would name the same inputs.
var errNoTemplateSpec = errors.New("deciding the Deployment: no template spec to stamp it with")

// RollBack makes the decided Deployment d of a WebApp go back to template, an earlier ReplicaSet's,
// and record rollback with it. The template is stamped with the inputs it was rendered from (the
// WebApp's templateSpec and the template's configuration), so that the upgrade policy reads it like
// any other.
func RollBack(d *appsv1ac.DeploymentApplyConfiguration, templateSpec []byte, template *corev1.PodTemplateSpec,
	rollback v1beta1.RollbackStatus) error {
	if len(templateSpec) == 0 {
		return errNoTemplateSpec
	}
	t, err := templateOf(template)
	if err != nil {
		return err
	}
	record, err := json.Marshal(rollback)
	if err != nil {
		return err
	}
	inputs := TemplateInputs(templateSpec, template.Annotations[v1beta1.ConfigRevisionAnnotation])
	d.Spec.Template = t
	d.WithAnnotations(map[string]string{RollbackAnnotation: string(record)})
	return StampTemplate(d, inputs)
}

// StampTemplate stamps d's template as rendered from inputs (TemplateInputs).
func StampTemplate(d *appsv1ac.DeploymentApplyConfiguration, inputs string) error {
	stamp, err := templateStamp(inputs, d.Spec.Template)
	if err == nil {
		d.WithAnnotations(map[string]string{TemplateAnnotation: stamp})
	}
	return err
}

// RolledBackFor returns the rollback that the Deployment d records for app's current generation,
// or nil: a change of the spec ends it.
func RolledBackFor(app *v1beta1.WebApp, d *appsv1.Deployment) *v1beta1.RollbackStatus {
	if d == nil || d.Annotations[RollbackAnnotation] == "" {
		return nil
	}
	rb := &v1beta1.RollbackStatus{}
	if err := json.Unmarshal([]byte(d.Annotations[RollbackAnnotation]), rb); err != nil || rb.Generation != app.Generation {
		return nil
	}
	return rb
}

// TemplateInputs names what a WebApp's pod template is rendered from: a fingerprint of templateSpec,
// its spec without the fields that do not feed the pod template (served.TemplateSpec), and of the
// configuration its pods read. Changing the replicas, the Service or a route changes no input: the
// template is not rewritten for them, nor does a template that a newer operator renders roll out
// with them.
func TemplateInputs(templateSpec []byte, configRevision string) string {
	sum := sha256.Sum256(append(slices.Clip(templateSpec), configRevision...))
	return hex.EncodeToString(sum[:])[:16]
}

// keepLiveTemplate gives d the template our field manager owns on live, with its stamp and rollback
// record. It reports false when live has no such template.
func keepLiveTemplate(d *appsv1ac.DeploymentApplyConfiguration, live *appsv1.Deployment) (bool, error) {
	if Trimmed(live) {
		return false, ErrLiveTemplateNeeded
	}
	owned, err := appsv1ac.ExtractDeployment(live, FieldOwner)
	if err != nil || owned.Spec == nil || owned.Spec.Template == nil {
		return false, err
	}
	d.Spec.Template = owned.Spec.Template
	d.WithAnnotations(map[string]string{RollbackAnnotation: live.Annotations[RollbackAnnotation]})
	if stamp := live.Annotations[TemplateAnnotation]; stamp != "" {
		d.WithAnnotations(map[string]string{TemplateAnnotation: stamp})
	}
	return true, nil
}

// holdTemplate gives d live's template and stamp when only the operator renders it otherwise; stamp
// is d's own. A Deployment without a stamp (whose annotations someone replaced) is not held: nothing
// says that its template is still the operator's, and a drifted one must be put back.
func holdTemplate(d *appsv1ac.DeploymentApplyConfiguration, live *appsv1.Deployment, inputs, stamp string) (bool, error) {
	// Only a stamp of the same inputs and another template can hold: checked first, so that a pass
	// over an up-to-date Deployment does not extract its fields.
	liveStamp := live.Annotations[TemplateAnnotation]
	if liveStamp == stamp || !strings.HasPrefix(liveStamp, inputs+"/") {
		return false, nil
	}
	if Trimmed(live) {
		return false, ErrLiveTemplateNeeded
	}
	owned, err := appsv1ac.ExtractDeployment(live, FieldOwner)
	if err != nil || owned.Spec == nil || owned.Spec.Template == nil {
		return false, err
	}
	ownedStamp, err := templateStamp(inputs, owned.Spec.Template)
	if err != nil || ownedStamp == stamp || liveStamp != ownedStamp {
		return false, err // the same template; or one changed since it was stamped
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

// templateOf converts a live pod template (a ReplicaSet's) to the apply configuration of a
// Deployment's template, without the pod-template-hash label the Deployment controller adds.
func templateOf(t *corev1.PodTemplateSpec) (*corev1ac.PodTemplateSpecApplyConfiguration, error) {
	t = t.DeepCopy()
	delete(t.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
	out := &corev1ac.PodTemplateSpecApplyConfiguration{}
	if err := convert(t, out); err != nil {
		return nil, fmt.Errorf("converting a ReplicaSet's pod template: %w", err)
	}
	return out, nil
}
