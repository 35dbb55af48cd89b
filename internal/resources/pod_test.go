package resources

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
)

// restrictedContainer is what every container gets, whatever the WebApp says.
var restrictedContainer = &corev1.SecurityContext{
	AllowPrivilegeEscalation: ptr.To(false),
	Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
}

func TestPodSecurity(t *testing.T) {
	runtimeDefault := &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}
	tests := []struct {
		name          string
		security      *webappv1.Security
		wantPod       *corev1.PodSecurityContext
		wantContainer *corev1.SecurityContext
	}{{
		name:          "restricted by default, with the image's user",
		wantPod:       &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true), SeccompProfile: runtimeDefault},
		wantContainer: restrictedContainer,
	}, {
		name:     "a user, a group and an fsGroup",
		security: &webappv1.Security{RunAsUser: ptr.To[int64](1000), RunAsGroup: ptr.To[int64](2000), FSGroup: ptr.To[int64](3000)},
		wantPod: &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true), SeccompProfile: runtimeDefault,
			RunAsUser: ptr.To[int64](1000), RunAsGroup: ptr.To[int64](2000), FSGroup: ptr.To[int64](3000)},
		wantContainer: restrictedContainer,
	}, {
		name:          "root, asked for: runAsNonRoot would keep it from starting",
		security:      &webappv1.Security{RunAsUser: ptr.To[int64](0)},
		wantPod:       &corev1.PodSecurityContext{RunAsUser: ptr.To[int64](0), SeccompProfile: runtimeDefault},
		wantContainer: restrictedContainer,
	}, {
		name:     "read-only root file system",
		security: &webappv1.Security{ReadOnlyRootFilesystem: ptr.To(true)},
		wantPod:  &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true), SeccompProfile: runtimeDefault},
		wantContainer: &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false), ReadOnlyRootFilesystem: ptr.To(true),
			Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := deployment(t, newApp(func(a *webappv1.WebApp) {
				a.Spec.Security = tt.security
				a.Spec.Sidecars = []webappv1.Container{{Name: "proxy", Image: "proxy:1"}}
				a.Spec.InitContainers = []webappv1.Container{{Name: "migrate", Image: "migrate:1"}}
			}))
			pod := d.Spec.Template.Spec
			expect(t, "pod security context", pod.SecurityContext, tt.wantPod)
			for _, c := range append(pod.InitContainers, pod.Containers...) {
				expect(t, c.Name+" security context", c.SecurityContext, tt.wantContainer)
			}
			expect(t, "service account token", pod.AutomountServiceAccountToken, ptr.To(false))
		})
	}
}

func TestPodSpec(t *testing.T) {
	tests := []struct {
		name  string
		app   *webappv1.WebApp
		check func(t *testing.T, d *appsv1.Deployment)
	}{{
		name: "command, args and extra ports",
		app: newApp(func(a *webappv1.WebApp) {
			a.Spec.Command = []string{"/srv"}
			a.Spec.Args = []string{"--listen=:8080"}
			a.Spec.Ports = []webappv1.ContainerPort{{Name: "metrics", ContainerPort: 9090}, {Name: "dns", ContainerPort: 53, Protocol: "UDP"}}
		}),
		check: func(t *testing.T, d *appsv1.Deployment) {
			c := d.Spec.Template.Spec.Containers[0]
			expect(t, "command", c.Command, []string{"/srv"})
			expect(t, "args", c.Args, []string{"--listen=:8080"})
			expect(t, "ports", c.Ports, []corev1.ContainerPort{
				{Name: PortName, ContainerPort: 8080, Protocol: corev1.ProtocolTCP},
				{Name: "metrics", ContainerPort: 9090, Protocol: corev1.ProtocolTCP},
				{Name: "dns", ContainerPort: 53, Protocol: corev1.ProtocolUDP}})
		},
	}, {
		name: "volumes of every source, mounted in the app",
		app: newApp(func(a *webappv1.WebApp) {
			a.Spec.Volumes = []webappv1.Volume{
				{Name: "config", MountPath: "/etc/shop", ConfigMap: &webappv1.ConfigMapVolume{Name: "shop",
					Items: []webappv1.KeyToPath{{Key: "app.yaml", Path: "app.yaml", Mode: ptr.To[int32](0o400)}}, DefaultMode: ptr.To[int32](0o440)}},
				{Name: "tls", MountPath: "/tls", ReadOnly: true, Secret: &webappv1.SecretVolume{Name: "shop-tls", Optional: ptr.To(true)}},
				{Name: "cache", MountPath: "/cache", EmptyDir: &webappv1.EmptyDirVolume{Medium: "Memory", SizeLimit: ptr.To(webappv1.MustParseQuantity("64Mi"))}},
				{Name: "data", MountPath: "/data/sub", SubPath: "sub", PersistentVolumeClaim: &webappv1.PersistentVolumeClaimVolume{ClaimName: "shop-data"}},
			}
		}),
		check: func(t *testing.T, d *appsv1.Deployment) {
			pod := d.Spec.Template.Spec
			expect(t, "volumes", pod.Volumes, []corev1.Volume{
				{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
					LocalObjectReference: corev1.LocalObjectReference{Name: "shop"},
					Items:                []corev1.KeyToPath{{Key: "app.yaml", Path: "app.yaml", Mode: ptr.To[int32](0o400)}}, DefaultMode: ptr.To[int32](0o440)}}},
				{Name: "tls", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "shop-tls", Optional: ptr.To(true)}}},
				{Name: "cache", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory,
					SizeLimit: ptr.To(resource.MustParse("64Mi"))}}},
				{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "shop-data"}}},
			})
			expect(t, "mounts", pod.Containers[0].VolumeMounts, []corev1.VolumeMount{
				{Name: "config", MountPath: "/etc/shop"}, {Name: "tls", MountPath: "/tls", ReadOnly: true},
				{Name: "cache", MountPath: "/cache"}, {Name: "data", MountPath: "/data/sub", SubPath: "sub"}})
		},
	}, {
		name: "service account, its token and pull secrets",
		app: newApp(func(a *webappv1.WebApp) {
			a.Spec.ServiceAccountName = "shop"
			a.Spec.AutomountServiceAccountToken = ptr.To(true)
			a.Spec.ImagePullSecrets = []webappv1.ImagePullSecret{{Name: "registry"}}
		}),
		check: func(t *testing.T, d *appsv1.Deployment) {
			pod := d.Spec.Template.Spec
			expect(t, "service account", pod.ServiceAccountName, "shop")
			expect(t, "token", pod.AutomountServiceAccountToken, ptr.To(true))
			expect(t, "pull secrets", pod.ImagePullSecrets, []corev1.LocalObjectReference{{Name: "registry"}})
		},
	}, {
		name: "init containers run first, then sidecars as native sidecars",
		app: newApp(func(a *webappv1.WebApp) {
			a.Spec.Volumes = []webappv1.Volume{{Name: "shared", MountPath: "/shared", EmptyDir: &webappv1.EmptyDirVolume{}}}
			a.Spec.Sidecars = []webappv1.Container{{Name: "proxy", Image: "proxy:1", Args: []string{"-v"},
				Env:          []webappv1.EnvVar{{Name: "UPSTREAM", Value: "localhost:8080"}},
				Resources:    webappv1.ResourceRequirements{Limits: webappv1.ResourceList{"memory": webappv1.MustParseQuantity("64Mi")}},
				VolumeMounts: []webappv1.VolumeMount{{Name: "shared", MountPath: "/in", ReadOnly: true}}}}
			a.Spec.InitContainers = []webappv1.Container{{Name: "migrate", Image: "migrate:1", Command: []string{"/migrate"}}}
		}),
		check: func(t *testing.T, d *appsv1.Deployment) {
			init := d.Spec.Template.Spec.InitContainers
			expect(t, "init containers", len(init), 2)
			expect(t, "first", init[0].Name, "migrate")
			expect(t, "first runs to completion", init[0].RestartPolicy, (*corev1.ContainerRestartPolicy)(nil))
			expect(t, "command", init[0].Command, []string{"/migrate"})
			expect(t, "then the sidecar", init[1].Name, "proxy")
			expect(t, "native sidecar", init[1].RestartPolicy, ptr.To(corev1.ContainerRestartPolicyAlways))
			expect(t, "sidecar args", init[1].Args, []string{"-v"})
			expect(t, "sidecar env", init[1].Env, []corev1.EnvVar{{Name: "UPSTREAM", Value: "localhost:8080"}})
			expect(t, "sidecar limits", init[1].Resources.Limits.Memory().String(), "64Mi")
			expect(t, "sidecar mounts", init[1].VolumeMounts, []corev1.VolumeMount{{Name: "shared", MountPath: "/in", ReadOnly: true}})
			expect(t, "app container", d.Spec.Template.Spec.Containers[0].Name, ContainerName)
		},
	}, {
		name: "scheduling: node selector, tolerations, node affinity, spreading per revision, priority",
		app: newApp(func(a *webappv1.WebApp) {
			a.Spec.Scheduling = &webappv1.Scheduling{
				NodeSelector: map[string]webappv1.LabelValue{"disk": "ssd"},
				Tolerations: []webappv1.Toleration{{Key: "dedicated", Value: "web", Effect: "NoSchedule"},
					{Operator: "Exists", Effect: "NoExecute", TolerationSeconds: ptr.To[int64](60)}},
				NodeAffinity: &webappv1.NodeAffinity{
					Required: []webappv1.NodeSelectorTerm{{MatchExpressions: []webappv1.NodeSelectorRequirement{
						{Key: "kubernetes.io/arch", Operator: "In", Values: []webappv1.LabelValue{"amd64", "arm64"}}}}},
					Preferred: []webappv1.PreferredNodeSelectorTerm{{Weight: 10, Term: webappv1.NodeSelectorTerm{
						MatchExpressions: []webappv1.NodeSelectorRequirement{{Key: "spot", Operator: "DoesNotExist"}}}}},
				},
				TopologySpreadConstraints: []webappv1.TopologySpreadConstraint{{MaxSkew: 2, TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: "DoNotSchedule"}},
				PriorityClassName:         "web",
			}
		}),
		check: func(t *testing.T, d *appsv1.Deployment) {
			pod := d.Spec.Template.Spec
			expect(t, "node selector", pod.NodeSelector, map[string]string{"disk": "ssd"})
			expect(t, "tolerations", pod.Tolerations, []corev1.Toleration{
				{Key: "dedicated", Value: "web", Effect: corev1.TaintEffectNoSchedule},
				{Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](60)}})
			expect(t, "affinity", pod.Affinity, &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
					MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "kubernetes.io/arch", Operator: corev1.NodeSelectorOpIn, Values: []string{"amd64", "arm64"}}}}}},
				PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{Weight: 10, Preference: corev1.NodeSelectorTerm{
					MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "spot", Operator: corev1.NodeSelectorOpDoesNotExist}}}}},
			}})
			expect(t, "spread", pod.TopologySpreadConstraints, []corev1.TopologySpreadConstraint{{
				MaxSkew: 2, TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule,
				LabelSelector:  &metav1.LabelSelector{MatchLabels: map[string]string{LabelName: AppName, LabelInstance: "shop"}},
				MatchLabelKeys: []string{appsv1.DefaultDeploymentUniqueLabelKey}}})
			expect(t, "priority class", pod.PriorityClassName, "web")
		},
	}, {
		name: "rollout: strategy, minReadySeconds, history",
		app: newApp(func(a *webappv1.WebApp) {
			a.Spec.Strategy = &webappv1.RolloutStrategy{MaxSurge: ptr.To(intstr.FromInt32(1)), MaxUnavailable: ptr.To(intstr.FromString("0%"))}
			a.Spec.MinReadySeconds = ptr.To[int32](5)
			a.Spec.RevisionHistoryLimit = ptr.To[int32](3)
		}),
		check: func(t *testing.T, d *appsv1.Deployment) {
			expect(t, "strategy", d.Spec.Strategy, appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: ptr.To(intstr.FromInt32(1)), MaxUnavailable: ptr.To(intstr.FromString("0%"))}})
			expect(t, "min ready", d.Spec.MinReadySeconds, int32(5))
			expect(t, "history", d.Spec.RevisionHistoryLimit, ptr.To[int32](3))
		},
	}, {
		name: "a minimal WebApp leaves the Deployment's own defaults alone, but for stopping (TestLifecycle, TestStrategy)",
		app:  newApp(nil),
		check: func(t *testing.T, d *appsv1.Deployment) {
			pod := d.Spec.Template.Spec
			expect(t, "history", d.Spec.RevisionHistoryLimit, (*int32)(nil))
			expect(t, "volumes", pod.Volumes, []corev1.Volume(nil))
			expect(t, "init containers", pod.InitContainers, []corev1.Container(nil))
			expect(t, "service account", pod.ServiceAccountName, "")
			expect(t, "affinity", pod.Affinity, (*corev1.Affinity)(nil))
			expect(t, "spread", pod.TopologySpreadConstraints, []corev1.TopologySpreadConstraint(nil))
			expect(t, "priority class", pod.PriorityClassName, "")
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.check(t, deployment(t, tt.app)) })
	}
}

func TestVolumeWithoutSourceIsAnError(t *testing.T) {
	_, err := renderDeployment(hub(t, newApp(func(a *webappv1.WebApp) {
		a.Spec.Volumes = []webappv1.Volume{{Name: "v", MountPath: "/v"}}
	})))
	if err == nil {
		t.Fatal("a volume without a source rendered")
	}
	expect(t, "message", err.Error(), `spec.pod.volumes[0]: volume "v" has no source`)
}

// Unless the WebApp says otherwise, a rollout never has fewer available pods than replicas: it
// surges first (maxUnavailable 0, Kubernetes' maxSurge). A WebApp that forbids a surge keeps
// Kubernetes' maxUnavailable, since both 0 cannot progress.
func TestStrategy(t *testing.T) {
	n, pct := intstr.FromInt32, intstr.FromString
	tests := []struct {
		name     string
		strategy *webappv1.RolloutStrategy
		want     appsv1.RollingUpdateDeployment
	}{
		{name: "none: surge, never below replicas", want: appsv1.RollingUpdateDeployment{MaxUnavailable: ptr.To(n(0))}},
		{name: "a surge: never below replicas", strategy: &webappv1.RolloutStrategy{MaxSurge: ptr.To(pct("50%"))},
			want: appsv1.RollingUpdateDeployment{MaxSurge: ptr.To(pct("50%")), MaxUnavailable: ptr.To(n(0))}},
		{name: "no surge: Kubernetes' maxUnavailable", strategy: &webappv1.RolloutStrategy{MaxSurge: ptr.To(n(0))},
			want: appsv1.RollingUpdateDeployment{MaxSurge: ptr.To(n(0))}},
		{name: "no surge, in percent", strategy: &webappv1.RolloutStrategy{MaxSurge: ptr.To(pct("0%"))},
			want: appsv1.RollingUpdateDeployment{MaxSurge: ptr.To(pct("0%"))}},
		{name: "maxUnavailable: the WebApp's", strategy: &webappv1.RolloutStrategy{MaxUnavailable: ptr.To(pct("25%"))},
			want: appsv1.RollingUpdateDeployment{MaxUnavailable: ptr.To(pct("25%"))}},
		{name: "both: the WebApp's", strategy: &webappv1.RolloutStrategy{MaxSurge: ptr.To(n(0)), MaxUnavailable: ptr.To(n(1))},
			want: appsv1.RollingUpdateDeployment{MaxSurge: ptr.To(n(0)), MaxUnavailable: ptr.To(n(1))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := deployment(t, newApp(func(a *webappv1.WebApp) { a.Spec.Strategy = tt.strategy }))
			expect(t, "strategy", d.Spec.Strategy, appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &tt.want})
		})
	}
}
