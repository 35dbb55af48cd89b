package v1alpha1_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/internal/resources"
	"github.com/webapp-operator/webapp-operator/internal/testenv"
)

var _ = Describe("WebApp admission", func() {
	var ns string
	BeforeEach(func() { ns = newNamespace() })

	DescribeTable("refuses invalid specs with a clear message",
		func(name string, mutate func(*webappv1.WebApp), wantMessage string) {
			app := newWebApp(ns, name)
			mutate(app)
			err := k8sClient.Create(ctx, app)
			Expect(apierrors.IsInvalid(err)).To(BeTrue(), "expected Invalid, got %v", err)
			Expect(err.Error()).To(ContainSubstring(wantMessage))
		},
		Entry("empty image", "a", func(a *webappv1.WebApp) { a.Spec.Image = "" }, "spec.image"),
		Entry("image with whitespace", "a", func(a *webappv1.WebApp) { a.Spec.Image = "nginx latest" }, "image must not contain whitespace"),
		Entry("too many replicas", "a", func(a *webappv1.WebApp) { a.Spec.Replicas = ptr.To[int32](1001) }, "spec.replicas"),
		Entry("negative replicas", "a", func(a *webappv1.WebApp) { a.Spec.Replicas = ptr.To[int32](-1) }, "spec.replicas"),
		Entry("port out of range", "a", func(a *webappv1.WebApp) { a.Spec.Port = 70000 }, "spec.port"),
		Entry("service port out of range", "a", func(a *webappv1.WebApp) { a.Spec.Service.Port = 65536 }, "spec.service.port"),
		Entry("node port with ClusterIP", "a", func(a *webappv1.WebApp) {
			a.Spec.Service = webappv1.ServiceSpec{Type: webappv1.ServiceTypeClusterIP, NodePort: ptr.To[int32](30080)}
		}, "service.nodePort requires service.type NodePort or LoadBalancer"),
		Entry("node port out of range", "a", func(a *webappv1.WebApp) {
			a.Spec.Service = webappv1.ServiceSpec{Type: webappv1.ServiceTypeNodePort, NodePort: ptr.To[int32](80)}
		}, "spec.service.nodePort"),
		Entry("unknown service type", "a", func(a *webappv1.WebApp) { a.Spec.Service.Type = "ExternalName" }, "spec.service.type"),
		Entry("reserved pod label", "a", func(a *webappv1.WebApp) {
			a.Spec.PodLabels = map[string]webappv1.LabelValue{resources.LabelInstance: "x"}
		}, "podLabels must not set the reserved labels"),
		Entry("health check path without slash", "a", func(a *webappv1.WebApp) {
			a.Spec.HealthCheck = &webappv1.HealthCheck{Path: "healthz"}
		}, "spec.healthCheck.path"),
		Entry("name that cannot name a Service", "Shop.v2", func(a *webappv1.WebApp) {}, "metadata.name must be a DNS-1035 label"),
		Entry("name starting with a digit", "1shop", func(a *webappv1.WebApp) {}, "metadata.name must be a DNS-1035 label"),
		Entry("progress deadline too short", "a", func(a *webappv1.WebApp) { a.Spec.ProgressDeadlineSeconds = ptr.To[int32](1) }, "spec.progressDeadlineSeconds"),
		Entry("env var name with '='", "a", func(a *webappv1.WebApp) { a.Spec.Env = []webappv1.EnvVar{{Name: "A=B", Value: "x"}} }, "spec.env[0].name"),
		Entry("env var with a value and a source", "a", func(a *webappv1.WebApp) {
			a.Spec.Env = []webappv1.EnvVar{{Name: "A", Value: "x", ValueFrom: &webappv1.EnvVarSource{
				FieldRef: &webappv1.ObjectFieldSelector{FieldPath: "metadata.name"}}}}
		}, "env: set value or valueFrom, not both"),
		Entry("env var with two sources", "a", func(a *webappv1.WebApp) {
			a.Spec.Env = []webappv1.EnvVar{{Name: "A", ValueFrom: &webappv1.EnvVarSource{
				FieldRef:        &webappv1.ObjectFieldSelector{FieldPath: "metadata.name"},
				ConfigMapKeyRef: &webappv1.KeySelector{Name: "cm", Key: "k"}}}}
		}, "valueFrom needs exactly one of"),
		Entry("env var from an unsupported pod field", "a", func(a *webappv1.WebApp) {
			a.Spec.Env = []webappv1.EnvVar{{Name: "A", ValueFrom: &webappv1.EnvVarSource{
				FieldRef: &webappv1.ObjectFieldSelector{FieldPath: "spec.containers"}}}}
		}, "fieldPath must be metadata.name"),
		Entry("env var from a label with an invalid key", "a", func(a *webappv1.WebApp) {
			a.Spec.Env = []webappv1.EnvVar{{Name: "A", ValueFrom: &webappv1.EnvVarSource{
				FieldRef: &webappv1.ObjectFieldSelector{FieldPath: "metadata.labels['a b']"}}}}
		}, "fieldPath must be metadata.name"),
		Entry("env var from an unknown resource", "a", func(a *webappv1.WebApp) {
			a.Spec.Env = []webappv1.EnvVar{{Name: "A", ValueFrom: &webappv1.EnvVarSource{
				ResourceFieldRef: &webappv1.ResourceFieldSelector{Resource: "limits.gpu"}}}}
		}, "spec.env[0].valueFrom.resourceFieldRef.resource"),
		Entry("env var from a ConfigMap with an invalid name", "a", func(a *webappv1.WebApp) {
			a.Spec.Env = []webappv1.EnvVar{{Name: "A", ValueFrom: &webappv1.EnvVarSource{
				ConfigMapKeyRef: &webappv1.KeySelector{Name: "Bad_Name", Key: "k"}}}}
		}, "must be a DNS subdomain name"),
		Entry("envFrom with both a ConfigMap and a Secret", "a", func(a *webappv1.WebApp) {
			a.Spec.EnvFrom = []webappv1.EnvFromSource{{ConfigMapRef: &webappv1.ObjectReference{Name: "cm"},
				SecretRef: &webappv1.ObjectReference{Name: "s"}}}
		}, "envFrom needs exactly one of configMapRef or secretRef"),
		Entry("pod label key that is not a qualified name", "a", func(a *webappv1.WebApp) {
			a.Spec.PodLabels = map[string]webappv1.LabelValue{"team name": "a"}
		}, "podLabels keys must be qualified names"),
		Entry("pod label value that is not a label value", "a", func(a *webappv1.WebApp) {
			a.Spec.PodLabels = map[string]webappv1.LabelValue{"team": "-a"}
		}, "spec.podLabels.team"),
		Entry("pod annotation key that is not a qualified name", "a", func(a *webappv1.WebApp) {
			a.Spec.PodAnnotations = map[string]webappv1.AnnotationValue{"not/a/key": "x"}
		}, "podAnnotations keys must be qualified names"),
		Entry("a disruption budget that allows no eviction", "a", func(a *webappv1.WebApp) {
			a.Spec.DisruptionBudget = &webappv1.DisruptionBudget{MaxUnavailable: ptr.To(intstr.FromInt32(0))}
		}, "a number from 1 to 1000, or a percentage from 1% to 100%"),
		Entry("a disruption budget of 0%", "a", func(a *webappv1.WebApp) {
			a.Spec.DisruptionBudget = &webappv1.DisruptionBudget{MaxUnavailable: ptr.To(intstr.FromString("0%"))}
		}, "a number from 1 to 1000, or a percentage from 1% to 100%"),
		Entry("a disruption budget that is not a number or a percentage", "a", func(a *webappv1.WebApp) {
			a.Spec.DisruptionBudget = &webappv1.DisruptionBudget{MaxUnavailable: ptr.To(intstr.FromString("one"))}
		}, "a number from 1 to 1000, or a percentage from 1% to 100%"),
		Entry("an autoscaler whose minimum exceeds its maximum", "a", func(a *webappv1.WebApp) {
			a.Spec.Autoscaling = &webappv1.Autoscaling{MinReplicas: ptr.To[int32](5), MaxReplicas: 3}
		}, "autoscaling.minReplicas must not exceed maxReplicas"),
		Entry("an autoscaler without a maximum", "a", func(a *webappv1.WebApp) {
			a.Spec.Autoscaling = &webappv1.Autoscaling{}
		}, "spec.autoscaling.maxReplicas"),
		Entry("an autoscaler target of 0%", "a", func(a *webappv1.WebApp) {
			a.Spec.Autoscaling = &webappv1.Autoscaling{MaxReplicas: 3, TargetCPUUtilizationPercentage: ptr.To[int32](0)}
		}, "spec.autoscaling.targetCPUUtilizationPercentage"),
		Entry("a scaling policy of an unknown type", "a", func(a *webappv1.WebApp) {
			a.Spec.Autoscaling = &webappv1.Autoscaling{MaxReplicas: 3, Behavior: &webappv1.ScalingBehavior{
				ScaleUp: &webappv1.ScalingRules{Policies: []webappv1.ScalingPolicy{{Type: "Nodes", Value: 1, PeriodSeconds: 60}}}}}
		}, "spec.autoscaling.behavior.scaleUp.policies[0].type"),
		Entry("a scaling policy period beyond 30 minutes", "a", func(a *webappv1.WebApp) {
			a.Spec.Autoscaling = &webappv1.Autoscaling{MaxReplicas: 3, Behavior: &webappv1.ScalingBehavior{
				ScaleDown: &webappv1.ScalingRules{Policies: []webappv1.ScalingPolicy{{Type: "Pods", Value: 1, PeriodSeconds: 1801}}}}}
		}, "spec.autoscaling.behavior.scaleDown.policies[0].periodSeconds"),
		Entry("a network policy namespace that is not a namespace name", "a", func(a *webappv1.WebApp) {
			a.Spec.NetworkPolicy = &webappv1.NetworkPolicy{FromNamespaces: []string{"Ingress_NGINX"}}
		}, "spec.networkPolicy.fromNamespaces[0]"),
		Entry("a network policy namespace listed twice", "a", func(a *webappv1.WebApp) {
			a.Spec.NetworkPolicy = &webappv1.NetworkPolicy{FromNamespaces: []string{"gw", "gw"}}
		}, "spec.networkPolicy.fromNamespaces[1]"),
		Entry("an Ingress without hosts", "a", func(a *webappv1.WebApp) { a.Spec.Ingress = &webappv1.Ingress{} },
			"spec.ingress.hosts"),
		Entry("an Ingress host that is an IP address", "a", func(a *webappv1.WebApp) {
			a.Spec.Ingress = &webappv1.Ingress{Hosts: []string{"10.0.0.1"}}
		}, "a host is a DNS name, not an IP address"),
		Entry("an Ingress host with upper case letters", "a", func(a *webappv1.WebApp) {
			a.Spec.Ingress = &webappv1.Ingress{Hosts: []string{"Shop.example.com"}}
		}, "spec.ingress.hosts[0]"),
		Entry("an Ingress path that is not absolute", "a", func(a *webappv1.WebApp) {
			a.Spec.Ingress = &webappv1.Ingress{Hosts: []string{"a.example.com"}, Paths: []string{"shop"}}
		}, "spec.ingress.paths[0]"),
		Entry("an Ingress path with '//'", "a", func(a *webappv1.WebApp) {
			a.Spec.Ingress = &webappv1.Ingress{Hosts: []string{"a.example.com"}, Paths: []string{"/a//b"}}
		}, "a path has no '//'"),
		Entry("an Ingress TLS Secret that is not a name", "a", func(a *webappv1.WebApp) {
			a.Spec.Ingress = &webappv1.Ingress{Hosts: []string{"a.example.com"}, TLS: &webappv1.IngressTLS{SecretName: "Shop TLS"}}
		}, "spec.ingress.tls.secretName"),
		Entry("an Ingress annotation key that is not a qualified name", "a", func(a *webappv1.WebApp) {
			a.Spec.Ingress = &webappv1.Ingress{Hosts: []string{"a.example.com"},
				Annotations: map[string]webappv1.AnnotationValue{"not/a/key": "x"}}
		}, "annotation keys must be qualified names"),
		Entry("resource that containers cannot request", "a", func(a *webappv1.WebApp) {
			a.Spec.Resources.Limits = webappv1.ResourceList{"gpu": webappv1.MustParseQuantity("1")}
		}, "resource names are cpu, memory"),
	)

	It("refuses podAnnotations that set the operator's annotation", func() {
		app := newWebApp(ns, "forged")
		app.Spec.PodAnnotations = map[string]webappv1.AnnotationValue{webappv1.ConfigRevisionAnnotation: "0123456789abcdef"}
		err := k8sClient.Create(ctx, app)
		Expect(apierrors.IsInvalid(err)).To(BeTrue(), "expected Invalid, got %v", err)
		Expect(strings.Contains(err.Error(), "podAnnotations must not set "+webappv1.ConfigRevisionAnnotation)).To(BeTrue(), err.Error())
	})

	// Values that core/v1's schema admits but the operator's decoder refuses: sent as raw JSON,
	// since the Go types cannot even hold them.
	DescribeTable("refuses what the operator cannot decode",
		func(field []string, value any, wantMessage string) {
			u := &unstructured.Unstructured{}
			u.SetGroupVersionKind(webappv1.GroupVersion.WithKind("WebApp"))
			u.SetNamespace(ns)
			u.SetName("undecodable")
			Expect(unstructured.SetNestedField(u.Object, "example.com/shop:1.0", "spec", "image")).To(Succeed())
			Expect(unstructured.SetNestedField(u.Object, value, field...)).To(Succeed())
			err := k8sClient.Create(ctx, u)
			Expect(apierrors.IsInvalid(err)).To(BeTrue(), "expected Invalid, got %v", err)
			Expect(err.Error()).To(ContainSubstring(wantMessage))
		},
		Entry("quantity with a decimal exponent", []string{"spec", "resources", "requests", "cpu"}, "1e1.5", "spec.resources.requests.cpu"),
		Entry("quantity with a three-digit exponent", []string{"spec", "resources", "limits", "memory"}, "1e100", "spec.resources.limits.memory"),
		Entry("negative quantity", []string{"spec", "resources", "limits", "memory"}, "-1Gi", "spec.resources.limits.memory"),
		Entry("negative integer quantity", []string{"spec", "resources", "limits", "cpu"}, int64(-1), "a quantity may not be negative"),
		Entry("quantity with an unknown suffix", []string{"spec", "resources", "limits", "cpu"}, "1Ki0", "spec.resources.limits.cpu"),
		Entry("divisor with a decimal exponent", []string{"spec", "env"}, []any{map[string]any{"name": "CPU",
			"valueFrom": map[string]any{"resourceFieldRef": map[string]any{"resource": "limits.cpu", "divisor": "1e0.5"}}}},
			"spec.env[0].valueFrom.resourceFieldRef.divisor"),
	)

	It("fills in the defaults", func() {
		app := &webappv1.WebApp{ObjectMeta: metav1.ObjectMeta{Name: "defaults", Namespace: ns},
			Spec: webappv1.WebAppSpec{Image: "nginx"}}
		Expect(k8sClient.Create(ctx, app)).To(Succeed())
		got := fetch(ns, "defaults")
		Expect(got.Spec.Replicas).To(Equal(ptr.To[int32](1)))
		Expect(got.Spec.Port).To(Equal(int32(8080)))
		Expect(got.Spec.Service).To(Equal(webappv1.ServiceSpec{Type: webappv1.ServiceTypeClusterIP, Port: 80}))
	})
})

var _ = Describe("WebApp admission of the pod fields", func() {
	var ns string
	BeforeEach(func() { ns = newNamespace() })

	It("admits a WebApp that sets every one of them", func() {
		Expect(k8sClient.Create(ctx, testenv.FullWebApp(ns, "full"), client.DryRunAll)).To(Succeed())
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

var _ = Describe("WebApp admission of spec.metrics", func() {
	var ns string
	BeforeEach(func() { ns = newNamespace() })

	DescribeTable("resolves spec.metrics.port against the container's ports",
		func(mutate func(*webappv1.WebApp), wantMessage string) {
			app := newWebApp(ns, "m")
			app.Spec.Ports = []webappv1.ContainerPort{{Name: "metrics", ContainerPort: 9090},
				{Name: "admin", ContainerPort: 9091, ServicePort: ptr.To[int32](8091)}}
			app.Spec.Metrics = &webappv1.Metrics{}
			mutate(app)
			err := k8sClient.Create(ctx, app)
			if wantMessage == "" {
				Expect(err).NotTo(HaveOccurred())
				Expect(k8sClient.Delete(ctx, app)).To(Succeed())
				return
			}
			Expect(apierrors.IsInvalid(err)).To(BeTrue(), "expected Invalid, got %v", err)
			Expect(err.Error()).To(ContainSubstring(wantMessage))
		},
		Entry("the default, the main port", func(a *webappv1.WebApp) {}, ""),
		Entry("the main port by number", func(a *webappv1.WebApp) { a.Spec.Metrics.Port = ptr.To(intstr.FromInt32(8080)) }, ""),
		Entry("a port of spec.ports by name", func(a *webappv1.WebApp) {
			a.Spec.Metrics.Port = ptr.To(intstr.FromString("admin"))
		}, ""),
		Entry("a port of spec.ports by number", func(a *webappv1.WebApp) {
			a.Spec.Metrics.Port = ptr.To(intstr.FromInt32(9090))
		}, ""),
		Entry("a name no port has", func(a *webappv1.WebApp) { a.Spec.Metrics.Port = ptr.To(intstr.FromString("prom")) },
			"metrics.port is http, spec.port, or the name or containerPort of one of spec.ports"),
		Entry("a number no port has", func(a *webappv1.WebApp) { a.Spec.Metrics.Port = ptr.To(intstr.FromInt32(9100)) },
			"metrics.port is http, spec.port, or the name or containerPort of one of spec.ports"),
		Entry("a number out of range", func(a *webappv1.WebApp) { a.Spec.Metrics.Port = ptr.To(intstr.FromInt32(70000)) },
			"a port number is between 1 and 65535"),
		Entry("a UDP port", func(a *webappv1.WebApp) {
			a.Spec.Ports[0].Protocol = "UDP"
			a.Spec.Metrics.Port = ptr.To(intstr.FromString("metrics"))
		}, "the metrics port is TCP"),
		Entry("a container port the Service already uses", func(a *webappv1.WebApp) {
			a.Spec.Service.Port = 9090
			a.Spec.Metrics.Port = ptr.To(intstr.FromString("metrics"))
		}, "which must then differ from service.port and from every servicePort"),
		Entry("a container port another port's servicePort uses", func(a *webappv1.WebApp) {
			a.Spec.Ports[1].ServicePort = ptr.To[int32](9090)
			a.Spec.Metrics.Port = ptr.To(intstr.FromString("metrics"))
		}, "which must then differ from service.port and from every servicePort"),
		Entry("a path that is not absolute", func(a *webappv1.WebApp) { a.Spec.Metrics.Path = "metrics" }, "spec.metrics.path"),
		Entry("an interval of zero", func(a *webappv1.WebApp) { a.Spec.Metrics.Interval = "0s" },
			"an interval is a Prometheus duration above zero"),
		Entry("an interval that is no duration", func(a *webappv1.WebApp) { a.Spec.Metrics.Interval = "1 minute" },
			"spec.metrics.interval"),
	)
})
