package status_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/webapp-operator/webapp-operator/api/v1beta1"
	"github.com/webapp-operator/webapp-operator/internal/resources"
	. "github.com/webapp-operator/webapp-operator/internal/status"
)

var (
	t0 = metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	t1 = metav1.NewTime(t0.Add(time.Minute))
)

func app() *v1beta1.WebApp {
	return &v1beta1.WebApp{
		ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "ns", Generation: 4},
		Spec:       v1beta1.WebAppSpec{Container: v1beta1.AppContainer{Image: "img"}, Replicas: ptr.To[int32](3)},
	}
}

// deployment returns a Deployment of generation 2 that wants 3 replicas, with the given status.
func deployment(observed int64, replicas, updated, available int32, conds ...appsv1.DeploymentCondition) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Generation: 2},
		Spec:       appsv1.DeploymentSpec{Replicas: ptr.To[int32](3)},
		Status: appsv1.DeploymentStatus{ObservedGeneration: observed, Replicas: replicas, UpdatedReplicas: updated,
			ReadyReplicas: available, AvailableReplicas: available, Conditions: conds},
	}
}

func cond(t appsv1.DeploymentConditionType, s corev1.ConditionStatus, reason string) appsv1.DeploymentCondition {
	return appsv1.DeploymentCondition{Type: t, Status: s, Reason: reason, Message: "msg " + reason}
}

var (
	availableTrue   = cond(appsv1.DeploymentAvailable, corev1.ConditionTrue, "MinimumReplicasAvailable")
	availableFalse  = cond(appsv1.DeploymentAvailable, corev1.ConditionFalse, "MinimumReplicasUnavailable")
	deadline        = cond(appsv1.DeploymentProgressing, corev1.ConditionFalse, "ProgressDeadlineExceeded")
	progressingTrue = cond(appsv1.DeploymentProgressing, corev1.ConditionTrue, "ReplicaSetUpdated")
	replicaFailure  = cond(appsv1.DeploymentReplicaFailure, corev1.ConditionTrue, "FailedCreate")
)

// observe is what the reconciler reports when it finds our Deployment d (nil: absent) and our Service
// svc (nil: absent): each child's Health as its kind reads it, and the Deployment itself.
func observe(a *v1beta1.WebApp, d *appsv1.Deployment, svc *corev1.Service) Observation {
	obs := Observation{Deployment: d, Selector: resources.Selector(a), URL: resources.URL(a)}
	for _, c := range []struct {
		child resources.Child
		live  client.Object
	}{{resources.Deployment, d}, {resources.Service, svc}} {
		if isNil(c.live) {
			obs.Children = append(obs.Children, Absent(c.child.Kind()))
			continue
		}
		obs.Children = append(obs.Children, c.child.Health(a, c.live))
	}
	return obs
}

func isNil(o client.Object) bool {
	switch v := o.(type) {
	case *appsv1.Deployment:
		return v == nil
	case *corev1.Service:
		return v == nil
	}
	return o == nil
}

type want struct {
	ready, reconciling, stalled, available metav1.ConditionStatus
	reason, availableReason                string
}

func paused(d *appsv1.Deployment) *appsv1.Deployment {
	d.Spec.Paused = true
	return d
}

func TestCompute(t *testing.T) {
	svc := &corev1.Service{}
	tests := []struct {
		name string
		obs  Observation
		want want
	}{
		{"children not created yet", observe(app(), nil, nil),
			want{metav1.ConditionFalse, metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown, ReasonCreating, ReasonDeploymentNotFound}},
		{"service missing", observe(app(), deployment(2, 3, 3, 3, availableTrue), nil),
			want{metav1.ConditionFalse, metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionTrue, ReasonCreating, ReasonMinimumReplicasAvailable}},
		{"deployment controller has not seen the new generation", observe(app(), deployment(1, 3, 3, 3, availableTrue), svc),
			want{metav1.ConditionFalse, metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionTrue, ReasonRolloutInProgress, ReasonMinimumReplicasAvailable}},
		{"no status at all yet", observe(app(), deployment(0, 0, 0, 0), svc),
			want{metav1.ConditionFalse, metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown, ReasonRolloutInProgress, ReasonMinimumReplicasUnavailable}},
		{"replicas being updated", observe(app(), deployment(2, 3, 1, 3, availableTrue, progressingTrue), svc),
			want{metav1.ConditionFalse, metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionTrue, ReasonRolloutInProgress, ReasonMinimumReplicasAvailable}},
		{"old replicas terminating", observe(app(), deployment(2, 4, 3, 3, availableTrue), svc),
			want{metav1.ConditionFalse, metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionTrue, ReasonRolloutInProgress, ReasonMinimumReplicasAvailable}},
		{"updated but not all available", observe(app(), deployment(2, 3, 3, 1, availableFalse), svc),
			want{metav1.ConditionFalse, metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionFalse, ReasonReplicasUnavailable, ReasonMinimumReplicasUnavailable}},
		{"rolled out", observe(app(), deployment(2, 3, 3, 3, availableTrue, progressingTrue), svc),
			want{metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionFalse, metav1.ConditionTrue, ReasonReady, ReasonMinimumReplicasAvailable}},
		{"paused, the pods on an earlier template and available", observe(app(), paused(deployment(2, 3, 0, 3, availableTrue)), svc),
			want{metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionFalse, metav1.ConditionTrue, ReasonPaused, ReasonMinimumReplicasAvailable}},
		{"paused, the pods on an earlier template, some unavailable", observe(app(), paused(deployment(2, 3, 0, 2, availableTrue)), svc),
			want{metav1.ConditionFalse, metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionTrue, ReasonReplicasUnavailable, ReasonMinimumReplicasAvailable}},
		{"paused with nothing waiting: rolled out", observe(app(), paused(deployment(2, 3, 3, 3, availableTrue)), svc),
			want{metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionFalse, metav1.ConditionTrue, ReasonReady, ReasonMinimumReplicasAvailable}},
		{"progress deadline exceeded", observe(app(), deployment(2, 3, 1, 2, availableTrue, deadline), svc),
			want{metav1.ConditionFalse, metav1.ConditionFalse, metav1.ConditionTrue, metav1.ConditionTrue, ReasonProgressDeadlineExceeded, ReasonMinimumReplicasAvailable}},
		{"the ReplicaSet cannot create pods", observe(app(), deployment(2, 0, 0, 0, replicaFailure, progressingTrue), svc),
			want{metav1.ConditionFalse, metav1.ConditionFalse, metav1.ConditionTrue, metav1.ConditionUnknown, ReasonReplicaFailure, ReasonMinimumReplicasUnavailable}},
		{"an admission policy, a quota or RBAC denies a child", Observation{Problem: NewProblem(ReasonApplyDenied, "exceeded quota"), Deployment: deployment(2, 3, 3, 3, availableTrue)},
			want{metav1.ConditionFalse, metav1.ConditionFalse, metav1.ConditionTrue, metav1.ConditionTrue, ReasonApplyDenied, ReasonMinimumReplicasAvailable}},
		{"a referenced ConfigMap does not exist, the old pods keep running", Observation{Problem: NewProblem(ReasonConfigMissing, `ConfigMap "x" referenced by env FOO does not exist`),
			Deployment: deployment(2, 3, 3, 3, availableTrue)},
			want{metav1.ConditionFalse, metav1.ConditionFalse, metav1.ConditionTrue, metav1.ConditionTrue, ReasonConfigMissing, ReasonMinimumReplicasAvailable}},
		{"foreign object in the way", Observation{Problem: NewProblem(ReasonNameConflict, "a Deployment named shop exists")},
			want{metav1.ConditionFalse, metav1.ConditionFalse, metav1.ConditionTrue, metav1.ConditionUnknown, ReasonNameConflict, ReasonDeploymentNotFound}},
		{"API server refuses the rendered object", Observation{Problem: NewProblem(ReasonInvalidSpec, "spec.template...env[0].name: Invalid value")},
			want{metav1.ConditionFalse, metav1.ConditionFalse, metav1.ConditionTrue, metav1.ConditionUnknown, ReasonInvalidSpec, ReasonDeploymentNotFound}},
		{"transient error", Observation{Problem: ReconcileError(errors.New("etcdserver: request timed out")), Deployment: deployment(2, 3, 3, 3, availableTrue)},
			want{metav1.ConditionFalse, metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionTrue, ReasonReconcileError, ReasonMinimumReplicasAvailable}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := Compute(app(), tt.obs, t0)
			check := func(condType string, status metav1.ConditionStatus, reason string) {
				t.Helper()
				c := meta.FindStatusCondition(st.Conditions, condType)
				if c == nil {
					t.Fatalf("%s condition missing", condType)
				}
				if c.Status != status || c.Reason != reason || c.ObservedGeneration != 4 {
					t.Errorf("%s = %s/%s (gen %d), want %s/%s (gen 4); message %q", condType, c.Status, c.Reason, c.ObservedGeneration, status, reason, c.Message)
				}
				if c.Status == metav1.ConditionTrue && c.Message == "" && condType != v1beta1.ConditionAvailable {
					t.Errorf("%s is True without a message", condType)
				}
			}
			check(v1beta1.ConditionReady, tt.want.ready, tt.want.reason)
			check(v1beta1.ConditionReconciling, tt.want.reconciling, tt.want.reason)
			check(v1beta1.ConditionStalled, tt.want.stalled, tt.want.reason)
			check(v1beta1.ConditionAvailable, tt.want.available, tt.want.availableReason)
			if len(st.Conditions) != 4 {
				t.Errorf("got %d conditions, want 4", len(st.Conditions))
			}
			if st.ObservedGeneration != 4 {
				t.Errorf("observedGeneration %d, want 4", st.ObservedGeneration)
			}
		})
	}
}

func TestComputeScaledToZero(t *testing.T) {
	a := app()
	a.Spec.Replicas = ptr.To[int32](0)
	d := deployment(2, 0, 0, 0, availableTrue)
	d.Spec.Replicas = ptr.To[int32](0)
	st := Compute(a, observe(a, d, &corev1.Service{}), t0)
	if c := meta.FindStatusCondition(st.Conditions, v1beta1.ConditionReady); c.Status != metav1.ConditionTrue || c.Reason != ReasonScaledToZero {
		t.Fatalf("Ready = %s/%s, want True/ScaledToZero", c.Status, c.Reason)
	}
}

func TestComputeCopiesCountsAndAddresses(t *testing.T) {
	d := deployment(2, 4, 3, 2, availableTrue)
	d.Status.ReadyReplicas = 3
	st := Compute(app(), observe(app(), d, &corev1.Service{}), t0)
	if st.Replicas != 4 || st.UpdatedReplicas != 3 || st.ReadyReplicas != 3 || st.AvailableReplicas != 2 {
		t.Errorf("counts = %d/%d/%d/%d, want 4/3/3/2", st.Replicas, st.UpdatedReplicas, st.ReadyReplicas, st.AvailableReplicas)
	}
	if st.Selector != "app.kubernetes.io/instance=shop,app.kubernetes.io/name=webapp" {
		t.Errorf("selector %q", st.Selector)
	}
	if st.URL != "http://shop.ns.svc:80" {
		t.Errorf("url %q", st.URL)
	}
	// A foreign Deployment's counts are not ours to report.
	st = Compute(app(), Observation{Deployment: d, Problem: NewProblem(ReasonNameConflict, "foreign")}, t0)
	if st.Replicas != 0 || st.AvailableReplicas != 0 {
		t.Errorf("counts of a foreign Deployment reported: %+v", st)
	}
}

// status.configRevision is what the Deployment's template carries: what the pods run once Ready,
// also while a missing object keeps the operator from applying a new one.
func TestComputeReportsTheConfigRevisionOfTheTemplate(t *testing.T) {
	d := deployment(2, 3, 3, 3, availableTrue)
	d.Spec.Template.Annotations = map[string]string{v1beta1.ConfigRevisionAnnotation: "0123456789abcdef", "other": "x"}
	for name, obs := range map[string]Observation{
		"rolled out":     observe(app(), d, &corev1.Service{}),
		"config missing": {Deployment: d, Problem: NewProblem(ReasonConfigMissing, `ConfigMap "x" referenced by envFrom does not exist`)},
	} {
		if got := Compute(app(), obs, t0).ConfigRevision; got != "0123456789abcdef" {
			t.Errorf("%s: configRevision %q, want the template's", name, got)
		}
	}
	for name, obs := range map[string]Observation{
		"no annotation":        observe(app(), deployment(2, 3, 3, 3, availableTrue), &corev1.Service{}),
		"no Deployment":        observe(app(), nil, nil),
		"a foreign Deployment": {Deployment: d, Problem: NewProblem(ReasonNameConflict, "foreign")},
	} {
		if got := Compute(app(), obs, t0).ConfigRevision; got != "" {
			t.Errorf("%s: configRevision %q, want none", name, got)
		}
	}
}

func TestComputeKeepsTransitionTimesAndIsStable(t *testing.T) {
	a := app()
	obs := observe(a, deployment(2, 3, 3, 3, availableTrue), &corev1.Service{})
	a.Status = Compute(a, obs, t0)

	// Same observation later: nothing changes, not even a timestamp, so nothing is written.
	again := Compute(a, obs, t1)
	if !equalStatus(a.Status, again) {
		t.Fatalf("status changed on an identical observation:\n%+v\n%+v", a.Status, again)
	}

	// Ready flips (a new template rolls out): only the flipped conditions get the new time.
	obs = observe(a, deployment(2, 4, 1, 3, availableTrue), &corev1.Service{})
	next := Compute(a, obs, t1)
	if c := meta.FindStatusCondition(next.Conditions, v1beta1.ConditionReady); !c.LastTransitionTime.Equal(&t1) {
		t.Errorf("Ready transition time %v, want %v", c.LastTransitionTime, t1)
	}
	if c := meta.FindStatusCondition(next.Conditions, v1beta1.ConditionStalled); !c.LastTransitionTime.Equal(&t0) {
		t.Errorf("Stalled did not change but its transition time moved to %v", c.LastTransitionTime)
	}
	if c := meta.FindStatusCondition(next.Conditions, v1beta1.ConditionAvailable); !c.LastTransitionTime.Equal(&t0) {
		t.Errorf("Available did not change but its transition time moved to %v", c.LastTransitionTime)
	}
}

func TestComputeDoesNotMutateItsInput(t *testing.T) {
	a := app()
	a.Status = Compute(a, observe(a, nil, nil), t0)
	before := a.DeepCopy()
	_ = Compute(a, Observation{Problem: NewProblem(ReasonNameConflict, "x")}, t1)
	if !equalStatus(before.Status, a.Status) {
		t.Fatal("Compute changed the WebApp it was given")
	}
}

// equalStatus is the comparison the reconciler uses to decide whether to write.
func equalStatus(a, b v1beta1.WebAppStatus) bool { return equality.Semantic.DeepEqual(a, b) }

func pod(name string, mutate func(*corev1.Pod)) corev1.Pod {
	p := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}}
	mutate(&p)
	return p
}

func waiting(reason, message string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app",
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: message}}}}
	}
}

func TestFindPodIssue(t *testing.T) {
	healthy := pod("a-healthy", func(p *corev1.Pod) {
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", Ready: true,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}
	})
	failing := func(message string) *PodIssue { return &PodIssue{Reason: ReasonPodFailing, Message: message} }
	tests := []struct {
		name string
		pods []corev1.Pod
		want *PodIssue
	}{
		{"no pods", nil, nil},
		{"healthy", []corev1.Pod{healthy}, nil},
		{"still creating is not a failure", []corev1.Pod{pod("b", waiting("ContainerCreating", ""))}, nil},
		{"image pull", []corev1.Pod{healthy, pod("b", waiting("ImagePullBackOff", `Back-off pulling image "x:nope"`))},
			failing(`pod b: ImagePullBackOff: Back-off pulling image "x:nope"`)},
		{"crash loop", []corev1.Pod{pod("c", waiting("CrashLoopBackOff", "back-off 10s"))}, failing("pod c: CrashLoopBackOff: back-off 10s")},
		{"an image that runs as root", []corev1.Pod{pod("r", waiting("CreateContainerConfigError",
			`container has runAsNonRoot and image will run as root (pod: "r", container: app)`))},
			&PodIssue{Reason: ReasonImageRunsAsRoot, Message: "the image runs as root, or as a user name the kubelet " +
				"cannot verify is not root, and WebApp pods run as non-root: use an image whose USER is a numeric " +
				"non-root UID, or set spec.pod.security.runAsUser to a non-root UID the image can run as (pod r: " +
				`CreateContainerConfigError: container has runAsNonRoot and image will run as root (pod: "r", container: app))`}},
		{"an image that runs as a user name", []corev1.Pod{pod("n", waiting("CreateContainerConfigError",
			`container has runAsNonRoot and image has non-numeric user (nginx), cannot verify user is non-root`))},
			&PodIssue{Reason: ReasonImageRunsAsRoot, Message: "the image runs as root, or as a user name the kubelet " +
				"cannot verify is not root, and WebApp pods run as non-root: use an image whose USER is a numeric " +
				"non-root UID, or set spec.pod.security.runAsUser to a non-root UID the image can run as (pod n: " +
				"CreateContainerConfigError: container has runAsNonRoot and image has non-numeric user (nginx), " +
				"cannot verify user is non-root)"}},
		{"another config error stays PodFailing", []corev1.Pod{pod("m", waiting("CreateContainerConfigError",
			`secret "x" not found`))}, failing(`pod m: CreateContainerConfigError: secret "x" not found`)},
		{"an image name that does not parse", []corev1.Pod{pod("i", waiting("InvalidImageName",
			`Failed to apply default image tag "NGINX:Latest": couldn't parse image name`))},
			&PodIssue{Reason: ReasonInvalidImage, Message: "the image reference does not parse: correct spec.container.image, " +
				"or the image of the container named here (pod i: InvalidImageName: Failed to apply default image " +
				`tag "NGINX:Latest": couldn't parse image name)`}},
		{"a failing init container or sidecar", []corev1.Pod{pod("s", func(p *corev1.Pod) {
			p.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "proxy",
				State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: "nope"}}}}
			waiting("PodInitializing", "")(p)
		})}, failing("pod s: container proxy: ImagePullBackOff: nope")},
		{"unschedulable", []corev1.Pod{pod("d", func(p *corev1.Pod) {
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
				Reason: corev1.PodReasonUnschedulable, Message: "0/1 nodes are available: 1 Insufficient cpu."}}
		})}, failing("pod d: Unschedulable: 0/1 nodes are available: 1 Insufficient cpu.")},
		{"terminating pods are ignored", []corev1.Pod{pod("e", func(p *corev1.Pod) {
			waiting("ErrImagePull", "x")(p)
			p.DeletionTimestamp = &t0
		})}, nil},
		{"first by name, whatever the list order", []corev1.Pod{pod("z", waiting("ErrImagePull", "z")), pod("y", waiting("CrashLoopBackOff", "y"))},
			failing("pod y: CrashLoopBackOff: y")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FindPodIssue(tt.pods); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("FindPodIssue = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// An issue that no retry can cure stalls the WebApp at once, under its own reason, so that kstatus
// says Failed instead of waiting for the progress deadline.
func TestComputeStallsOnAPodIssueNoRetryCures(t *testing.T) {
	for _, reason := range []string{ReasonImageRunsAsRoot, ReasonInvalidImage} {
		rolling := observe(app(), deployment(2, 4, 1, 3, availableTrue, progressingTrue), &corev1.Service{})
		rolling.PodIssue = &PodIssue{Reason: reason, Message: "pod shop-1: the fix"}
		st := Compute(app(), rolling, t0)
		stalled := meta.FindStatusCondition(st.Conditions, v1beta1.ConditionStalled)
		reconciling := meta.FindStatusCondition(st.Conditions, v1beta1.ConditionReconciling)
		if stalled.Status != metav1.ConditionTrue || stalled.Reason != reason || reconciling.Status != metav1.ConditionFalse ||
			!strings.HasPrefix(stalled.Message, "pod shop-1: the fix; ") {
			t.Errorf("%s: Stalled = %s/%s %q, Reconciling = %s", reason, stalled.Status, stalled.Reason, stalled.Message,
				reconciling.Status)
		}
	}
}

func TestComputeNamesTheFailingPod(t *testing.T) {
	issue := `pod shop-1: ImagePullBackOff: Back-off pulling image "x:nope"`
	podIssue := &PodIssue{Reason: ReasonPodFailing, Message: issue}
	rolling := observe(app(), deployment(2, 4, 1, 3, availableTrue, progressingTrue), &corev1.Service{})
	rolling.PodIssue = podIssue
	c := meta.FindStatusCondition(Compute(app(), rolling, t0).Conditions, v1beta1.ConditionReady)
	if c.Status != metav1.ConditionFalse || c.Reason != ReasonPodFailing || c.Message != issue+"; 1 of 3 replicas updated to the latest spec" {
		t.Errorf("during the rollout Ready = %s/%s %q", c.Status, c.Reason, c.Message)
	}

	stuck := observe(app(), deployment(2, 4, 1, 3, availableTrue, deadline), &corev1.Service{})
	stuck.PodIssue = podIssue
	st := Compute(app(), stuck, t0)
	if c := meta.FindStatusCondition(st.Conditions, v1beta1.ConditionStalled); c.Status != metav1.ConditionTrue ||
		c.Reason != ReasonProgressDeadlineExceeded || !strings.HasPrefix(c.Message, issue) {
		t.Errorf("after the deadline Stalled = %s/%s %q", c.Status, c.Reason, c.Message)
	}

	done := observe(app(), deployment(2, 3, 3, 3, availableTrue), &corev1.Service{})
	done.PodIssue = podIssue
	if c := meta.FindStatusCondition(Compute(app(), done, t0).Conditions, v1beta1.ConditionReady); c.Status != metav1.ConditionTrue {
		t.Errorf("a rolled-out WebApp is Ready whatever a stray pod says; got %s/%s", c.Status, c.Reason)
	}
}

func TestComputeReportsTheURLOfAReadyRoute(t *testing.T) {
	ready := observe(app(), deployment(2, 3, 3, 3, availableTrue), &corev1.Service{})
	inCluster := ready.URL
	route := Health{Kind: "Ingress", Ready: true, Reason: ReasonReady, Message: "address", URL: "https://shop.example.com/"}
	pending := Health{Kind: "Ingress", Reason: ReasonAddressPending, Message: "the Ingress has no address yet", URL: "https://shop.example.com/"}
	// the HTTPRoute comes after the Ingress in resources.All
	accepted := Health{Kind: "HTTPRoute", Ready: true, Reason: ReasonReady, Message: "accepted", URL: "http://new.example.com/"}
	notYet := Health{Kind: "HTTPRoute", Reason: ReasonRoutePending, Message: "not accepted by Gateway ns/public yet"}
	tests := []struct {
		name       string
		routes     []Health
		wantURL    string
		wantReason string
		wantReady  metav1.ConditionStatus
	}{
		{"admitted: the external URL, and Ready", []Health{route}, "https://shop.example.com/", ReasonReady, metav1.ConditionTrue},
		{"no address yet: the in-cluster URL, and not Ready, naming the Ingress", []Health{pending}, inCluster,
			ReasonAddressPending, metav1.ConditionFalse},
		{"an accepted HTTPRoute: its URL, and Ready", []Health{accepted}, "http://new.example.com/", ReasonReady, metav1.ConditionTrue},
		{"both ready: the route's URL", []Health{route, accepted}, "http://new.example.com/", ReasonReady, metav1.ConditionTrue},
		{"the Ingress ready, the route pending: the Ingress's URL, not Ready, naming the route", []Health{route, notYet},
			"https://shop.example.com/", ReasonRoutePending, metav1.ConditionFalse},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obs := ready
			obs.Children = append(append([]Health(nil), ready.Children...), tt.routes...)
			st := Compute(app(), obs, t0)
			if st.URL != tt.wantURL {
				t.Errorf("url %q, want %q", st.URL, tt.wantURL)
			}
			c := meta.FindStatusCondition(st.Conditions, v1beta1.ConditionReady)
			if c.Status != tt.wantReady || c.Reason != tt.wantReason {
				t.Errorf("Ready = %s/%s %q, want %s/%s", c.Status, c.Reason, c.Message, tt.wantReady, tt.wantReason)
			}
		})
	}
}

// A child's note is a condition of its own: it never changes Ready, keeps its transition time while
// it says the same, and goes away with the child that reports it.
func TestComputeNotes(t *testing.T) {
	a := app()
	ready := observe(a, deployment(2, 3, 3, 3, availableTrue), &corev1.Service{})
	withNote := func(n *Note) Observation {
		obs := ready
		obs.Children = append(append([]Health(nil), ready.Children...),
			Health{Kind: "HorizontalPodAutoscaler", Ready: true, Reason: ReasonReady, Note: n})
		return obs
	}
	inactive := &Note{Type: v1beta1.ConditionAutoscaling, Status: metav1.ConditionFalse, Reason: ReasonAutoscalingInactive,
		Message: "ScalingActive is False (FailedGetResourceMetric)"}
	tests := []struct {
		name   string
		obs    Observation
		status metav1.ConditionStatus // of the Autoscaling condition; "" for none
		reason string
	}{
		{name: "no child reports one: no condition", obs: ready},
		{name: "not reported yet: Unknown", obs: withNote(&Note{Type: v1beta1.ConditionAutoscaling,
			Status: metav1.ConditionUnknown, Reason: ReasonAutoscalingPending}),
			status: metav1.ConditionUnknown, reason: ReasonAutoscalingPending},
		{name: "inactive: False, and the app is still Ready", obs: withNote(inactive),
			status: metav1.ConditionFalse, reason: ReasonAutoscalingInactive},
		{name: "a missing child reports nothing", obs: Observation{Children: append(ready.Children,
			Health{Kind: "HorizontalPodAutoscaler", Missing: true, Note: inactive})}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := Compute(a, tc.obs, t0)
			c := meta.FindStatusCondition(st.Conditions, v1beta1.ConditionAutoscaling)
			if tc.status == "" {
				if c != nil {
					t.Fatalf("Autoscaling = %+v, want none", c)
				}
				return
			}
			if c == nil || c.Status != tc.status || c.Reason != tc.reason || c.ObservedGeneration != a.Generation {
				t.Fatalf("Autoscaling = %+v, want %s %s", c, tc.status, tc.reason)
			}
			if r := meta.FindStatusCondition(st.Conditions, v1beta1.ConditionReady); r.Status != metav1.ConditionTrue ||
				r.Reason != ReasonReady {
				t.Errorf("Ready = %+v: a note must not hold the WebApp back", r)
			}
		})
	}

	a.Status = Compute(a, withNote(inactive), t0)
	if again := Compute(a, withNote(inactive), t1); !equalStatus(a.Status, again) {
		t.Errorf("an unchanged note changed the status:\n%+v\n%+v", a.Status, again)
	}
	active := *inactive
	active.Status, active.Reason, active.Message = metav1.ConditionTrue, ReasonAutoscalingActive, "scales"
	next := Compute(a, withNote(&active), t1)
	if c := meta.FindStatusCondition(next.Conditions, v1beta1.ConditionAutoscaling); c.Status != metav1.ConditionTrue ||
		!c.LastTransitionTime.Equal(&t1) {
		t.Errorf("Autoscaling = %+v after it turned True at %v", c, t1)
	}
	if c := meta.FindStatusCondition(next.Conditions, v1beta1.ConditionReady); !c.LastTransitionTime.Equal(&t0) {
		t.Errorf("Ready moved to %v with the note", c.LastTransitionTime)
	}
	a.Status = next
	if off := Compute(a, ready, t1); meta.FindStatusCondition(off.Conditions, v1beta1.ConditionAutoscaling) != nil {
		t.Error("the Autoscaling condition outlived the autoscaler")
	}
}

// A WebApp that was Ready stays Ready while only its replica count moves, and says so in Reconciling;
// a template change, or one that was never Ready, still reads as a rollout.
func TestComputeKeepsReadyWhileScaling(t *testing.T) {
	ready := func() *v1beta1.WebApp {
		a := app()
		a.Status.Conditions = []metav1.Condition{{Type: v1beta1.ConditionReady, Status: metav1.ConditionTrue,
			Reason: ReasonReady, LastTransitionTime: t0}}
		return a
	}
	tests := []struct {
		name        string
		app         *v1beta1.WebApp
		d           *appsv1.Deployment
		ready       metav1.ConditionStatus
		reason      string
		reconciling metav1.ConditionStatus
		message     string
	}{
		{"scaling up: pods not all created", ready(), deployment(2, 2, 2, 2, availableFalse),
			metav1.ConditionTrue, ReasonScaling, metav1.ConditionTrue, "scaling to 3 replicas: 2 available"},
		{"scaling up: pods created, not all available", ready(), deployment(2, 3, 3, 1, availableFalse),
			metav1.ConditionTrue, ReasonScaling, metav1.ConditionTrue, "scaling to 3 replicas: 1 available"},
		{"a pod replaced", ready(), deployment(2, 3, 3, 2, availableTrue),
			metav1.ConditionTrue, ReasonScaling, metav1.ConditionTrue, "scaling to 3 replicas: 2 available"},
		{"scaled", ready(), deployment(2, 3, 3, 3, availableTrue),
			metav1.ConditionTrue, ReasonReady, metav1.ConditionFalse, "3 of 3 replicas available and up to date"},
		{"never Ready: still a rollout", app(), deployment(2, 3, 3, 1, availableFalse),
			metav1.ConditionFalse, ReasonReplicasUnavailable, metav1.ConditionTrue, "1 of 3 updated replicas available"},
		{"old pods: a template change", ready(), deployment(2, 4, 1, 3, availableTrue),
			metav1.ConditionFalse, ReasonRolloutInProgress, metav1.ConditionTrue, "1 of 3 replicas updated to the latest spec"},
		{"not observed yet", ready(), deployment(1, 3, 3, 3, availableTrue),
			metav1.ConditionFalse, ReasonRolloutInProgress, metav1.ConditionTrue, "waiting for the Deployment controller to observe generation 2"},
		{"nothing available: not serving", ready(), deployment(2, 3, 3, 0, availableFalse),
			metav1.ConditionFalse, ReasonReplicasUnavailable, metav1.ConditionTrue, "0 of 3 updated replicas available"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := Compute(tt.app, observe(tt.app, tt.d, &corev1.Service{}), t1)
			r := meta.FindStatusCondition(st.Conditions, v1beta1.ConditionReady)
			rec := meta.FindStatusCondition(st.Conditions, v1beta1.ConditionReconciling)
			stalled := meta.FindStatusCondition(st.Conditions, v1beta1.ConditionStalled)
			if r.Status != tt.ready || r.Reason != tt.reason || r.Message != tt.message || rec.Status != tt.reconciling ||
				stalled.Status != metav1.ConditionFalse {
				t.Errorf("Ready = %s/%s %q, Reconciling = %s, Stalled = %s; want %s/%s %q, Reconciling = %s",
					r.Status, r.Reason, r.Message, rec.Status, stalled.Status, tt.ready, tt.reason, tt.message, tt.reconciling)
			}
		})
	}
}
