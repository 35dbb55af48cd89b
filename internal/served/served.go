// Package served is the one place that knows which version of the WebApp API the operator lists,
// watches and writes the status of, and how a WebApp of that version becomes the hub, api/v1beta1,
// which everything else reads: the reconciler, the renderer (package resources), status and metrics
// (docs/design.md, "One internal version"). That version is v1beta1, the stored one, so that the
// operator's own reads need no conversion once objects are migrated.
package served

import (
	"encoding/json"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/api/v1beta1"
)

// GroupVersion is the version of WebApp the operator lists, watches and writes the status of.
var GroupVersion = v1beta1.GroupVersion

// AddToScheme adds the served version's types to a scheme. The operator's scheme also knows
// v1alpha1, for the conversion webhook.
var AddToScheme = v1beta1.AddToScheme

// Kind is the WebApp's kind.
const Kind = "WebApp"

// OwnerAPIVersion is the apiVersion by which the children name their WebApp in their owner
// references. The garbage collector needs a version the API server serves, and a change of it
// rewrites the owner references of every child once: so it stays v1alpha1, which every child of an
// earlier release names, for as long as v1alpha1 is served.
var OwnerAPIVersion = webappv1.GroupVersion.String()

// SpecType is the Go type of the served version's spec: the field of a WebApp that does not decode
// is found along it.
var SpecType = reflect.TypeFor[v1beta1.WebAppSpec]()

// Undecodable returns, for a WebApp that did not convert through the Go types (the conversion
// webhook kept its spec as written in webappv1.UndecodableAnnotation, and served it with an empty
// spec), that spec, the apiVersion it was written in and the Go type of that version's spec.
func Undecodable(obj map[string]any) (spec any, apiVersion string, specType reflect.Type, ok bool) {
	u := unstructured.Unstructured{Object: obj}
	raw, found := u.GetAnnotations()[webappv1.UndecodableAnnotation]
	var kept struct {
		APIVersion string `json:"apiVersion"`
		Spec       any    `json:"spec"`
	}
	if !found || json.Unmarshal([]byte(raw), &kept) != nil {
		return nil, "", nil, false
	}
	switch kept.APIVersion {
	case webappv1.GroupVersion.String():
		specType = reflect.TypeFor[webappv1.WebAppSpec]()
	case v1beta1.GroupVersion.String():
		specType = reflect.TypeFor[v1beta1.WebAppSpec]()
	default:
		return nil, "", nil, false
	}
	return kept.Spec, kept.APIVersion, specType, true
}

// Decode decodes obj, a WebApp of GroupVersion as the API server sends it, and makes it the hub the
// renderer reads: the API server has filled in every default v1beta1 declares, and the renderer
// must render only those the app wrote (ToHub). The v1alpha1 form says which: the conversion keeps
// a default the app wrote and drops one it did not (its carrier notes which).
func Decode(obj map[string]any) (*v1beta1.WebApp, error) {
	app := &v1beta1.WebApp{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, app); err != nil {
		return nil, err
	}
	alpha := &webappv1.WebApp{}
	if err := alpha.ConvertFrom(app); err != nil {
		return nil, err
	}
	return ToHub(alpha)
}

// ToHub converts app to the hub with its ConvertTo, then unsets again each default that only
// v1beta1 declares, that app left unset, and that the renderer would render once set
// (leaveUnset). The renderer owns a field it sets and leaves an unset one to Kubernetes, as it did
// when it read v1alpha1: so every WebApp renders exactly as before, and no field changes hands.
// The hub keeps the carrier annotation ConvertTo writes, which TemplateSpec reads; the renderer
// copies no WebApp metadata into its children.
func ToHub(app *webappv1.WebApp) (*v1beta1.WebApp, error) {
	hub := &v1beta1.WebApp{}
	if err := app.ConvertTo(hub); err != nil {
		return nil, err
	}
	hub.TypeMeta = metav1.TypeMeta{APIVersion: v1beta1.GroupVersion.String(), Kind: Kind}
	leaveUnset(&app.Spec, &hub.Spec)
	return hub, nil
}

// leaveUnset unsets in hub what ConvertTo filled in from v1beta1's defaults where alpha says
// nothing: the Deployment's timings and rolling update, and the probes' timings (the healthCheck
// shorthand renders neither a timeout nor a success threshold).
func leaveUnset(alpha *webappv1.WebAppSpec, hub *v1beta1.WebAppSpec) {
	r := &hub.Rollout
	unsetIfNil(alpha.MinReadySeconds, &r.MinReadySeconds)
	unsetIfNil(alpha.ProgressDeadlineSeconds, &r.ProgressDeadlineSeconds)
	unsetIfNil(alpha.RevisionHistoryLimit, &r.RevisionHistoryLimit)
	if r.Strategy != nil && r.Strategy.RollingUpdate != nil {
		s := ptr.Deref(alpha.Strategy, webappv1.RolloutStrategy{})
		unsetIfNil(s.MaxSurge, &r.Strategy.RollingUpdate.MaxSurge)
		unsetIfNil(s.MaxUnavailable, &r.Strategy.RollingUpdate.MaxUnavailable)
	}
	p := hub.Container.Probes
	switch {
	case p == nil:
	case alpha.HealthCheck != nil:
		for _, q := range []*v1beta1.Probe{p.Readiness, p.Liveness} {
			if q != nil {
				q.TimeoutSeconds, q.SuccessThreshold = nil, nil
			}
		}
	case alpha.Probes != nil:
		leaveProbeUnset(alpha.Probes.Readiness, p.Readiness)
		leaveProbeUnset(alpha.Probes.Liveness, p.Liveness)
		leaveProbeUnset(alpha.Probes.Startup, p.Startup)
	}
}

func leaveProbeUnset(alpha *webappv1.Probe, hub *v1beta1.Probe) {
	if alpha == nil || hub == nil {
		return
	}
	unsetIfNil(alpha.PeriodSeconds, &hub.PeriodSeconds)
	unsetIfNil(alpha.TimeoutSeconds, &hub.TimeoutSeconds)
	unsetIfNil(alpha.SuccessThreshold, &hub.SuccessThreshold)
	unsetIfNil(alpha.FailureThreshold, &hub.FailureThreshold)
}

func unsetIfNil[A, B any](alpha *A, hub **B) {
	if alpha == nil {
		*hub = nil
	}
}

// TemplateSpec is what the upgrade policy fingerprints of app's spec (resources.TemplateInputs): its
// v1alpha1 form, without the fields the pod template is not rendered from, in JSON. Every Deployment
// the operator has stamped was stamped with a fingerprint of exactly that, and a stamp of other inputs
// does not hold a template (docs/design.md, "stamp and hold"): so it stays the v1alpha1 form. For a
// WebApp as the API server serves it, defaults applied, the conversion back gives the very spec the
// hub came from (TestTemplateSpecIsWhatTheStampAlwaysFingerprinted); one built in Go without
// rolloutOnConfigChange comes back with its default, true.
func TemplateSpec(app *v1beta1.WebApp) ([]byte, error) {
	alpha := &webappv1.WebApp{}
	if err := alpha.ConvertFrom(app); err != nil {
		return nil, err
	}
	notTemplateFields(&alpha.Spec)
	return json.Marshal(alpha.Spec)
}

// notTemplateFields clears the fields of spec that the pod template is not rendered from
// (TestNotTemplateFieldsDoNotChangeThePodTemplate holds this list against the renderer).
func notTemplateFields(spec *webappv1.WebAppSpec) {
	spec.Replicas, spec.Service, spec.MinReadySeconds, spec.Strategy = nil, webappv1.ServiceSpec{}, nil, nil
	spec.Paused, spec.Rollout, spec.RevisionHistoryLimit, spec.ProgressDeadlineSeconds = false, nil, nil, nil
	spec.DisruptionBudget, spec.Autoscaling, spec.NetworkPolicy = nil, nil, nil
	spec.Ingress, spec.Route, spec.Metrics = nil, nil, nil
}

// Object is an object of the served version that stands for app, with its identity alone, where the
// version matters: its status is patched through it, and events name it.
func Object(app metav1.Object) client.Object {
	return &v1beta1.WebApp{
		TypeMeta: metav1.TypeMeta{APIVersion: GroupVersion.String(), Kind: Kind},
		ObjectMeta: metav1.ObjectMeta{Name: app.GetName(), Namespace: app.GetNamespace(), UID: app.GetUID(),
			ResourceVersion: app.GetResourceVersion()},
	}
}
