package main

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/webapp-operator/webapp-operator/api/v1beta1"
)

func webapp(gen, observed int64, conds ...metav1.Condition) *v1beta1.WebApp {
	wa := &v1beta1.WebApp{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns", Generation: gen}}
	wa.Status.ObservedGeneration = observed
	wa.Status.Conditions = conds
	return wa
}

func cond(t string, s metav1.ConditionStatus, reason, msg string) metav1.Condition {
	return metav1.Condition{Type: t, Status: s, Reason: reason, Message: msg}
}

func TestVerdict(t *testing.T) {
	ready := cond(v1beta1.ConditionReady, metav1.ConditionTrue, "Ready", "2/2 replicas ready")
	notReady := cond(v1beta1.ConditionReady, metav1.ConditionFalse, "PodFailing", "pod s-1: ErrImagePull: not found")
	stalled := cond(v1beta1.ConditionStalled, metav1.ConditionTrue, "ProgressDeadlineExceeded", "pod s-1: ErrImagePull")
	notStalled := cond(v1beta1.ConditionStalled, metav1.ConditionFalse, "Ready", "")
	for _, tc := range []struct {
		name       string
		wa         *v1beta1.WebApp
		done, pass bool
		says       string
	}{
		{"no status: the operator is absent", webapp(1, 0), false, false,
			"is webapp-operator installed and watching namespace ns"},
		{"status of an older generation", webapp(2, 1, ready), false, false, "not observed generation 2"},
		{"ready", webapp(1, 1, ready, notStalled), true, true, "Ready: Ready: 2/2"},
		{"not ready yet: keep waiting, say why", webapp(1, 1, notReady, notStalled), false, false,
			"PodFailing: pod s-1: ErrImagePull"},
		{"stalled: stop waiting", webapp(1, 1, notReady, stalled), true, false, "Stalled: ProgressDeadlineExceeded"},
		{"conditions without Ready", webapp(1, 1, notStalled), false, false, "no Ready condition"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			done, pass, says := verdict(tc.wa)
			if done != tc.done || pass != tc.pass || !strings.Contains(says, tc.says) {
				t.Errorf("got done=%v pass=%v %q; want done=%v pass=%v containing %q", done, pass, says, tc.done, tc.pass, tc.says)
			}
		})
	}
}

func TestConditionLine(t *testing.T) {
	wa := webapp(3, 2, cond(v1beta1.ConditionStalled, metav1.ConditionFalse, "Ready", ""),
		cond(v1beta1.ConditionReady, metav1.ConditionTrue, "Ready", "x"))
	wa.Status.Replicas, wa.Status.ReadyReplicas = 2, 1
	if got, want := conditionLine(wa), "gen 2/3 replicas 1/2 Ready=True(Ready) Stalled=False(Ready)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
