package operator

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"
)

func TestCacheHealth(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	h := newCacheHealth(5 * time.Minute)
	h.now = func() time.Time { return now }
	pods := toolscache.NewReflector(&toolscache.ListWatch{}, &corev1.Pod{}, toolscache.NewStore(toolscache.MetaNamespaceKeyFunc), 0)
	forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New("RBAC"))
	fail := func(err error) { h.watchError(context.Background(), pods, err) }
	step := func(d time.Duration) { now = now.Add(d) }

	if err := h.ready(nil); err == nil {
		t.Fatal("ready before the caches synced")
	}
	h.synced = true
	if err := h.ready(nil); err != nil {
		t.Fatalf("not ready once synced: %v", err)
	}

	// watches that end normally are no failure
	for _, err := range []error{io.EOF, io.ErrUnexpectedEOF, apierrors.NewResourceExpired("too old"), apierrors.NewResourceExpired("gone")} {
		fail(err)
	}
	step(10 * time.Minute)
	if err := h.alive(nil); err != nil {
		t.Fatalf("normal watch ends counted as failures: %v", err)
	}

	// a list failing every 30 s: alive until the tolerance, then not
	for range 9 {
		fail(forbidden)
		step(30 * time.Second)
	}
	if err := h.alive(nil); err != nil {
		t.Fatalf("dead after 4.5 min of failures, tolerance 5 min: %v", err)
	}
	fail(forbidden)
	step(60 * time.Second)
	err := h.alive(nil)
	if err == nil || !strings.Contains(err.Error(), "*v1.Pod") || !strings.Contains(err.Error(), "RBAC") {
		t.Fatalf("alive after 5.5 min of failures, or the error does not say which informer and why: %v", err)
	}

	// it recovered: no error for longer than the reflector's backoff
	step(2 * time.Minute)
	if err := h.alive(nil); err != nil {
		t.Fatalf("still dead 2 min after the last failure: %v", err)
	}
	// a new failure starts a new streak
	fail(forbidden)
	if err := h.alive(nil); err != nil {
		t.Fatalf("a new failure counted the old streak: %v", err)
	}
}
