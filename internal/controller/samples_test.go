package controller_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/api/v1beta1"
	"github.com/webapp-operator/webapp-operator/internal/resources"
	"github.com/webapp-operator/webapp-operator/internal/status"
)

// The samples of config/samples are what users apply first, and what the console's "Create WebApp"
// form starts from (the CSV's alm-examples). Each is applied here exactly as it ships, and must reach
// the state its comment promises, with the suite playing the controllers it waits for. Each v1beta1
// sample has a v1alpha1 twin, which a user of the deprecated version applies: it must still be
// admitted as it ships, and become the same app.

var samplesDir = filepath.Join("..", "..", "config", "samples")

// sample is one file that kustomization.yaml lists, and what it shows.
type sample struct {
	file string
	// children are the kinds of child (resources.All) it asks for besides the Deployment and the
	// Service; it must have no other.
	children []string
	// companions are the files of the objects it reads, which kustomization.yaml does not list (it
	// says why), applied before it.
	companions []string
	// check checks what else its comment promises, once it is Ready.
	check func(app *webappv1.WebApp)
	// twin is the same app in v1alpha1, which kustomization.yaml does not list.
	twin string
}

// shippedSamples are the files of kustomization.yaml, in its order. A sample missing here fails the spec
// that compares the two.
var shippedSamples = []sample{
	{file: "apps_v1beta1_webapp.yaml", children: []string{"PodDisruptionBudget"}, check: checkBasicSample},
	{file: "apps_v1beta1_webapp_route.yaml", children: []string{"PodDisruptionBudget", "Ingress", "HTTPRoute"},
		check: checkRouteSample},
	{file: "apps_v1beta1_webapp_autoscaling.yaml", children: []string{"PodDisruptionBudget", "HorizontalPodAutoscaler"},
		check: checkAutoscalingSample},
	{file: "apps_v1beta1_webapp_config.yaml", children: []string{"PodDisruptionBudget"},
		companions: []string{"v1_configmap_webapp_config.yaml"}, check: checkConfigSample},
	{file: "apps_v1beta1_webapp_metrics.yaml", children: []string{"PodDisruptionBudget", "ServiceMonitor"},
		companions: []string{"v1_configmap_webapp_metrics.yaml"}, check: checkMetricsSample},
	{file: "apps_v1beta1_webapp_networkpolicy.yaml", children: []string{"PodDisruptionBudget", "NetworkPolicy"},
		check: checkNetworkPolicySample},
}

func init() {
	for i := range shippedSamples {
		shippedSamples[i].twin = strings.Replace(shippedSamples[i].file, "_v1beta1_", "_v1alpha1_", 1)
	}
}

var _ = Describe("The samples", func() {
	It("are every file of config/samples: those kustomization.yaml lists, one WebApp each, and what they read", func() {
		var kustomization struct {
			Resources []string `json:"resources"`
		}
		data, err := os.ReadFile(filepath.Join(samplesDir, "kustomization.yaml"))
		Expect(err).NotTo(HaveOccurred())
		Expect(utilyaml.Unmarshal(data, &kustomization)).To(Succeed())
		listed := make([]string, 0, len(shippedSamples))
		var companions []string
		twins := make([]string, 0, len(shippedSamples))
		for _, s := range shippedSamples {
			listed = append(listed, s.file)
			companions = append(companions, s.companions...)
			twins = append(twins, s.twin)
		}
		Expect(kustomization.Resources).To(Equal(listed),
			"every sample kustomization.yaml lists has an entry in shippedSamples (samples_test.go), in the same order")

		entries, err := os.ReadDir(samplesDir)
		Expect(err).NotTo(HaveOccurred())
		var files []string
		for _, e := range entries {
			if e.Name() != "kustomization.yaml" {
				files = append(files, e.Name())
			}
		}
		Expect(files).To(ConsistOf(slices.Concat(listed, companions, twins)),
			"a file of config/samples is either listed in kustomization.yaml, read by a sample it lists, or a sample's v1alpha1 twin")

		names := make([]string, 0, len(shippedSamples))
		for _, s := range shippedSamples {
			objs := readSampleFile(s.file)
			// `make bundle` copies into the bundle whatever else the kustomization holds
			Expect(objs).To(HaveLen(1), "%s: one object, a WebApp", s.file)
			Expect(objs[0].GroupVersionKind()).To(Equal(v1beta1.GroupVersion.WithKind("WebApp")), s.file)
			twin := readSampleFile(s.twin)
			Expect(twin).To(HaveLen(1), s.twin)
			Expect(twin[0].GroupVersionKind()).To(Equal(webappv1.GroupVersion.WithKind("WebApp")), s.twin)
			Expect(twin[0].GetName()).To(Equal(objs[0].GetName()), s.twin)
			Expect(objs[0].GetNamespace()).To(BeEmpty(), "%s: applied to the namespace the user chooses", s.file)
			names = append(names, objs[0].GetName())
			for _, kind := range s.children {
				Expect(childKinds()).To(ContainElement(kind), "%s: no child is a %s", s.file, kind)
			}
		}
		// kustomize orders the alm-examples by name; the first is the console's default
		Expect(slices.Min(names)).To(Equal(names[0]), "the basic sample's name sorts first")
		for _, f := range companions {
			for _, obj := range readSampleFile(f) {
				Expect(obj.GetKind()).NotTo(Equal("WebApp"), "%s: a WebApp belongs in kustomization.yaml", f)
				Expect(obj.GetNamespace()).To(BeEmpty(), f)
			}
		}
		for _, f := range files {
			data, err := os.ReadFile(filepath.Join(samplesDir, f))
			Expect(err).NotTo(HaveOccurred())
			Expect(string(data)).To(HavePrefix("# "), "%s opens with a comment that says what it shows", f)
		}
	})

	DescribeTable("each is admitted as it ships, and reconciled to the state its comment promises",
		func(s sample) {
			ns := applySample(s.file, s.companions)
			app := fetch(ns, readSampleFile(s.file)[0].GetName())

			playTheCluster(app)
			name := app.Name
			Eventually(condition(ns, name, webappv1.ConditionReady), timeout, interval).
				Should(haveStatusReason(metav1.ConditionTrue, status.ReasonReady))
			Expect(condition(ns, name, webappv1.ConditionAvailable)(Default).Status).To(Equal(metav1.ConditionTrue))
			Expect(condition(ns, name, webappv1.ConditionReconciling)(Default).Status).To(Equal(metav1.ConditionFalse))
			Expect(condition(ns, name, webappv1.ConditionStalled)(Default).Status).To(Equal(metav1.ConditionFalse))
			if app.Spec.Autoscaling != nil {
				Eventually(condition(ns, name, webappv1.ConditionAutoscaling), timeout, interval).
					Should(haveStatusReason(metav1.ConditionTrue, status.ReasonAutoscalingActive))
			}

			wanted := append([]string{"Deployment", "Service"}, s.children...)
			app = fetch(ns, name)
			for _, child := range resources.All {
				obj := child.New()
				err := k8sClient.Get(ctx, key(ns, name), obj)
				if slices.Contains(wanted, child.Kind()) {
					Expect(err).NotTo(HaveOccurred(), "the %s the sample asks for", child.Kind())
					Expect(metav1.IsControlledBy(obj, app)).To(BeTrue(), "the %s is the WebApp's", child.Kind())
				} else {
					Expect(apierrors.IsNotFound(err)).To(BeTrue(), "a %s the sample does not show: %v", child.Kind(), err)
				}
			}
			s.check(app)

			By("its v1alpha1 twin, in another namespace: admitted as it ships, it becomes the same app")
			twinNS := applySample(s.twin, s.companions)
			twinApp := fetch(twinNS, name)
			playTheCluster(twinApp)
			expectReady(twinNS, name)
			expectSameApp(ns, twinNS, name, wanted)
		},
		func() []TableEntry {
			entries := make([]TableEntry, 0, len(shippedSamples))
			for _, s := range shippedSamples {
				entries = append(entries, Entry(s.file, s))
			}
			return entries
		}(),
	)
})

// applySample creates, in a new namespace, the objects of the companion files and then the WebApp
// of file, as they ship, and returns the namespace.
func applySample(file string, companions []string) string {
	GinkgoHelper()
	ns := newNamespace()
	for _, f := range companions {
		for _, obj := range readSampleFile(f) {
			obj.SetNamespace(ns)
			Expect(k8sClient.Create(ctx, obj, client.FieldValidation("Strict"))).To(Succeed(), f)
		}
	}
	objs := readSampleFile(file)
	Expect(objs).To(HaveLen(1))
	u := objs[0]
	u.SetNamespace(ns)
	// strict, as kubectl apply is: a field the schema does not know is an error, not dropped
	Expect(k8sClient.Create(ctx, u, client.FieldValidation("Strict"))).To(Succeed(), "the API server refuses %s", file)
	return ns
}

// expectSameApp expects the WebApp name of namespaces a and b to have the same children of the
// kinds wanted, as the API server keeps them (its defaults applied): the Deployment's replicas and
// pod spec, the Service's type and ports, and the other children's specs.
func expectSameApp(a, b, name string, wanted []string) {
	GinkgoHelper()
	da, db := getDeployment(a, name)(Default), getDeployment(b, name)(Default)
	Expect(db.Spec.Replicas).To(Equal(da.Spec.Replicas))
	Expect(db.Spec.Template.Spec).To(Equal(da.Spec.Template.Spec), "the pod spec")
	sa, sb := getService(a, name)(Default), getService(b, name)(Default)
	Expect(sb.Spec.Type).To(Equal(sa.Spec.Type))
	Expect(sb.Spec.Ports).To(Equal(sa.Spec.Ports))
	for _, child := range resources.All {
		if !slices.Contains(wanted, child.Kind()) || child.Kind() == "Deployment" || child.Kind() == "Service" {
			continue
		}
		oa, ob := get(a, name, child.New())(Default), get(b, name, child.New())(Default)
		ua, err := runtime.DefaultUnstructuredConverter.ToUnstructured(oa)
		Expect(err).NotTo(HaveOccurred())
		ub, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ob)
		Expect(err).NotTo(HaveOccurred())
		Expect(namespaced(ub["spec"], b, a)).To(Equal(ua["spec"]), "the %s's spec", child.Kind())
	}
}

// namespaced is v with every string from replaced by to: a child's spec may name its namespace.
func namespaced(v any, from, to string) any {
	switch t := v.(type) {
	case string:
		return strings.ReplaceAll(t, from, to)
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = namespaced(x, from, to)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = namespaced(x, from, to)
		}
		return out
	}
	return v
}

// readSampleFile decodes the objects of a file of config/samples, as kubectl reads them.
func readSampleFile(file string) []*unstructured.Unstructured {
	GinkgoHelper()
	data, err := os.ReadFile(filepath.Join(samplesDir, file))
	Expect(err).NotTo(HaveOccurred())
	decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var objs []*unstructured.Unstructured
	for {
		var obj map[string]any
		err := decoder.Decode(&obj)
		if errors.Is(err, io.EOF) {
			return objs
		}
		Expect(err).NotTo(HaveOccurred(), file)
		if obj != nil { // an empty document
			objs = append(objs, &unstructured.Unstructured{Object: obj})
		}
	}
}

func childKinds() []string {
	kinds := make([]string, 0, len(resources.All))
	for _, c := range resources.All {
		kinds = append(kinds, c.Kind())
	}
	return kinds
}

// playTheCluster plays the controllers of a cluster that the sample app waits for: the autoscaler
// scaling it to its minimum and reading the pods' CPU use, the Deployment controller rolling out
// revision 1, the ingress controller giving the Ingress an address, the Gateways accepting the route.
func playTheCluster(app *webappv1.WebApp) {
	GinkgoHelper()
	ns, name := app.Namespace, app.Name
	Eventually(getDeployment(ns, name), timeout, interval).ShouldNot(BeNil(), func() string {
		return fmt.Sprintf("no Deployment; the WebApp's conditions: %+v", fetch(ns, name).Status.Conditions)
	})
	if a := app.Spec.Autoscaling; a != nil {
		replicas := ptr.Deref(a.MinReplicas, 1)
		scaleAsTheAutoscaler(ns, name, replicas)
		playAutoscalerStatus(ns, name, replicas, time.Now(), "ReadyForNewScale",
			hpaCondition(autoscalingv2.ScalingActive, corev1.ConditionTrue, "ValidMetricFound",
				"the HPA was able to successfully calculate a replica count from cpu resource utilization"))
	}
	playRollout(ns, name, 1)
	if app.Spec.Ingress != nil {
		playIngressController(ns, name)
	}
	if r := app.Spec.Route; r != nil {
		parents := make([][3]string, 0, len(r.ParentRefs))
		for _, p := range r.ParentRefs {
			parents = append(parents, [3]string{p.Name, p.Namespace, p.SectionName})
		}
		playGatewayController(ns, name, parents...)
	}
}

// appContainer is the app's container in d's pod template.
func appContainer(d *appsv1.Deployment) corev1.Container {
	GinkgoHelper()
	for _, c := range d.Spec.Template.Spec.Containers {
		if c.Name == resources.ContainerName {
			return c
		}
	}
	Fail("the Deployment has no app container")
	return corev1.Container{}
}

// checkBasicSample: two pods of the image, run as the image's own non-root user, probed on /, behind
// a Service on port 80, one evictable at a time.
func checkBasicSample(app *webappv1.WebApp) {
	ns, name := app.Namespace, app.Name
	d := getDeployment(ns, name)(Default)
	Expect(d.Spec.Replicas).To(Equal(ptr.To[int32](2)))
	c := appContainer(d)
	Expect(c.Image).To(HavePrefix("docker.io/nginxinc/nginx-unprivileged:"),
		"the e2e suite stands in for this image with one of the same user (test/e2e/sample_test.go)")
	Expect(c.Ports).To(ContainElement(And(HaveField("Name", "http"), HaveField("ContainerPort", int32(8080)))))
	Expect(c.ReadinessProbe.HTTPGet.Path).To(Equal("/"))
	Expect(c.LivenessProbe.HTTPGet.Path).To(Equal("/"))
	Expect(d.Spec.Template.Spec.SecurityContext.RunAsNonRoot).To(Equal(ptr.To(true)))
	Expect(d.Spec.Template.Spec.SecurityContext.RunAsUser).To(BeNil(), "the image's user runs it")
	Expect(getService(ns, name)(Default).Spec.Ports).To(ConsistOf(HaveField("Port", int32(80))))
	Expect(get(ns, name, &policyv1.PodDisruptionBudget{})(Default).Spec.MaxUnavailable).To(Equal(ptr.To(intstr.FromInt32(1))))
	Expect(app.Status.URL).To(Equal("http://webapp-sample." + ns + ".svc:80"))
}

// checkRouteSample: shop.example.com through the Ingress of class nginx and the route of the
// Gateway gateway-system/public; the route's URL.
func checkRouteSample(app *webappv1.WebApp) {
	ns, name := app.Namespace, app.Name
	ing := get(ns, name, &networkingv1.Ingress{})(Default)
	Expect(ing.Spec.IngressClassName).To(Equal(ptr.To("nginx")))
	Expect(ing.Spec.Rules).To(ConsistOf(HaveField("Host", "shop.example.com")))
	route := get(ns, name, newRoute())(Default)
	hostnames, _, _ := unstructured.NestedStringSlice(route.Object, "spec", "hostnames")
	Expect(hostnames).To(Equal([]string{"shop.example.com"}))
	parents, _, _ := unstructured.NestedSlice(route.Object, "spec", "parentRefs")
	Expect(parents).To(ConsistOf(And(HaveKeyWithValue("name", "public"), HaveKeyWithValue("namespace", "gateway-system"))))
	Expect(app.Status.URL).To(Equal("http://shop.example.com/"))
}

// checkAutoscalingSample: the autoscaler scales the Deployment between 2 and 10 pods at 70% of their
// CPU request, and the budget lets one go at a time.
func checkAutoscalingSample(app *webappv1.WebApp) {
	ns, name := app.Namespace, app.Name
	h := get(ns, name, &autoscalingv2.HorizontalPodAutoscaler{})(Default)
	Expect(h.Spec.ScaleTargetRef).To(Equal(autoscalingv2.CrossVersionObjectReference{
		APIVersion: "apps/v1", Kind: "Deployment", Name: name}))
	Expect(h.Spec.MinReplicas).To(Equal(ptr.To[int32](2)))
	Expect(h.Spec.MaxReplicas).To(Equal(int32(10)))
	Expect(h.Spec.Metrics).To(ConsistOf(HaveField("Resource", And(HaveField("Name", corev1.ResourceCPU),
		HaveField("Target.AverageUtilization", ptr.To[int32](70))))))
	d := getDeployment(ns, name)(Default)
	Expect(d.Spec.Replicas).To(Equal(ptr.To[int32](2)), "the autoscaler's replicas")
	Expect(appContainer(d).Resources.Requests).To(HaveKeyWithValue(corev1.ResourceCPU, resource.MustParse("100m")),
		"utilization is a percentage of the request")
	Expect(get(ns, name, &policyv1.PodDisruptionBudget{})(Default).Spec.MaxUnavailable).To(Equal(ptr.To(intstr.FromInt32(1))))
}

// checkConfigSample: the ConfigMap's keys are the container's environment; a change of its data
// rolls the pods; each Ready template is recorded for autoRollback to go back to.
func checkConfigSample(app *webappv1.WebApp) {
	ns, name := app.Namespace, app.Name
	Expect(app.Spec.Rollout).NotTo(BeNil())
	Expect(app.Spec.Rollout.AutoRollback).To(BeTrue())
	Expect(app.Spec.EnvFrom).To(HaveLen(1))
	configMap := app.Spec.EnvFrom[0].ConfigMapRef.Name
	d := getDeployment(ns, name)(Default)
	Expect(appContainer(d).EnvFrom).To(ConsistOf(HaveField("ConfigMapRef.Name", configMap)))
	rev := templateRevision(ns, name)(Default)
	Expect(rev).To(MatchRegexp("^[0-9a-f]{16}$"))
	Expect(app.Status.ConfigRevision).To(Equal(rev), "status says which configuration runs")
	Eventually(func() []webappv1.Revision { return fetch(ns, name).Status.Revisions }, timeout, interval).
		Should(HaveExactElements(And(HaveField("Revision", int64(1)), HaveField("Image", app.Spec.Image),
			HaveField("ConfigRevision", rev))))

	By("the ConfigMap's data changes: the pods roll, and the new template is recorded too")
	editConfigMap(ns, configMap, func(cm *corev1.ConfigMap) { delete(cm.Data, "NGINX_ENTRYPOINT_QUIET_LOGS") })
	Eventually(templateRevision(ns, name), timeout, interval).ShouldNot(Equal(rev))
	playRollout(ns, name, 2)
	Eventually(func() []webappv1.Revision { return fetch(ns, name).Status.Revisions }, timeout, interval).
		Should(HaveExactElements(HaveField("Revision", int64(2)), HaveField("Revision", int64(1))))
	expectReady(ns, name)
}

// checkMetricsSample: the ServiceMonitor scrapes the exporter's /metrics every 30 seconds through the
// Service's metrics port; the exporter runs as a sidecar, and nginx reads the ConfigMap's server.
func checkMetricsSample(app *webappv1.WebApp) {
	ns, name := app.Namespace, app.Name
	m := get(ns, name, newServiceMonitor())(Default)
	endpoints, _, _ := unstructured.NestedSlice(m.Object, "spec", "endpoints")
	Expect(endpoints).To(Equal([]any{map[string]any{"port": "metrics", "path": "/metrics", "interval": "30s"}}))
	Expect(getService(ns, name)(Default).Spec.Ports).To(ContainElement(And(HaveField("Name", "metrics"),
		HaveField("Port", int32(9113)), HaveField("TargetPort", intstr.FromString("metrics")))))
	d := getDeployment(ns, name)(Default)
	c := appContainer(d)
	Expect(c.Ports).To(ContainElement(And(HaveField("Name", "metrics"), HaveField("ContainerPort", int32(9113)))))
	Expect(c.VolumeMounts).To(ContainElement(And(HaveField("MountPath", "/etc/nginx/conf.d/stub-status.conf"),
		HaveField("SubPath", "stub-status.conf"))))
	Expect(d.Spec.Template.Spec.InitContainers).To(ContainElement(And(HaveField("Name", "exporter"),
		HaveField("RestartPolicy", ptr.To(corev1.ContainerRestartPolicyAlways)))), "a native sidecar")
	Expect(fetch(ns, name).Status.ConfigRevision).NotTo(BeEmpty(), "a change of the ConfigMap rolls the pods")
}

// checkNetworkPolicySample: only the pods of the namespace and of ingress-nginx may connect, on the
// app's port.
func checkNetworkPolicySample(app *webappv1.WebApp) {
	ns, name := app.Namespace, app.Name
	p := get(ns, name, &networkingv1.NetworkPolicy{})(Default)
	Expect(p.Spec.PodSelector.MatchLabels).To(Equal(getDeployment(ns, name)(Default).Spec.Selector.MatchLabels))
	Expect(p.Spec.Ingress).To(HaveLen(1))
	Expect(p.Spec.Ingress[0].From).To(Equal([]networkingv1.NetworkPolicyPeer{
		{PodSelector: &metav1.LabelSelector{}},
		{NamespaceSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: corev1.LabelMetadataName, Operator: metav1.LabelSelectorOpIn, Values: []string{"ingress-nginx"}}}}},
	}))
	Expect(p.Spec.Ingress[0].Ports).To(ConsistOf(networkingv1.NetworkPolicyPort{
		Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(intstr.FromString("http"))}))
}
