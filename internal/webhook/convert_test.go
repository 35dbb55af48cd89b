package webhook

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
	apix "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/api/v1beta1"
)

const (
	alphaVersion = "apps.webapp-operator.io/v1alpha1"
	betaVersion  = "apps.webapp-operator.io/v1beta1"
)

func conversionScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := webappv1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := v1beta1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

// review sends objs to the handler for desired and returns the response.
func review(t *testing.T, desired string, objs ...map[string]any) *apix.ConversionResponse {
	t.Helper()
	req := &apix.ConversionReview{TypeMeta: metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "ConversionReview"},
		Request: &apix.ConversionRequest{UID: "uid", DesiredAPIVersion: desired}}
	for _, o := range objs {
		raw, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		req.Request.Objects = append(req.Request.Objects, runtime.RawExtension{Raw: raw})
	}
	body, _ := json.Marshal(req)
	rec := httptest.NewRecorder()
	ConversionHandler(conversionScheme(t)).ServeHTTP(rec, httptest.NewRequest(http.MethodPost, Path, bytes.NewReader(body)))
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	out := &apix.ConversionReview{}
	if err := json.Unmarshal(rec.Body.Bytes(), out); err != nil {
		t.Fatal(err)
	}
	if out.Response == nil || out.Response.UID != "uid" {
		t.Fatalf("response %+v", out.Response)
	}
	return out.Response
}

func objects(t *testing.T, resp *apix.ConversionResponse) []map[string]any {
	t.Helper()
	if resp.Result.Status != metav1.StatusSuccess {
		t.Fatalf("conversion failed: %s", resp.Result.Message)
	}
	out := make([]map[string]any, 0, len(resp.ConvertedObjects))
	for _, o := range resp.ConvertedObjects {
		m := map[string]any{}
		if err := json.Unmarshal(o.Raw, &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

func alphaApp(name string, spec map[string]any) map[string]any {
	return map[string]any{"apiVersion": alphaVersion, "kind": "WebApp",
		"metadata": map[string]any{"name": name, "namespace": "shop", "annotations": map[string]any{"team": "a"}},
		"spec":     spec, "status": map[string]any{"replicas": float64(2)}}
}

// A WebApp that decodes converts as ConvertTo does.
func TestConvertThroughTheHub(t *testing.T) {
	in := alphaApp("good", map[string]any{"image": "shop:1", "replicas": float64(2)})
	got := objects(t, review(t, betaVersion, in))[0]
	raw, _ := json.Marshal(in)
	alpha := &webappv1.WebApp{}
	if err := json.Unmarshal(raw, alpha); err != nil {
		t.Fatal(err)
	}
	want := &v1beta1.WebApp{}
	if err := alpha.ConvertTo(want); err != nil {
		t.Fatal(err)
	}
	want.APIVersion, want.Kind = betaVersion, "WebApp"
	wantRaw, _ := json.Marshal(want)
	wantMap := map[string]any{}
	_ = json.Unmarshal(wantRaw, &wantMap)
	if diff := cmp.Diff(wantMap, got); diff != "" {
		t.Errorf("(-ConvertTo +webhook):\n%s", diff)
	}
}

// A WebApp that does not decode (a quantity a looser CRD admitted) does not fail the review, and
// so the list it is part of: in v1beta1 its spec is empty and kept in the annotation, and it comes
// back in v1alpha1 exactly as written.
func TestConvertKeepsWhatDoesNotDecode(t *testing.T) {
	bad := alphaApp("bad", map[string]any{"image": "shop:1", "resources": map[string]any{"limits": map[string]any{"cpu": "lots"}}})
	good := alphaApp("good", map[string]any{"image": "shop:1"})
	beta := objects(t, review(t, betaVersion, bad, good))
	if len(beta) != 2 || beta[1]["apiVersion"] != betaVersion {
		t.Fatalf("converted %v", beta)
	}
	if diff := cmp.Diff(map[string]any{}, beta[0]["spec"]); diff != "" {
		t.Errorf("v1beta1 spec of the undecodable WebApp (-want +got):\n%s", diff)
	}
	annotations := beta[0]["metadata"].(map[string]any)["annotations"].(map[string]any)
	if annotations["team"] != "a" || annotations[webappv1.UndecodableAnnotation] == nil {
		t.Errorf("annotations %v", annotations)
	}
	if diff := cmp.Diff(bad["status"], beta[0]["status"]); diff != "" {
		t.Errorf("status (-want +got):\n%s", diff)
	}

	back := objects(t, review(t, alphaVersion, beta[0]))[0]
	if diff := cmp.Diff(bad, back); diff != "" {
		t.Errorf("back in v1alpha1 (-as written +got):\n%s", diff)
	}
}

// An annotation that does not parse (a CRD cannot refuse one) is not taken for the webhook's.
func TestConvertIgnoresAnAnnotationThatDoesNotParse(t *testing.T) {
	in := alphaApp("good", map[string]any{"image": "shop:1"})
	in["metadata"].(map[string]any)["annotations"] = map[string]any{webappv1.UndecodableAnnotation: "{"}
	got := objects(t, review(t, betaVersion, in))[0]
	image := got["spec"].(map[string]any)["container"].(map[string]any)["image"]
	if image != "shop:1" {
		t.Errorf("converted %v", got["spec"])
	}
}

func TestConvertRefusesWhatIsNotAReview(t *testing.T) {
	rec := httptest.NewRecorder()
	ConversionHandler(conversionScheme(t)).ServeHTTP(rec, httptest.NewRequest(http.MethodPost, Path, bytes.NewReader([]byte("{}"))))
	if rec.Code != http.StatusBadRequest {
		t.Errorf("status %d", rec.Code)
	}
}
