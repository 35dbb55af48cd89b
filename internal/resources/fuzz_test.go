package resources

import (
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/internal/status"
)

// FuzzDeployment renders WebApps that admission would accept and checks that rendering never
// panics and always yields objects that pass the API validation rules we can check locally.
// `make fuzz` runs it for longer; `go test` runs the seed corpus.
func FuzzDeployment(f *testing.F) {
	f.Add("shop", "nginx:1.27", int32(1), int32(8080), "MODE", "prod", "team", "a", "/healthz", int32(0), uint8(0), int32(0))
	f.Add("a", "registry.local:5000/x@sha256:abc", int32(0), int32(1), "", "", "", "", "", int32(65535), uint8(1), int32(30000))
	f.Add("z-9", "img", int32(1000), int32(65535), "A_B", "", "example.com/tier", "", "/", int32(1), uint8(2), int32(32767))
	f.Fuzz(func(t *testing.T, name, image string, replicas, port int32, envName, envValue, labelKey, labelValue, hcPath string,
		hcPort int32, svcType uint8, nodePort int32) {
		app := &webappv1.WebApp{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: "u"},
			Spec: webappv1.WebAppSpec{
				Image: image, Replicas: ptr.To(replicas), Port: port,
				Service: webappv1.ServiceSpec{Type: []webappv1.ServiceType{
					webappv1.ServiceTypeClusterIP, webappv1.ServiceTypeNodePort, webappv1.ServiceTypeLoadBalancer}[svcType%3]},
			},
		}
		if envName != "" {
			app.Spec.Env = []webappv1.EnvVar{{Name: envName, Value: envValue}}
		}
		if labelKey != "" {
			app.Spec.PodLabels = map[string]webappv1.LabelValue{labelKey: webappv1.LabelValue(labelValue)}
		}
		if hcPath != "" {
			app.Spec.HealthCheck = &webappv1.HealthCheck{Path: hcPath}
			if hcPort != 0 {
				app.Spec.HealthCheck.Port = ptr.To(hcPort)
			}
		}
		if app.Spec.Service.Type != webappv1.ServiceTypeClusterIP && nodePort != 0 {
			app.Spec.Service.NodePort = ptr.To(nodePort)
		}
		if !admissible(app) {
			t.Skip()
		}

		ac, err := renderDeployment(hub(t, app))
		if problem := (*status.Problem)(nil); errors.As(err, &problem) && problem.Reason == status.ReasonInvalidImage {
			// admitted, but no kubelet could pull it: reported, not rendered (TestInvalidImage)
			t.Skip()
		}
		if err != nil {
			t.Fatalf("Deployment refused an admissible WebApp: %v", err)
		}
		d := typed[appsv1.Deployment](t, ac)
		s := service(t, app)

		sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
		if err != nil {
			t.Fatalf("invalid selector: %v", err)
		}
		if !sel.Matches(labels.Set(d.Spec.Template.Labels)) {
			t.Fatalf("selector %s does not match template labels %v", sel, d.Spec.Template.Labels)
		}
		if !labels.SelectorFromSet(s.Spec.Selector).Matches(labels.Set(d.Spec.Template.Labels)) {
			t.Fatalf("service selector %v does not match the pods", s.Spec.Selector)
		}
		for _, l := range []map[string]string{d.Labels, d.Spec.Template.Labels, s.Labels} {
			checkLabels(t, l)
		}
		if *d.Spec.Replicas != replicas {
			t.Fatalf("replicas %d, want %d", *d.Spec.Replicas, replicas)
		}
		c := d.Spec.Template.Spec.Containers
		if len(c) != 1 || c[0].Image != image || c[0].Ports[0].ContainerPort != port {
			t.Fatalf("container does not carry the spec: %+v", c)
		}
		if errs := validation.IsDNS1123Label(c[0].Name); len(errs) > 0 {
			t.Fatalf("container name: %v", errs)
		}
		if errs := validation.IsValidPortName(c[0].Ports[0].Name); len(errs) > 0 {
			t.Fatalf("port name: %v", errs)
		}
		if s.Spec.Ports[0].TargetPort.StrVal != c[0].Ports[0].Name {
			t.Fatalf("service targets port %q, container names %q", s.Spec.Ports[0].TargetPort.StrVal, c[0].Ports[0].Name)
		}
		if s.Spec.Type == corev1.ServiceTypeClusterIP && s.Spec.Ports[0].NodePort != 0 {
			t.Fatal("ClusterIP Service with a node port")
		}
		if ref := metav1.GetControllerOf(d); ref == nil || ref.UID != app.UID {
			t.Fatal("Deployment is not controlled by the WebApp")
		}
	})
}

// admissible mirrors the CRD's OpenAPI and CEL rules, the part that rendering relies on.
func admissible(app *webappv1.WebApp) bool {
	s := app.Spec
	// The API server only takes valid UTF-8 (JSON); anything else never reaches the operator.
	for _, str := range []string{s.Image, envString(s.Env), healthPath(s.HealthCheck)} {
		if !utf8.ValidString(str) {
			return false
		}
	}
	if len(validation.IsDNS1035Label(app.Name)) > 0 || s.Image == "" || len(s.Image) > 1024 ||
		strings.ContainsAny(s.Image, " \t\n\r\v\f") || *s.Replicas < 0 || *s.Replicas > 1000 || s.Port < 1 || s.Port > 65535 {
		return false
	}
	for k, v := range s.PodLabels {
		if len(validation.IsQualifiedName(k)) > 0 || len(validation.IsValidLabelValue(string(v))) > 0 ||
			k == LabelName || k == LabelInstance || k == LabelManagedBy {
			return false
		}
	}
	if hc := s.HealthCheck; hc != nil && (!strings.HasPrefix(hc.Path, "/") || (hc.Port != nil && (*hc.Port < 1 || *hc.Port > 65535))) {
		return false
	}
	if np := s.Service.NodePort; np != nil && (*np < 30000 || *np > 32767) {
		return false
	}
	return true
}

func envString(env []webappv1.EnvVar) string {
	var b strings.Builder
	for _, e := range env {
		b.WriteString(e.Name + e.Value)
	}
	return b.String()
}

func healthPath(hc *webappv1.HealthCheck) string {
	if hc == nil {
		return ""
	}
	return hc.Path
}

func checkLabels(t *testing.T, l map[string]string) {
	t.Helper()
	for k, v := range l {
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			t.Fatalf("label key %q: %v", k, errs)
		}
		if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
			t.Fatalf("label %q value %q: %v", k, v, errs)
		}
	}
}

// FuzzPodSecurity renders any WebApp spec that decodes, admissible or not, and checks that no
// field can take a pod out of the restricted Pod Security level except runAsUser 0, which only
// drops runAsNonRoot: no privilege, escalation, added capability, host namespace, host path or
// host port, and no service-account token unless asked for.
func FuzzPodSecurity(f *testing.F) {
	for _, seed := range []string{
		`{"image":"nginx"}`,
		`{"image":"x","security":{"runAsUser":0,"readOnlyRootFilesystem":true},"automountServiceAccountToken":true}`,
		`{"image":"x","sidecars":[{"name":"s","image":"y"}],"initContainers":[{"name":"i","image":"z"}],` +
			`"volumes":[{"name":"v","mountPath":"/v","emptyDir":{}}],"ports":[{"name":"m","containerPort":9090,"servicePort":9090}]}`,
		`{"image":"x","securityContext":{"privileged":true},"hostNetwork":true,"volumes":[{"name":"h","mountPath":"/h","hostPath":{"path":"/"}}]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		app := newApp(nil)
		if err := json.Unmarshal(data, &app.Spec); err != nil {
			t.Skip()
		}
		ac, err := renderDeployment(hub(t, app))
		if err != nil {
			return // only a WebApp that admission refuses fails to render (a volume without a source)
		}
		d := typed[appsv1.Deployment](t, ac)
		pod := d.Spec.Template.Spec
		root := app.Spec.Security != nil && ptr.Deref(app.Spec.Security.RunAsUser, -1) == 0
		if sc := pod.SecurityContext; sc == nil || sc.SeccompProfile == nil || sc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault ||
			ptr.Deref(sc.RunAsNonRoot, false) == root {
			t.Fatalf("pod security context %+v (root asked: %v)", sc, root)
		}
		if pod.HostNetwork || pod.HostPID || pod.HostIPC || pod.HostUsers != nil {
			t.Fatal("a host namespace")
		}
		for _, v := range pod.Volumes {
			if v.HostPath != nil {
				t.Fatalf("host path volume %s", v.Name)
			}
		}
		if ptr.Deref(pod.AutomountServiceAccountToken, true) != ptr.Deref(app.Spec.AutomountServiceAccountToken, false) {
			t.Fatal("service-account token not as asked")
		}
		for _, c := range append(pod.InitContainers, pod.Containers...) {
			sc := c.SecurityContext
			if sc == nil || ptr.Deref(sc.AllowPrivilegeEscalation, true) || sc.Privileged != nil || sc.Capabilities == nil ||
				len(sc.Capabilities.Add) > 0 || len(sc.Capabilities.Drop) != 1 || sc.Capabilities.Drop[0] != "ALL" {
				t.Fatalf("container %s: security context %+v", c.Name, sc)
			}
			for _, p := range c.Ports {
				if p.HostPort != 0 {
					t.Fatalf("container %s: host port", c.Name)
				}
			}
		}
	})
}

// FuzzAvailability renders the optional children of any WebApp spec that decodes and that admission
// would accept in the fields they read, and checks that each is rendered exactly when the WebApp
// asks for it, selects exactly the WebApp's pods, and is controlled by the WebApp.
func FuzzAvailability(f *testing.F) {
	for _, seed := range []string{
		`{"image":"x","replicas":2}`,
		`{"image":"x","replicas":1}`,
		`{"image":"x","replicas":0,"disruptionBudget":{"maxUnavailable":"50%"}}`,
		`{"image":"x","replicas":5,"disruptionBudget":{"enabled":false}}`,
		`{"image":"x","replicas":1000,"disruptionBudget":{"enabled":true,"maxUnavailable":1000}}`,
		`{"image":"x","replicas":3,"autoscaling":{"maxReplicas":1}}`,
		`{"image":"x","autoscaling":{"minReplicas":2,"maxReplicas":9,"targetMemoryUtilizationPercentage":70,` +
			`"behavior":{"scaleUp":{"selectPolicy":"Disabled"},"scaleDown":{"policies":[{"type":"Percent","value":10,"periodSeconds":60}]}}}}`,
		`{"image":"x","networkPolicy":{}}`,
		`{"image":"x","ingress":{"hosts":["shop.example.com"]}}`,
		`{"image":"x","ingress":{"className":"nginx","hosts":["*.example.com","a.b"],"paths":["/x","/y/"],"tls":{"secretName":"t"},` +
			`"annotations":{"cert-manager.io/cluster-issuer":"le"}}}`,
		`{"image":"x","networkPolicy":{"sameNamespace":false}}`,
		`{"image":"x","route":{"parentRefs":[{"name":"gw"}],"hostnames":["shop.example.com"]}}`,
		`{"image":"x","service":{"port":8443},"ingress":{"hosts":["a.b"]},"route":{"parentRefs":[{"name":"gw","namespace":"g",` +
			`"sectionName":"web"},{"name":"gw","sectionName":"websecure"}],"hostnames":["*.example.com","a.b"],"paths":["/x","/y/"]}}`,
		`{"image":"x","networkPolicy":{"sameNamespace":false,"fromNamespaces":["ingress-nginx","b"]},"ports":[{"name":"m","containerPort":1}]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		app := newApp(nil)
		if err := json.Unmarshal(data, &app.Spec); err != nil || !admissibleAvailability(app) {
			t.Skip()
		}
		d := typed[appsv1.Deployment](t, mustRender(t, Deployment, app))
		pods := labels.Set(d.Spec.Template.Labels)

		most := checkAutoscaler(t, app, d)

		if ac := mustRender(t, NetworkPolicy, app); (ac != nil) != (app.Spec.NetworkPolicy != nil) {
			t.Fatalf("network policy rendered: %v, asked for: %v", ac != nil, app.Spec.NetworkPolicy != nil)
		} else if ac != nil {
			checkNetworkPolicy(t, app, typed[networkingv1.NetworkPolicy](t, ac), pods)
		}

		if ac := mustRender(t, Ingress, app); (ac != nil) != (app.Spec.Ingress != nil) {
			t.Fatalf("Ingress rendered: %v, asked for: %v", ac != nil, app.Spec.Ingress != nil)
		} else if ac != nil {
			checkIngress(t, app, typed[networkingv1.Ingress](t, ac))
		}

		if ac := mustRender(t, HTTPRoute, app); (ac != nil) != (app.Spec.Route != nil) {
			t.Fatalf("HTTPRoute rendered: %v, asked for: %v", ac != nil, app.Spec.Route != nil)
		} else if ac != nil {
			checkRoute(t, app, &unstructured.Unstructured{Object: content(t, ac)})
		}

		checkBudget(t, app, most, pods)
	})
}

// checkAutoscaler fails unless app's Deployment leaves its replicas to an autoscaler exactly when
// app has one, and the autoscaler targets that Deployment within sane bounds. It returns the most
// replicas app may run.
func checkAutoscaler(t *testing.T, app *webappv1.WebApp, d *appsv1.Deployment) int32 {
	t.Helper()
	auto := app.Spec.Autoscaling
	if (d.Spec.Replicas == nil) != (auto != nil) {
		t.Fatalf("Deployment replicas %v with autoscaling %+v: the operator and the autoscaler would fight", d.Spec.Replicas, auto)
	}
	ac := mustRender(t, HorizontalPodAutoscaler, app)
	if (ac != nil) != (auto != nil) {
		t.Fatalf("autoscaler rendered: %v, autoscaling: %+v", ac != nil, auto)
	}
	if ac == nil {
		return ptr.Deref(app.Spec.Replicas, 1)
	}
	h := typed[autoscalingv2.HorizontalPodAutoscaler](t, ac)
	checkLabels(t, h.Labels)
	if ref := h.Spec.ScaleTargetRef; ref.Kind != "Deployment" || ref.Name != d.Name || ref.APIVersion != "apps/v1" {
		t.Fatalf("autoscaler targets %+v", ref)
	}
	if h.Spec.MinReplicas == nil || *h.Spec.MinReplicas < 1 || *h.Spec.MinReplicas > h.Spec.MaxReplicas || len(h.Spec.Metrics) == 0 {
		t.Fatalf("autoscaler %+v", h.Spec)
	}
	if ref := metav1.GetControllerOf(h); ref == nil || ref.UID != app.UID {
		t.Fatal("autoscaler is not controlled by the WebApp")
	}
	return auto.MaxReplicas
}

// checkBudget fails unless app has a budget exactly when it may run more than one replica and does
// not switch it off, and the budget selects its pods and always allows an eviction.
func checkBudget(t *testing.T, app *webappv1.WebApp, most int32, pods labels.Set) {
	t.Helper()
	ac := mustRender(t, PodDisruptionBudget, app)
	b := app.Spec.DisruptionBudget
	wantBudget := most > 1 && (b == nil || ptr.Deref(b.Enabled, true))
	if (ac != nil) != wantBudget {
		t.Fatalf("budget rendered: %v, wanted: %v", ac != nil, wantBudget)
	}
	if ac == nil {
		return
	}
	pdb := typed[policyv1.PodDisruptionBudget](t, ac)
	checkSelects(t, "PodDisruptionBudget", pdb.Spec.Selector, pods)
	checkLabels(t, pdb.Labels)
	if mu := pdb.Spec.MaxUnavailable; mu == nil || pdb.Spec.MinAvailable != nil ||
		(mu.Type == intstr.Int && mu.IntVal < 1) || (mu.Type == intstr.String && !strings.HasSuffix(mu.StrVal, "%")) {
		t.Fatalf("budget %+v", pdb.Spec)
	}
	if ref := metav1.GetControllerOf(pdb); ref == nil || ref.UID != app.UID {
		t.Fatal("budget is not controlled by the WebApp")
	}
}

// checkNetworkPolicy fails unless p applies to exactly app's pods, restricts ingress, admits no
// more than app asks for (its namespace, its listed namespaces), and only on app's ports.
func checkNetworkPolicy(t *testing.T, app *webappv1.WebApp, p *networkingv1.NetworkPolicy, pods labels.Set) {
	t.Helper()
	checkLabels(t, p.Labels)
	checkSelects(t, "NetworkPolicy", &p.Spec.PodSelector, pods)
	if len(p.Spec.PolicyTypes) != 1 || p.Spec.PolicyTypes[0] != networkingv1.PolicyTypeIngress || len(p.Spec.Ingress) > 1 {
		t.Fatalf("policy %+v", p.Spec)
	}
	np := app.Spec.NetworkPolicy
	if len(p.Spec.Ingress) == 0 {
		if ptr.Deref(np.SameNamespace, true) || len(np.FromNamespaces) > 0 {
			t.Fatal("the policy admits nobody, though the WebApp lists peers")
		}
		return
	}
	rule := p.Spec.Ingress[0]
	if len(rule.From) == 0 || len(rule.Ports) != 1+len(app.Spec.Ports) {
		t.Fatalf("a rule that admits every peer or every port: %+v", rule)
	}
	for _, peer := range rule.From {
		switch {
		case peer.IPBlock != nil:
			t.Fatal("an IP block")
		case peer.NamespaceSelector == nil:
			if !ptr.Deref(np.SameNamespace, true) || len(peer.PodSelector.MatchLabels)+len(peer.PodSelector.MatchExpressions) > 0 {
				t.Fatalf("peer %+v", peer)
			}
		default:
			sel, err := metav1.LabelSelectorAsSelector(peer.NamespaceSelector)
			if err != nil || sel.Empty() || peer.PodSelector != nil {
				t.Fatalf("namespace peer %+v admits more than the listed namespaces (%v)", peer, err)
			}
			for _, ns := range append([]string{"not-listed"}, np.FromNamespaces...) {
				listed := ns != "not-listed"
				if sel.Matches(labels.Set{corev1.LabelMetadataName: ns}) != listed {
					t.Fatalf("namespace %s: admitted %v, listed %v", ns, !listed, listed)
				}
			}
		}
	}
}

// checkIngress fails unless ing routes every host and path of app, and only to app's Service, with
// TLS for every host when asked, and status.url names one of them.
func checkIngress(t *testing.T, app *webappv1.WebApp, ing *networkingv1.Ingress) {
	t.Helper()
	checkLabels(t, ing.Labels)
	in := app.Spec.Ingress
	if ing.Spec.DefaultBackend != nil || len(ing.Spec.Rules) != len(in.Hosts) {
		t.Fatalf("rules %+v for hosts %v", ing.Spec.Rules, in.Hosts)
	}
	for i, r := range ing.Spec.Rules {
		if r.Host != in.Hosts[i] || r.HTTP == nil || len(r.HTTP.Paths) != max(1, len(in.Paths)) {
			t.Fatalf("rule %+v", r)
		}
		for _, p := range r.HTTP.Paths {
			if b := p.Backend.Service; b == nil || b.Name != app.Name || b.Port.Name != PortName ||
				!strings.HasPrefix(p.Path, "/") || p.PathType == nil || *p.PathType != networkingv1.PathTypePrefix {
				t.Fatalf("path %+v", p)
			}
		}
	}
	if (in.TLS != nil) != (len(ing.Spec.TLS) == 1) || (in.TLS != nil && len(ing.Spec.TLS[0].Hosts) != len(in.Hosts)) {
		t.Fatalf("tls %+v", ing.Spec.TLS)
	}
	scheme := map[bool]string{true: "https://", false: "http://"}[in.TLS != nil]
	named := false
	for _, h := range in.Hosts {
		named = named || ExternalURL(hub(t, app)) == scheme+h+ing.Spec.Rules[0].HTTP.Paths[0].Path && !strings.HasPrefix(h, "*")
	}
	if u := ExternalURL(hub(t, app)); u != "" && !named {
		t.Fatalf("url %q names none of the hosts %v", u, in.Hosts)
	}
	if ref := metav1.GetControllerOf(ing); ref == nil || ref.UID != app.UID {
		t.Fatal("Ingress is not controlled by the WebApp")
	}
}

// admissibleAvailability mirrors the CRD's rules on the fields the optional children read.
func admissibleAvailability(app *webappv1.WebApp) bool {
	s := app.Spec
	if r := s.Replicas; r != nil && (*r < 0 || *r > 1000) {
		return false
	}
	for _, p := range s.Ports {
		if len(validation.IsValidPortName(p.Name)) > 0 || p.Name == PortName ||
			(p.Protocol != "" && p.Protocol != "TCP" && p.Protocol != "UDP" && p.Protocol != "SCTP") {
			return false
		}
	}
	return admissibleAutoscaling(s.Autoscaling) && admissibleNetworkPolicy(s.NetworkPolicy) &&
		admissibleBudget(s.DisruptionBudget) && admissibleIngress(s.Ingress) && admissibleRoute(s.Route)
}

func admissibleRoute(r *webappv1.Route) bool {
	if r == nil {
		return true
	}
	if len(r.Hostnames) == 0 || !allHosts(r.Hostnames) || len(r.ParentRefs) == 0 {
		return false
	}
	for _, p := range r.ParentRefs {
		if p.Name == "" {
			return false
		}
	}
	for _, p := range r.Paths {
		if !routePath.MatchString(p) {
			return false
		}
	}
	return true
}

// routePath is the CRD's pattern for spec.route.paths, the Gateway API's.
var routePath = regexp.MustCompile(`^/(?:[-A-Za-z0-9/._~!$&'()*+,;=:@]|[%][0-9a-fA-F]{2})*$`)

// checkRoute fails unless the HTTPRoute attaches to every Gateway app names, serves its host names
// and path prefixes, only to app's Service port, and status.url names one of them.
func checkRoute(t *testing.T, app *webappv1.WebApp, route *unstructured.Unstructured) {
	t.Helper()
	checkLabels(t, route.GetLabels())
	r := app.Spec.Route
	if route.GroupVersionKind() != HTTPRouteGVK || route.GetName() != app.Name || route.GetNamespace() != app.Namespace {
		t.Fatalf("route %v %s/%s", route.GroupVersionKind(), route.GetNamespace(), route.GetName())
	}
	parents, _, _ := unstructured.NestedSlice(route.Object, "spec", "parentRefs")
	if len(parents) != len(r.ParentRefs) {
		t.Fatalf("parentRefs %v for %v", parents, r.ParentRefs)
	}
	for i, p := range parents {
		ref := p.(map[string]any)
		want := r.ParentRefs[i]
		if ref["name"] != want.Name || ref["kind"] != "Gateway" || ref["group"] != "gateway.networking.k8s.io" ||
			(want.Namespace != "") != (ref["namespace"] != nil) || (want.SectionName != "") != (ref["sectionName"] != nil) {
			t.Fatalf("parentRef %v for %+v", ref, want)
		}
	}
	hosts, _, _ := unstructured.NestedStringSlice(route.Object, "spec", "hostnames")
	expect(t, "hostnames", hosts, r.Hostnames)
	rules, _, _ := unstructured.NestedSlice(route.Object, "spec", "rules")
	if len(rules) != 1 {
		t.Fatalf("rules %v", rules)
	}
	rule := rules[0].(map[string]any)
	if matches := rule["matches"].([]any); len(matches) != max(1, len(r.Paths)) {
		t.Fatalf("matches %v for paths %v", matches, r.Paths)
	}
	backends := rule["backendRefs"].([]any)
	if b := backends[0].(map[string]any); len(backends) != 1 || b["name"] != app.Name || b["kind"] != "Service" ||
		b["port"] != int64(servicePort(hub(t, app))) {
		t.Fatalf("backendRefs %v", backends)
	}
	named := false
	for _, h := range r.Hostnames {
		named = named || RouteURL(hub(t, app)) == "http://"+h+routePaths(hub(t, app).Spec.Exposure.Route)[0] && !strings.HasPrefix(h, "*")
	}
	if u := RouteURL(hub(t, app)); u != "" && !named {
		t.Fatalf("url %q names none of the host names %v", u, r.Hostnames)
	}
	if !metav1.IsControlledBy(route, app) {
		t.Fatal("HTTPRoute is not controlled by the WebApp")
	}
}

func admissibleIngress(in *webappv1.Ingress) bool {
	if in == nil {
		return true
	}
	if len(in.Hosts) == 0 || !allHosts(in.Hosts) {
		return false
	}
	for _, p := range in.Paths {
		if !strings.HasPrefix(p, "/") {
			return false
		}
	}
	return true
}

func admissibleAutoscaling(a *webappv1.Autoscaling) bool {
	if a == nil {
		return true
	}
	if a.MaxReplicas < 1 || a.MaxReplicas > 1000 || (a.MinReplicas != nil && (*a.MinReplicas < 1 || *a.MinReplicas > a.MaxReplicas)) {
		return false
	}
	for _, t := range []*int32{a.TargetCPUUtilizationPercentage, a.TargetMemoryUtilizationPercentage} {
		if t != nil && (*t < 1 || *t > 1000) {
			return false
		}
	}
	return true
}

func admissibleNetworkPolicy(np *webappv1.NetworkPolicy) bool {
	if np == nil {
		return true
	}
	seen := map[string]bool{}
	for _, ns := range np.FromNamespaces {
		if len(validation.IsDNS1123Label(ns)) > 0 || ns == "not-listed" || seen[ns] {
			return false
		}
		seen[ns] = true
	}
	return true
}

func admissibleBudget(b *webappv1.DisruptionBudget) bool {
	if b == nil || b.MaxUnavailable == nil {
		return true
	}
	mu := b.MaxUnavailable
	if mu.Type == intstr.Int {
		return mu.IntVal >= 1 && mu.IntVal <= 1000
	}
	return percentage.MatchString(mu.StrVal)
}

// hostName is the CRD's pattern for spec.ingress.hosts and spec.route.hostnames.
var hostName = regexp.MustCompile(`^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

func allHosts(hosts []string) bool {
	for _, h := range hosts {
		if !hostName.MatchString(h) {
			return false
		}
	}
	return true
}

// percentage is the CRD's pattern for a percentage from 1% to 100%.
var percentage = regexp.MustCompile(`^([1-9]|[1-9][0-9]|100)%$`)

func mustRender(t *testing.T, child Child, app *webappv1.WebApp) runtime.ApplyConfiguration {
	t.Helper()
	ac, err := child.Desired(hub(t, app))
	if err != nil {
		t.Fatalf("%s refused an admissible WebApp: %v", child.Kind(), err)
	}
	return ac
}

// checkSelects fails unless sel selects exactly the pods whose labels are pods: the WebApp's.
func checkSelects(t *testing.T, kind string, sel *metav1.LabelSelector, pods labels.Set) {
	t.Helper()
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil || s.Empty() || !s.Matches(pods) {
		t.Fatalf("%s selector %v does not select the pods %v (%v)", kind, sel, pods, err)
	}
}
