package webhook

import (
	"encoding/json"
	"fmt"
	"net/http"

	apix "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/conversion"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
)

// ConversionHandler serves the WebApp's ConversionReviews. A WebApp that decodes into its version's
// Go type converts through the hub (api/v1alpha1's ConvertTo and ConvertFrom). One that does not,
// which only a looser CRD of an earlier release could have admitted, converts too: the API server
// converts a list or a watch as a whole, so one failed object would fail every reader of every
// WebApp, the operator's cache and the storage migration first. Its spec travels as written in
// webappv1.UndecodableAnnotation and comes back from it in its own version; in another version the
// spec is empty, and the operator reports the WebApp Stalled, naming the field
// (served.Undecodable).
func ConversionHandler(scheme *runtime.Scheme) http.Handler { return &converter{scheme: scheme} }

type converter struct{ scheme *runtime.Scheme }

func (c *converter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	review := &apix.ConversionReview{}
	if err := json.NewDecoder(r.Body).Decode(review); err != nil || review.Request == nil {
		http.Error(w, "a ConversionReview with a request is expected", http.StatusBadRequest)
		return
	}
	req := review.Request
	resp := &apix.ConversionResponse{UID: req.UID, Result: metav1.Status{Status: metav1.StatusSuccess}}
	for _, obj := range req.Objects {
		out, err := c.convert(obj.Raw, req.DesiredAPIVersion)
		if err != nil {
			log.Error(err, "Converting a WebApp", "desiredAPIVersion", req.DesiredAPIVersion)
			resp = &apix.ConversionResponse{UID: req.UID,
				Result: metav1.Status{Status: metav1.StatusFailure, Message: err.Error()}}
			break
		}
		resp.ConvertedObjects = append(resp.ConvertedObjects, runtime.RawExtension{Raw: out})
	}
	review.Request, review.Response = nil, resp
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(review); err != nil {
		log.Error(err, "Writing a ConversionReview response")
	}
}

// convert converts one object, as JSON, to the desired apiVersion.
func (c *converter) convert(raw []byte, desired string) ([]byte, error) {
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(raw); err != nil {
		return nil, err
	}
	if u.GetAPIVersion() == desired {
		return raw, nil
	}
	if kept, ok := undecodableSpec(u); ok {
		return moveUndecodable(u, kept, desired)
	}
	out, err := c.convertTyped(raw, u.GroupVersionKind(), desired)
	if err != nil {
		log.Info("A WebApp that does not convert through the Go types keeps its spec in an annotation",
			"namespace", u.GetNamespace(), "name", u.GetName(), "error", err.Error())
		return keepUndecodable(u, desired)
	}
	return out, nil
}

// convertTyped converts through the hub.
func (c *converter) convertTyped(raw []byte, gvk schema.GroupVersionKind, desired string) ([]byte, error) {
	gv, err := schema.ParseGroupVersion(desired)
	if err != nil {
		return nil, err
	}
	src, err := c.scheme.New(gvk)
	if err != nil {
		return nil, err
	}
	dst, err := c.scheme.New(gv.WithKind(gvk.Kind))
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(raw, src); err != nil {
		return nil, err
	}
	if err := throughHub(c.scheme, src, dst); err != nil {
		return nil, err
	}
	dst.GetObjectKind().SetGroupVersionKind(gv.WithKind(gvk.Kind))
	return json.Marshal(dst)
}

// throughHub converts src to dst, one of them the hub or both spokes of it.
func throughHub(scheme *runtime.Scheme, src, dst runtime.Object) error {
	s, srcSpoke := src.(conversion.Convertible)
	d, dstSpoke := dst.(conversion.Convertible)
	srcHub, srcIsHub := src.(conversion.Hub)
	dstHub, dstIsHub := dst.(conversion.Hub)
	switch {
	case srcSpoke && dstIsHub:
		return s.ConvertTo(dstHub)
	case srcIsHub && dstSpoke:
		return d.ConvertFrom(srcHub)
	case srcSpoke && dstSpoke:
		hub, err := hubOf(scheme, src)
		if err != nil {
			return err
		}
		if err := s.ConvertTo(hub); err != nil {
			return err
		}
		return d.ConvertFrom(hub)
	}
	return fmt.Errorf("no conversion from %T to %T", src, dst)
}

// hubOf is a new object of the hub of obj's kind.
func hubOf(scheme *runtime.Scheme, obj runtime.Object) (conversion.Hub, error) {
	gvks, _, err := scheme.ObjectKinds(obj)
	if err != nil {
		return nil, err
	}
	for gvk := range scheme.AllKnownTypes() {
		if gvk.GroupKind() != gvks[0].GroupKind() {
			continue
		}
		o, err := scheme.New(gvk)
		if err != nil {
			return nil, err
		}
		if h, ok := o.(conversion.Hub); ok {
			return h, nil
		}
	}
	return nil, fmt.Errorf("no hub for %v", gvks[0].GroupKind())
}

// undecodable is what webappv1.UndecodableAnnotation holds: the spec as written, in its version.
type undecodable struct {
	APIVersion string `json:"apiVersion"`
	Spec       any    `json:"spec"`
}

// undecodableSpec is what u's annotation holds, when it holds one that parses.
func undecodableSpec(u *unstructured.Unstructured) (undecodable, bool) {
	var kept undecodable
	raw, ok := u.GetAnnotations()[webappv1.UndecodableAnnotation]
	if !ok || json.Unmarshal([]byte(raw), &kept) != nil || kept.APIVersion == "" {
		return undecodable{}, false
	}
	return kept, true
}

// keepUndecodable is u in the desired version with an empty spec, its own spec in the annotation.
func keepUndecodable(u *unstructured.Unstructured, desired string) ([]byte, error) {
	b, err := json.Marshal(undecodable{APIVersion: u.GetAPIVersion(), Spec: u.Object["spec"]})
	if err != nil {
		return nil, err
	}
	annotations := u.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[webappv1.UndecodableAnnotation] = string(b)
	u.SetAnnotations(annotations)
	u.Object["spec"] = map[string]any{}
	u.SetAPIVersion(desired)
	return u.MarshalJSON()
}

// moveUndecodable is u in the desired version: the spec as written back when that is the version
// it was written in, else still empty, the annotation kept.
func moveUndecodable(u *unstructured.Unstructured, kept undecodable, desired string) ([]byte, error) {
	u.SetAPIVersion(desired)
	if kept.APIVersion != desired {
		u.Object["spec"] = map[string]any{}
		return u.MarshalJSON()
	}
	u.Object["spec"] = kept.Spec
	annotations := u.GetAnnotations()
	delete(annotations, webappv1.UndecodableAnnotation)
	if len(annotations) == 0 {
		annotations = nil
	}
	u.SetAnnotations(annotations)
	return u.MarshalJSON()
}
