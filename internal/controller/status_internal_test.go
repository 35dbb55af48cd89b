package controller

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/api/v1beta1"
)

// The status write is the request the operator sent when it read v1alpha1, to the version it serves
// now: one merge patch of what changed in the status (the same bytes: the status has the same shape
// in both versions), to the status subresource of the v1beta1 WebApp, with no option; and no request
// when nothing changed.
func TestWriteStatusSendsWhatChangedInTheStatus(t *testing.T) {
	t0 := metav1.NewTime(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC))
	cond := func(typ string, st metav1.ConditionStatus, reason string) metav1.Condition {
		return metav1.Condition{Type: typ, Status: st, Reason: reason, Message: reason + " message", LastTransitionTime: t0, ObservedGeneration: 3}
	}
	rev := v1beta1.Revision{Revision: 2, Generation: 3, Image: "shop:2", ConfigRevision: "0123456789abcdef", ReadyAt: t0}
	ready := v1beta1.WebAppStatus{ObservedGeneration: 3, Replicas: 2, ReadyReplicas: 2, AvailableReplicas: 2, UpdatedReplicas: 2,
		Selector: "app.kubernetes.io/instance=shop,app.kubernetes.io/name=webapp", URL: "http://shop.a.svc:80",
		Revisions: []v1beta1.Revision{rev}, ConfigRevision: "0123456789abcdef", Conditions: []metav1.Condition{
			cond(v1beta1.ConditionReady, metav1.ConditionTrue, "Ready"), cond(v1beta1.ConditionStalled, metav1.ConditionFalse, "Ready")}}
	rolledBack := *ready.DeepCopy()
	rolledBack.RolledBack = &v1beta1.RollbackStatus{Generation: 4, Image: "shop:3", Reason: "PodFailing", Message: "m", To: rev, At: t0}
	rolledBack.Conditions[1] = cond(v1beta1.ConditionStalled, metav1.ConditionTrue, "RolledBack")
	for name, tc := range map[string]struct{ before, next v1beta1.WebAppStatus }{
		"the first status":   {v1beta1.WebAppStatus{}, ready},
		"a rollback":         {ready, rolledBack},
		"the rollback's end": {rolledBack, ready},
	} {
		t.Run(name, func(t *testing.T) {
			alpha := &webappv1.WebApp{TypeMeta: metav1.TypeMeta{APIVersion: webappv1.GroupVersion.String(), Kind: "WebApp"},
				ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "shop", UID: "uid-1", ResourceVersion: "7", Generation: 3},
				Spec:       webappv1.WebAppSpec{Image: "shop:2", HealthCheck: &webappv1.HealthCheck{Path: "/"}},
				Status:     recastStatus[webappv1.WebAppStatus](t, tc.before)}
			after := alpha.DeepCopy()
			after.Status = recastStatus[webappv1.WebAppStatus](t, tc.next)
			want, err := client.MergeFrom(alpha).Data(after) // what writeStatus sent from the v1alpha1 WebApp
			if err != nil {
				t.Fatal(err)
			}
			sent, r := recordStatusPatches(t)
			if err := r.writeStatus(context.Background(), toHub(t, alpha), tc.next); err != nil {
				t.Fatal(err)
			}
			if len(*sent) != 1 {
				t.Fatalf("%d status patches, want 1", len(*sent))
			}
			if got := (*sent)[0]; got != (statusPatch{gvk: "apps.webapp-operator.io/v1beta1, Kind=WebApp", key: "a/shop",
				subresource: "status", patchType: types.MergePatchType, data: string(want)}) {
				t.Errorf("sent %+v\nwant the data %s", got, want)
			}
			if err := r.writeStatus(context.Background(), toHub(t, after), tc.next); err != nil || len(*sent) != 1 {
				t.Errorf("a status that did not change was written (%v)", err)
			}
		})
	}
}

// statusPatch is one status write, as the API server would get it.
type statusPatch struct {
	gvk, key, subresource string
	patchType             types.PatchType
	data                  string
	options               int
}

// recordStatusPatches returns a reconciler whose client records the status patches it is asked to send.
func recordStatusPatches(t *testing.T) (*[]statusPatch, *WebAppReconciler) {
	t.Helper()
	scheme := testScheme(t)
	var sent []statusPatch
	c := fake.NewClientBuilder().WithScheme(scheme).WithInterceptorFuncs(interceptor.Funcs{
		SubResourcePatch: func(_ context.Context, _ client.Client, sub string, obj client.Object, patch client.Patch,
			opts ...client.SubResourcePatchOption) error {
			gvk, err := apiutil.GVKForObject(obj, scheme)
			if err != nil {
				return err
			}
			data, err := patch.Data(obj)
			sent = append(sent, statusPatch{gvk: gvk.String(), key: client.ObjectKeyFromObject(obj).String(), subresource: sub,
				patchType: patch.Type(), data: string(data), options: len(opts)})
			return err
		},
	}).Build()
	return &sent, &WebAppReconciler{Client: c}
}

func recastStatus[T any](t *testing.T, in any) T {
	t.Helper()
	var out T
	b, err := json.Marshal(in)
	if err == nil {
		err = json.Unmarshal(b, &out)
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}
