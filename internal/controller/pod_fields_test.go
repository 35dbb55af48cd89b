package controller_test

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
)

// fullWebApp sets every optional field of the pod, each to something other than its default.
func fullWebApp(ns, name string) *webappv1.WebApp {
	app := newWebApp(ns, name)
	s := &app.Spec
	s.Command = []string{"/srv"}
	s.Args = []string{"--listen=:8080"}
	s.Ports = []webappv1.ContainerPort{{Name: "metrics", ContainerPort: 9090, ServicePort: ptr.To[int32](9090)}, {Name: "admin", ContainerPort: 9091}}
	s.Volumes = []webappv1.Volume{
		{Name: "config", MountPath: "/etc/shop", ConfigMap: &webappv1.ConfigMapVolume{Name: "shop",
			Items: []webappv1.KeyToPath{{Key: "app.yaml", Path: "app.yaml", Mode: ptr.To[int32](0o440)}}}},
		{Name: "tls", MountPath: "/tls", Secret: &webappv1.SecretVolume{Name: "shop-tls", DefaultMode: ptr.To[int32](0o400)}},
		{Name: "cache", MountPath: "/cache", EmptyDir: &webappv1.EmptyDirVolume{Medium: "Memory", SizeLimit: ptr.To(webappv1.MustParseQuantity("64Mi"))}},
		{Name: "data", MountPath: "/data", SubPath: "shop", ReadOnly: true,
			PersistentVolumeClaim: &webappv1.PersistentVolumeClaimVolume{ClaimName: "shop-data"}},
	}
	s.ServiceAccountName = "shop"
	s.AutomountServiceAccountToken = ptr.To(true)
	s.ImagePullSecrets = []webappv1.ImagePullSecret{{Name: "registry"}}
	s.Probes = &webappv1.Probes{
		Readiness: &webappv1.Probe{HTTPGet: &webappv1.HTTPGetAction{Path: "/ready"}, PeriodSeconds: ptr.To[int32](2)},
		Liveness:  &webappv1.Probe{TCPSocket: &webappv1.TCPSocketAction{Port: ptr.To(intstr.FromString("admin"))}, FailureThreshold: ptr.To[int32](10)},
		Startup:   &webappv1.Probe{Exec: &webappv1.ExecAction{Command: []string{"/check"}}, PeriodSeconds: ptr.To[int32](1)},
	}
	s.Lifecycle = &webappv1.Lifecycle{PreStop: &webappv1.Handler{SleepSeconds: ptr.To[int64](5)}, TerminationGracePeriodSeconds: ptr.To[int64](45)}
	s.MinReadySeconds = ptr.To[int32](3)
	s.Strategy = &webappv1.RolloutStrategy{MaxSurge: ptr.To(intstr.FromInt32(1)), MaxUnavailable: ptr.To(intstr.FromString("0%"))}
	s.RevisionHistoryLimit = ptr.To[int32](4)
	s.Scheduling = &webappv1.Scheduling{
		NodeSelector: map[string]webappv1.LabelValue{"kubernetes.io/os": "linux"},
		Tolerations:  []webappv1.Toleration{{Key: "dedicated", Value: "web", Effect: "NoSchedule"}},
		NodeAffinity: &webappv1.NodeAffinity{Preferred: []webappv1.PreferredNodeSelectorTerm{{Weight: 10,
			Term: webappv1.NodeSelectorTerm{MatchExpressions: []webappv1.NodeSelectorRequirement{{Key: "spot", Operator: "DoesNotExist"}}}}}},
		TopologySpreadConstraints: []webappv1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone"}},
		PriorityClassName:         "system-cluster-critical",
	}
	s.Security = &webappv1.Security{RunAsUser: ptr.To[int64](1000), RunAsGroup: ptr.To[int64](1000), FSGroup: ptr.To[int64](2000),
		ReadOnlyRootFilesystem: ptr.To(true)}
	s.Sidecars = []webappv1.Container{{Name: "proxy", Image: "example.com/proxy:1", Args: []string{"-v"},
		Env:          []webappv1.EnvVar{{Name: "UPSTREAM", Value: "localhost:8080"}},
		Resources:    webappv1.ResourceRequirements{Limits: webappv1.ResourceList{"memory": webappv1.MustParseQuantity("64Mi")}},
		VolumeMounts: []webappv1.VolumeMount{{Name: "cache", MountPath: "/cache", ReadOnly: true}}}}
	s.InitContainers = []webappv1.Container{{Name: "migrate", Image: "example.com/migrate:1", Command: []string{"/migrate"}}}
	return app
}

var _ = Describe("A WebApp that uses every pod field", func() {
	var ns string
	BeforeEach(func() { ns = newNamespace() })

	It("renders them, settles with zero writes, corrects drift in them, and removes what it no longer asks for", func() {
		createConfigMap(ns, "shop", map[string]string{"app.yaml": "greeting: hello"})
		createSecret(ns, "shop-tls", map[string]string{"tls.crt": "cert", "tls.key": "key"})
		createReady(fullWebApp(ns, "full"))
		d := getDeployment(ns, "full")(Default)
		pod := d.Spec.Template.Spec
		Expect(pod.Volumes).To(HaveLen(4))
		Expect(pod.InitContainers).To(HaveLen(2))
		Expect(pod.InitContainers[1].RestartPolicy).To(Equal(ptr.To(corev1.ContainerRestartPolicyAlways)))
		Expect(pod.Containers[0].StartupProbe.Exec.Command).To(Equal([]string{"/check"}))
		Expect(pod.Containers[0].Lifecycle.PreStop.Sleep.Seconds).To(Equal(int64(5)))
		Expect(pod.SecurityContext.RunAsUser).To(Equal(ptr.To[int64](1000)))
		Expect(d.Spec.Strategy.RollingUpdate.MaxUnavailable).To(Equal(ptr.To(intstr.FromString("0%"))))
		Expect(getService(ns, "full")(Default).Spec.Ports).To(HaveLen(2))

		By("a pass over it, with nothing to change, writes nothing")
		writesBefore := settledWritesIn(ns)
		passesBefore := reconcileCount()
		Eventually(func(g Gomega) {
			d := getDeployment(ns, "full")(g)
			d.Labels["touched"] = fmt.Sprint(time.Now().UnixNano())
			g.Expect(k8sClient.Update(ctx, d)).To(Succeed())
		}, timeout, interval).Should(Succeed())
		Eventually(reconcileCount, timeout, interval).Should(BeNumerically(">", passesBefore))
		Consistently(func() []string { return requests.WritesIn(ns)[writesBefore:] }, 2*time.Second, 100*time.Millisecond).
			Should(BeEmpty(), "a pass with nothing to change must not write")

		By("someone edits a volume's ConfigMap, the sidecar's image and security context, and the startup probe")
		Eventually(func(g Gomega) {
			d := getDeployment(ns, "full")(g)
			pod := &d.Spec.Template.Spec
			pod.Volumes[0].ConfigMap.Name = "other"
			pod.InitContainers[1].Image = "evil:latest"
			pod.InitContainers[1].SecurityContext.AllowPrivilegeEscalation = ptr.To(true)
			pod.Containers[0].StartupProbe = nil
			g.Expect(k8sClient.Update(ctx, d)).To(Succeed())
		}, timeout, interval).Should(Succeed())
		Eventually(func(g Gomega) {
			pod := getDeployment(ns, "full")(g).Spec.Template.Spec
			g.Expect(pod.Volumes[0].ConfigMap.Name).To(Equal("shop"))
			g.Expect(pod.InitContainers[1].Image).To(Equal("example.com/proxy:1"))
			g.Expect(pod.InitContainers[1].SecurityContext.AllowPrivilegeEscalation).To(Equal(ptr.To(false)))
			g.Expect(pod.Containers[0].StartupProbe).NotTo(BeNil())
		}, timeout, interval).Should(Succeed())

		By("the WebApp drops its sidecars, init containers, volumes, extra ports and probes")
		Eventually(func(g Gomega) {
			app := fetch(ns, "full")
			app.Spec.Sidecars, app.Spec.InitContainers, app.Spec.Volumes, app.Spec.Ports, app.Spec.Probes = nil, nil, nil, nil, nil
			g.Expect(k8sClient.Update(ctx, app)).To(Succeed())
		}, timeout, interval).Should(Succeed())
		Eventually(func(g Gomega) {
			pod := getDeployment(ns, "full")(g).Spec.Template.Spec
			g.Expect(pod.InitContainers).To(BeEmpty())
			g.Expect(pod.Volumes).To(BeEmpty())
			g.Expect(pod.Containers[0].VolumeMounts).To(BeEmpty())
			g.Expect(pod.Containers[0].Ports).To(HaveLen(1))
			g.Expect(pod.Containers[0].ReadinessProbe).To(BeNil())
			g.Expect(getService(ns, "full")(g).Spec.Ports).To(HaveLen(1))
		}, timeout, interval).Should(Succeed())
	})
})

var _ = Describe("WebApp admission of the pod fields", func() {
	var ns string
	BeforeEach(func() { ns = newNamespace() })

	It("admits a WebApp that sets every one of them", func() {
		Expect(k8sClient.Create(ctx, fullWebApp(ns, "full"), client.DryRunAll)).To(Succeed())
	})

	It("drops what it does not declare: no privilege, host namespace or host path gets in", func() {
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": webappv1.GroupVersion.String(), "kind": "WebApp",
			"metadata": map[string]any{"namespace": ns, "name": "smuggler"},
			"spec": map[string]any{"image": "example.com/shop:1.0", "hostNetwork": true, "hostPID": true,
				"securityContext": map[string]any{"privileged": true},
				"security":        map[string]any{"privileged": true, "capabilities": map[string]any{"add": []any{"NET_ADMIN"}}},
				"volumes": []any{map[string]any{"name": "root", "mountPath": "/host", "emptyDir": map[string]any{},
					"hostPath": map[string]any{"path": "/"}}},
				"sidecars": []any{map[string]any{"name": "s", "image": "x:1", "securityContext": map[string]any{"privileged": true}}},
			},
		}}
		Expect(k8sClient.Create(ctx, u)).To(Succeed())
		spec := u.Object["spec"].(map[string]any)
		Expect(spec).NotTo(HaveKey("hostNetwork"))
		Expect(spec).NotTo(HaveKey("hostPID"))
		Expect(spec).NotTo(HaveKey("securityContext"))
		Expect(spec["security"]).To(BeEmpty())
		Expect(spec["volumes"].([]any)[0]).NotTo(HaveKey("hostPath"))
		Expect(spec["sidecars"].([]any)[0]).NotTo(HaveKey("securityContext"))
	})

	sleep := func(s int64) *webappv1.Handler { return &webappv1.Handler{SleepSeconds: ptr.To(s)} }
	tcp := &webappv1.Probe{TCPSocket: &webappv1.TCPSocketAction{}}
	emptyDir := func(name, path string) webappv1.Volume {
		return webappv1.Volume{Name: name, MountPath: path, EmptyDir: &webappv1.EmptyDirVolume{}}
	}
	toleration := func(t webappv1.Toleration) func(*webappv1.WebApp) {
		return func(a *webappv1.WebApp) {
			a.Spec.Scheduling = &webappv1.Scheduling{Tolerations: []webappv1.Toleration{t}}
		}
	}
	node := func(r webappv1.NodeSelectorRequirement) func(*webappv1.WebApp) {
		return func(a *webappv1.WebApp) {
			a.Spec.Scheduling = &webappv1.Scheduling{NodeAffinity: &webappv1.NodeAffinity{
				Required: []webappv1.NodeSelectorTerm{{MatchExpressions: []webappv1.NodeSelectorRequirement{r}}}}}
		}
	}
	DescribeTable("refuses what the Deployment could not run, with a clear message",
		func(mutate func(*webappv1.WebApp), wantMessage string) {
			app := newWebApp(ns, "a")
			mutate(app)
			err := k8sClient.Create(ctx, app)
			Expect(apierrors.IsInvalid(err)).To(BeTrue(), "expected Invalid, got %v", err)
			Expect(err.Error()).To(ContainSubstring(wantMessage))
		},
		Entry("minReadySeconds past the progress deadline", func(a *webappv1.WebApp) {
			a.Spec.MinReadySeconds = ptr.To[int32](600)
		}, "minReadySeconds must be less than progressDeadlineSeconds"),
		Entry("healthCheck and probes", func(a *webappv1.WebApp) {
			a.Spec.HealthCheck = &webappv1.HealthCheck{Path: "/healthz"}
			a.Spec.Probes = &webappv1.Probes{Readiness: tcp}
		}, "set healthCheck (the shorthand) or probes, not both"),
		Entry("an extra port on the Service's main port", func(a *webappv1.WebApp) {
			a.Spec.Ports = []webappv1.ContainerPort{{Name: "metrics", ContainerPort: 9090, ServicePort: ptr.To[int32](80)}}
		}, "each port's servicePort must differ from service.port and from the others'"),
		Entry("an extra port named http", func(a *webappv1.WebApp) {
			a.Spec.Ports = []webappv1.ContainerPort{{Name: "http", ContainerPort: 9090}}
		}, "is not http"),
		Entry("a sidecar and an init container of the same name", func(a *webappv1.WebApp) {
			a.Spec.Sidecars = []webappv1.Container{{Name: "x", Image: "x:1"}}
			a.Spec.InitContainers = []webappv1.Container{{Name: "x", Image: "x:1"}}
		}, "sidecars and initContainers need names of their own"),
		Entry("a sidecar named app", func(a *webappv1.WebApp) {
			a.Spec.Sidecars = []webappv1.Container{{Name: "app", Image: "x:1"}}
		}, "app is the main container's name"),
		Entry("a sidecar mounting a volume that does not exist", func(a *webappv1.WebApp) {
			a.Spec.Sidecars = []webappv1.Container{{Name: "s", Image: "x:1",
				VolumeMounts: []webappv1.VolumeMount{{Name: "nope", MountPath: "/nope"}}}}
		}, "volumeMounts name volumes of spec.volumes"),
		Entry("a sidecar mounting two volumes on one path", func(a *webappv1.WebApp) {
			a.Spec.Volumes = []webappv1.Volume{emptyDir("a", "/a"), emptyDir("b", "/b")}
			a.Spec.Sidecars = []webappv1.Container{{Name: "s", Image: "x:1",
				VolumeMounts: []webappv1.VolumeMount{{Name: "a", MountPath: "/x"}, {Name: "b", MountPath: "/x"}}}}
		}, "each volume mount needs a mountPath of its own"),
		Entry("two volumes on one mount path", func(a *webappv1.WebApp) {
			a.Spec.Volumes = []webappv1.Volume{emptyDir("a", "/x"), emptyDir("b", "/x")}
		}, "each volume needs a mountPath of its own"),
		Entry("a volume with two sources", func(a *webappv1.WebApp) {
			v := emptyDir("a", "/x")
			v.ConfigMap = &webappv1.ConfigMapVolume{Name: "cm"}
			a.Spec.Volumes = []webappv1.Volume{v}
		}, "a volume needs exactly one of configMap, secret, emptyDir or persistentVolumeClaim"),
		Entry("a subPath that climbs out", func(a *webappv1.WebApp) {
			v := emptyDir("a", "/x")
			v.SubPath = "../etc"
			a.Spec.Volumes = []webappv1.Volume{v}
		}, "subPath is a relative path without '..'"),
		Entry("a file path that climbs out", func(a *webappv1.WebApp) {
			a.Spec.Volumes = []webappv1.Volume{{Name: "a", MountPath: "/x", Secret: &webappv1.SecretVolume{Name: "s",
				Items: []webappv1.KeyToPath{{Key: "k", Path: "a/../../k"}}}}}
		}, "path is a relative path without '..'"),
		Entry("a service account that is not a name", func(a *webappv1.WebApp) { a.Spec.ServiceAccountName = "Shop" },
			"spec.serviceAccountName"),
		Entry("a probe with two ways", func(a *webappv1.WebApp) {
			a.Spec.Probes = &webappv1.Probes{Readiness: &webappv1.Probe{TCPSocket: &webappv1.TCPSocketAction{},
				Exec: &webappv1.ExecAction{Command: []string{"true"}}}}
		}, "a probe needs exactly one of httpGet, tcpSocket, grpc or exec"),
		Entry("a liveness probe asking for two successes", func(a *webappv1.WebApp) {
			a.Spec.Probes = &webappv1.Probes{Liveness: &webappv1.Probe{TCPSocket: &webappv1.TCPSocketAction{},
				SuccessThreshold: ptr.To[int32](2)}}
		}, "liveness and startup probes take successThreshold 1"),
		Entry("a probe port that is neither a number nor a name", func(a *webappv1.WebApp) {
			a.Spec.Probes = &webappv1.Probes{Readiness: &webappv1.Probe{TCPSocket: &webappv1.TCPSocketAction{
				Port: ptr.To(intstr.FromString("Admin"))}}}
		}, "a port is a number from 1 to 65535 or a port name"),
		Entry("a preStop pause longer than the grace period", func(a *webappv1.WebApp) {
			a.Spec.Lifecycle = &webappv1.Lifecycle{PreStop: sleep(40)}
		}, "preStop.sleepSeconds must fit in terminationGracePeriodSeconds"),
		Entry("a preStop with two actions", func(a *webappv1.WebApp) {
			h := sleep(1)
			h.Exec = &webappv1.ExecAction{Command: []string{"true"}}
			a.Spec.Lifecycle = &webappv1.Lifecycle{PreStop: h}
		}, "preStop needs exactly one of exec, httpGet or sleepSeconds"),
		Entry("a rollout that cannot move", func(a *webappv1.WebApp) {
			a.Spec.Strategy = &webappv1.RolloutStrategy{MaxSurge: ptr.To(intstr.FromInt32(0)), MaxUnavailable: ptr.To(intstr.FromString("0%"))}
		}, "maxSurge and maxUnavailable cannot both be 0"),
		Entry("a surge of more than 100%", func(a *webappv1.WebApp) {
			a.Spec.Strategy = &webappv1.RolloutStrategy{MaxSurge: ptr.To(intstr.FromString("150%"))}
		}, "a number from 0 to 1000, or a percentage from 0% to 100%"),
		Entry("a toleration with operator Exists and a value", toleration(webappv1.Toleration{Key: "k", Operator: "Exists", Value: "v"}),
			"a toleration with operator Exists has no value"),
		Entry("a toleration without a key, with operator Equal", toleration(webappv1.Toleration{Value: "v"}),
			"a toleration without a key needs operator Exists"),
		Entry("tolerationSeconds without NoExecute", toleration(webappv1.Toleration{Key: "k", TolerationSeconds: ptr.To[int64](5)}),
			"tolerationSeconds needs effect NoExecute"),
		Entry("a node expression In without values", node(webappv1.NodeSelectorRequirement{Key: "k", Operator: "In"}),
			"In, NotIn, Gt and Lt need values"),
		Entry("a node expression Gt on a word", node(webappv1.NodeSelectorRequirement{Key: "k", Operator: "Gt",
			Values: []webappv1.LabelValue{"many"}}), "Gt and Lt take one integer value"),
		Entry("two spread constraints on one key", func(a *webappv1.WebApp) {
			c := webappv1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone"}
			a.Spec.Scheduling = &webappv1.Scheduling{TopologySpreadConstraints: []webappv1.TopologySpreadConstraint{c, c}}
		}, "one constraint per topologyKey and whenUnsatisfiable"),
		Entry("a negative UID", func(a *webappv1.WebApp) { a.Spec.Security = &webappv1.Security{RunAsUser: ptr.To[int64](-1)} },
			"spec.security.runAsUser"),
	)
})
