package main

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/webapp-operator/webapp-operator/api/v1beta1"
)

// verdict reads one observation of the sample WebApp. done is true when waiting longer cannot change
// the outcome: it is Ready (pass) or Stalled (fail: the operator says progress needs a change by the
// user). Otherwise failure explains what the WebApp says now, for when the time is up.
func verdict(wa *v1beta1.WebApp) (done, pass bool, explanation string) {
	if wa.Status.ObservedGeneration == 0 && len(wa.Status.Conditions) == 0 {
		return false, false, fmt.Sprintf("WebApp %s/%s has no status: is webapp-operator installed "+
			"and watching namespace %s?", wa.Namespace, wa.Name, wa.Namespace)
	}
	if wa.Status.ObservedGeneration < wa.Generation {
		return false, false, fmt.Sprintf("the operator has not observed generation %d yet (status is for %d)",
			wa.Generation, wa.Status.ObservedGeneration)
	}
	if c := meta.FindStatusCondition(wa.Status.Conditions, v1beta1.ConditionStalled); c != nil && c.Status == "True" {
		return true, false, "Stalled: " + describe(c)
	}
	c := meta.FindStatusCondition(wa.Status.Conditions, v1beta1.ConditionReady)
	switch {
	case c == nil:
		return false, false, "no Ready condition yet"
	case c.Status == "True":
		return true, true, "Ready: " + describe(c)
	default:
		return false, false, "not Ready: " + describe(c)
	}
}

// describe gives a condition's reason and message, which name the failing pod and the kubelet's words.
func describe(c *metav1.Condition) string {
	if c.Message == "" {
		return c.Reason
	}
	return c.Reason + ": " + c.Message
}

// conditionLine renders the conditions as one line for the test's log, in a stable order.
func conditionLine(wa *v1beta1.WebApp) string {
	var parts []string
	for _, t := range []string{v1beta1.ConditionReady, v1beta1.ConditionAvailable, v1beta1.ConditionReconciling,
		v1beta1.ConditionStalled} {
		if c := meta.FindStatusCondition(wa.Status.Conditions, t); c != nil {
			parts = append(parts, fmt.Sprintf("%s=%s(%s)", t, c.Status, c.Reason))
		}
	}
	return fmt.Sprintf("gen %d/%d replicas %d/%d %s", wa.Status.ObservedGeneration, wa.Generation,
		wa.Status.ReadyReplicas, wa.Status.Replicas, strings.Join(parts, " "))
}
