package main

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// addUnrelated creates n Deployments and n Services that the operator does not own and must not
// cache, in namespaces of their own. They are full-size objects for every list and watch, but cheap
// for the rest of the cluster: the Deployments are paused with 0 replicas (no ReplicaSet, no pod),
// and the Services are headless. A ClusterIP would make each create cost O(Services): the API
// server's IP allocator (Kubernetes 1.37) lists every allocated address on each allocation (a CPU
// profile showed it); with ClusterIPs, creating 20,000 of each had slowed to 12 of each per second
// after 12,000 here, and would have taken over 20 minutes.
func (h *harness) addUnrelated(ctx context.Context, n int) (time.Duration, error) {
	step("creating %d unrelated Deployments and %d unrelated Services", n, n)
	start := time.Now()
	err := parallel(ctx, 4*h.opts.Workers, n, func(ctx context.Context, i int) error {
		ns, name := otherNamespaces[i%len(otherNamespaces)], fmt.Sprintf("other-%05d", i)
		labels := map[string]string{"app": name}
		dep := &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
			Spec: appsv1.DeploymentSpec{
				Replicas: ptr.To[int32](0),
				Paused:   true,
				Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: imageV1}}},
				},
			},
		}
		svc := &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
			Spec: corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone, Selector: labels,
				Ports: []corev1.ServicePort{{Port: 80}}},
		}
		for _, obj := range []client.Object{dep, svc} {
			if err := retry(ctx, func() error { return h.cl.Create(ctx, obj) }); err != nil && !apierrors.IsAlreadyExists(err) {
				return err
			}
		}
		return nil
	})
	return time.Since(start), err
}
