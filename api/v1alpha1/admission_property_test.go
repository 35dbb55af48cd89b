package v1alpha1_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp/syntax"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/internal/resources"
	"github.com/webapp-operator/webapp-operator/internal/served"
)

// The CRD must admit nothing the operator cannot decode or render. These specs read the generated
// CRD (not a copy of its rules in Go), generate values from its own patterns, ask the API server
// whether it admits them (a dry-run create), and require every admitted WebApp to decode with the
// operator's types and to render to a Deployment and a Service that the API server accepts too.

// coreQuantityPattern is the pattern that core/v1's OpenAPI schema gives every resource.Quantity. It
// admits strings that resource.ParseQuantity refuses ("1e1.5"): on its own it is no rule.
const coreQuantityPattern = `^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$`

// mapKeys are the keys tried wherever the schema has a map: valid for every map of the WebApp
// (labels, annotations, resource lists), so that a sample is refused for its value, not its key; one
// with a domain (an extended resource, in a resource list) and one without.
var mapKeys = []string{"example.com/key", "cpu"}

func loadWebAppSchema() *apiextensionsv1.JSONSchemaProps {
	GinkgoHelper()
	data, err := os.ReadFile(filepath.Join("..", "..", "config", "crd", "bases", "apps.webapp-operator.io_webapps.yaml"))
	Expect(err).NotTo(HaveOccurred())
	crd := &apiextensionsv1.CustomResourceDefinition{}
	Expect(yaml.Unmarshal(data, crd)).To(Succeed())
	return crd.Spec.Versions[0].Schema.OpenAPIV3Schema
}

// leaf is a scalar of the schema with something to generate from: a pattern, or int-or-string.
type leaf struct {
	path   []string // JSON path from the object root; "0" is an array index, one of mapKeys a map key
	schema apiextensionsv1.JSONSchemaProps
}

func (l leaf) String() string { return strings.Join(l.path, ".") }

func (l leaf) patterns() []string {
	var out []string
	if l.schema.Pattern != "" {
		out = append(out, l.schema.Pattern)
	}
	for _, s := range l.schema.AllOf {
		if s.Pattern != "" {
			out = append(out, s.Pattern)
		}
	}
	return out
}

// leaves lists the generatable scalars under schema.
func leaves(schema apiextensionsv1.JSONSchemaProps, path []string) []leaf {
	var out []leaf
	switch {
	case schema.Type == "object" && schema.AdditionalProperties != nil && schema.AdditionalProperties.Schema != nil:
		for _, k := range mapKeys {
			out = append(out, leaves(*schema.AdditionalProperties.Schema, append(slices.Clone(path), k))...)
		}
	case schema.Type == "object":
		for name, p := range schema.Properties {
			out = append(out, leaves(p, append(slices.Clone(path), name))...)
		}
	case schema.Type == "array" && schema.Items != nil && schema.Items.Schema != nil:
		out = append(out, leaves(*schema.Items.Schema, append(slices.Clone(path), "0"))...)
	default:
		l := leaf{path: path, schema: schema}
		if len(l.patterns()) > 0 || schema.XIntOrString {
			out = append(out, l)
		}
	}
	return out
}

// filler returns a value that schema admits, for the required fields around a generated one.
func filler(schema apiextensionsv1.JSONSchemaProps, r *rand.Rand) any {
	switch {
	case len(schema.Enum) > 0:
		var v any
		Expect(json.Unmarshal(schema.Enum[0].Raw, &v)).To(Succeed())
		return v
	case schema.Type == "object":
		obj := map[string]any{}
		for _, name := range schema.Required {
			obj[name] = filler(schema.Properties[name], r)
		}
		return obj
	case schema.Type == "array":
		return []any{}
	case schema.Type == "integer":
		if schema.Minimum != nil {
			return int64(*schema.Minimum)
		}
		return int64(1)
	case schema.Type == "boolean":
		return true
	}
	if ps := (leaf{schema: schema}).patterns(); len(ps) > 0 {
		return generate(ps[len(ps)-1], r, 16)
	}
	return "a"
}

// withValue returns a minimal WebApp (its required fields filled from the schema) holding value at path.
func withValue(schema *apiextensionsv1.JSONSchemaProps, ns, name string, path []string, value any, r *rand.Rand) *unstructured.Unstructured {
	obj := filler(*schema, r).(map[string]any)
	obj["apiVersion"] = webappv1.GroupVersion.String()
	obj["kind"] = "WebApp"
	obj["metadata"] = map[string]any{"namespace": ns, "name": name}
	obj["spec"].(map[string]any)["image"] = "example.com/shop:1.0"
	set(obj, *schema, path, value, r)
	companions(obj["spec"].(map[string]any), r)
	return &unstructured.Unstructured{Object: obj}
}

// companions adds what rules across fields require around the sampled value, so that the value is
// judged on its own: an extended resource's request needs a limit of the same value, an envFrom
// entry, a volume, a probe or a preStop action needs a source, a volume mount needs its volume, an
// Ingress needs a host.
func companions(spec map[string]any, r *rand.Rand) {
	resourceAndMountCompanions(spec)
	if svc, ok := spec["service"].(map[string]any); ok && (svc["type"] == nil || svc["type"] == "ClusterIP") {
		delete(svc, "nodePort")
	}
	envCompanions(spec, r)
	for _, v := range items(spec, "volumes") {
		exactlyOne(r, v, []string{"configMap", "secret", "emptyDir", "persistentVolumeClaim"}, "emptyDir", map[string]any{})
	}
	if probes, ok := spec["probes"].(map[string]any); ok {
		delete(spec, "healthCheck")
		for _, name := range slices.Sorted(maps.Keys(probes)) {
			p := probes[name]
			exactlyOne(r, p.(map[string]any), []string{"httpGet", "tcpSocket", "grpc", "exec"}, "tcpSocket", map[string]any{})
			if name != "readiness" && p.(map[string]any)["successThreshold"] != nil {
				p.(map[string]any)["successThreshold"] = int64(1)
			}
		}
	}
	if l, ok := spec["lifecycle"].(map[string]any); ok {
		if pre, ok := l["preStop"].(map[string]any); ok {
			exactlyOne(r, pre, []string{"exec", "httpGet", "sleepSeconds"}, "sleepSeconds", int64(1))
		}
	}
	if s, ok := spec["scheduling"].(map[string]any); ok {
		schedulingCompanions(s)
	}
	// an Ingress routes at least one host: a sampled path needs one
	if in, ok := spec["ingress"].(map[string]any); ok {
		if hosts, _ := in["hosts"].([]any); len(hosts) == 0 {
			in["hosts"] = []any{"shop.example.com"}
		}
	}
	if rt, ok := spec["route"].(map[string]any); ok {
		routeCompanions(rt)
	}
	metricsCompanions(spec)
}

// metricsCompanions declares the container port that a sampled metrics port names, when neither
// spec.port nor spec.ports has it: a name becomes a port of that name, a number in range a port
// "metrics" of that number (a number out of range is left for admission to refuse). The WebApp's
// CRD requires that the port exist; the sample is then judged on its own.
func metricsCompanions(spec map[string]any) {
	m, ok := spec["metrics"].(map[string]any)
	if !ok || m["port"] == nil || m["port"] == "http" || m["port"] == spec["port"] {
		return
	}
	ports, _ := spec["ports"].([]any)
	for _, p := range items(spec, "ports") {
		if p["name"] == m["port"] || p["containerPort"] == m["port"] {
			return
		}
	}
	entry := map[string]any{"name": "metrics", "containerPort": int64(9090)}
	switch v := m["port"].(type) {
	case string:
		entry["name"] = v
	case int64:
		if v < 1 || v > 65535 {
			return
		}
		entry["containerPort"] = v
	}
	spec["ports"] = append(ports, entry)
}

// routeCompanions gives a sampled route a host name and a Gateway (both required), and a listener
// of its own to each parentRef that names the same Gateway as another: the HTTPRoute CRD requires
// that, and the WebApp's CRD does not check it (its CEL cost is over budget; the API server's refusal
// is reported InvalidSpec at reconcile time, see api/v1alpha1/exposure_types.go).
func routeCompanions(rt map[string]any) {
	if hosts, _ := rt["hostnames"].([]any); len(hosts) == 0 {
		rt["hostnames"] = []any{"shop.example.com"}
	}
	parents, _ := rt["parentRefs"].([]any)
	if len(parents) == 0 {
		rt["parentRefs"] = []any{map[string]any{"name": "public"}}
		return
	}
	seen := map[string]bool{}
	for i, p := range parents {
		ref, _ := p.(map[string]any)
		if ref == nil {
			continue
		}
		gw := fmt.Sprint(ref["namespace"], "/", ref["name"])
		if seen[gw] || seenSectionless(parents, i, gw) {
			ref["sectionName"] = fmt.Sprintf("l%d", i)
		}
		seen[gw] = true
	}
}

// seenSectionless: another parentRef than the i-th names the Gateway gw.
func seenSectionless(parents []any, i int, gw string) bool {
	for j, p := range parents {
		if ref, _ := p.(map[string]any); j != i && ref != nil && fmt.Sprint(ref["namespace"], "/", ref["name"]) == gw {
			return true
		}
	}
	return false
}

// resourceAndMountCompanions gives every extended resource's request a limit of the same value, sets
// every other limit that has a request to that request (admission does not compare them: a request
// above its limit is reported InvalidSpec at reconcile time, see the controller tests), and gives
// every volume mount (of a sidecar or an init container) its volume.
func resourceAndMountCompanions(spec map[string]any) {
	walkObjects(spec, func(o map[string]any) {
		if res, ok := o["resources"].(map[string]any); ok {
			if req, ok := res["requests"].(map[string]any); ok {
				for k, v := range req {
					limits, _ := res["limits"].(map[string]any)
					if _, limited := limits[k]; limited || strings.Contains(k, "/") {
						if limits == nil {
							limits = map[string]any{}
							res["limits"] = limits
						}
						limits[k] = v
					}
				}
			}
		}
		if mounts, ok := o["volumeMounts"].([]any); ok {
			for _, m := range mounts {
				name := m.(map[string]any)["name"]
				vols, _ := spec["volumes"].([]any)
				spec["volumes"] = append(vols, map[string]any{"name": name, "mountPath": fmt.Sprintf("/companion/%v", name), "emptyDir": map[string]any{}})
			}
		}
	})
}

// envCompanions gives every envFrom entry and every env valueFrom exactly one source.
func envCompanions(spec map[string]any, r *rand.Rand) {
	for _, e := range items(spec, "envFrom") {
		exactlyOne(r, e, []string{"configMapRef", "secretRef"}, "configMapRef", map[string]any{"name": "cm"})
	}
	walkObjects(spec, func(o map[string]any) {
		for _, e := range items(o, "env") {
			if from, ok := e["valueFrom"].(map[string]any); ok {
				delete(e, "value")
				exactlyOne(r, from, []string{"fieldRef", "resourceFieldRef", "configMapKeyRef", "secretKeyRef"}, "fieldRef", map[string]any{})
				if f, ok := from["fieldRef"].(map[string]any); ok {
					f["fieldPath"] = "metadata.name"
				}
				if f, ok := from["resourceFieldRef"].(map[string]any); ok && f["divisor"] != nil {
					f["divisor"] = "1"
				}
			}
		}
	})
}

// schedulingCompanions makes tolerations and node selector requirements consistent with their operator.
func schedulingCompanions(s map[string]any) {
	for _, t := range items(s, "tolerations") {
		if t["operator"] == "Exists" {
			delete(t, "value")
		} else if t["key"] == nil || t["key"] == "" {
			t["key"] = "example.com/taint"
		}
		if t["tolerationSeconds"] != nil {
			t["effect"] = "NoExecute"
		}
	}
	walkObjects(s, func(o map[string]any) {
		switch o["operator"] {
		case "In", "NotIn":
			if o["values"] == nil {
				o["values"] = []any{"a"}
			}
		case "Exists", "DoesNotExist":
			if _, isToleration := o["effect"]; !isToleration {
				delete(o, "values")
			}
		case "Gt", "Lt":
			o["values"] = []any{"1"}
		}
	})
}

// exactlyOne keeps one of keys that o has, chosen with r, or adds fill = value when it has none.
func exactlyOne(r *rand.Rand, o map[string]any, keys []string, fill string, value any) {
	var have []string
	for _, k := range keys {
		if _, ok := o[k]; ok {
			have = append(have, k)
		}
	}
	if len(have) == 0 {
		o[fill] = value
		return
	}
	keep := have[r.IntN(len(have))]
	for _, k := range have {
		if k != keep {
			delete(o, k)
		}
	}
}

// walkObjects calls f on every object under v, depth first.
func walkObjects(v any, f func(map[string]any)) {
	switch v := v.(type) {
	case map[string]any:
		f(v)
		for _, k := range slices.Sorted(maps.Keys(v)) {
			walkObjects(v[k], f)
		}
	case []any:
		for _, c := range v {
			walkObjects(c, f)
		}
	}
}

// items returns the objects of the list o[key].
func items(o map[string]any, key string) []map[string]any {
	list, _ := o[key].([]any)
	var out []map[string]any
	for _, it := range list {
		if m, ok := it.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// set puts value at path in obj, creating the objects, arrays and maps on the way with their
// required fields filled.
func set(obj map[string]any, schema apiextensionsv1.JSONSchemaProps, path []string, value any, r *rand.Rand) {
	key := path[0]
	child := schema.Properties[key]
	if schema.AdditionalProperties != nil && schema.AdditionalProperties.Schema != nil {
		child = *schema.AdditionalProperties.Schema
	}
	if len(path) == 1 {
		obj[key] = value
		return
	}
	if child.Type == "array" {
		item := child.Items.Schema
		elem, _ := filler(*item, r).(map[string]any)
		if len(path) == 2 {
			obj[key] = []any{value}
			return
		}
		set(elem, *item, path[2:], value, r)
		obj[key] = []any{elem}
		return
	}
	next, ok := obj[key].(map[string]any)
	if !ok {
		next = filler(child, r).(map[string]any)
	}
	set(next, child, path[1:], value, r)
	obj[key] = next
}

// generate returns a random string matching pattern, of at most maxLen runes where it can.
func generate(pattern string, r *rand.Rand, maxLen int) string {
	re, err := syntax.Parse(pattern, syntax.Perl)
	Expect(err).NotTo(HaveOccurred(), "pattern %q", pattern)
	var b strings.Builder
	emit(&b, re.Simplify(), r, maxLen)
	return b.String()
}

func emit(b *strings.Builder, re *syntax.Regexp, r *rand.Rand, maxLen int) {
	switch re.Op {
	case syntax.OpLiteral:
		b.WriteString(string(re.Rune))
	case syntax.OpCharClass:
		// pick a range, then a rune in it; keep to ASCII mostly so that a sample is rarely refused
		// for being longer in bytes than in runes
		i := 2 * r.IntN(len(re.Rune)/2)
		lo, hi := re.Rune[i], re.Rune[i+1]
		if hi > 0x7e && lo <= 0x7e && r.IntN(10) > 0 {
			hi = 0x7e
		}
		b.WriteRune(lo + rune(r.Int64N(int64(hi-lo)+1)))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteRune(rune(0x20 + r.IntN(0x5f)))
	case syntax.OpCapture:
		emit(b, re.Sub[0], r, maxLen)
	case syntax.OpConcat:
		for _, s := range re.Sub {
			emit(b, s, r, maxLen)
		}
	case syntax.OpAlternate:
		emit(b, re.Sub[r.IntN(len(re.Sub))], r, maxLen)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := re.Min, re.Max
		switch re.Op {
		case syntax.OpStar:
			lo, hi = 0, -1
		case syntax.OpPlus:
			lo, hi = 1, -1
		case syntax.OpQuest:
			lo, hi = 0, 1
		}
		if hi < 0 || hi > lo+maxLen/4+2 {
			hi = lo + maxLen/4 + 2
		}
		for range lo + r.IntN(hi-lo+1) {
			emit(b, re.Sub[0], r, maxLen)
		}
	}
}

// samples returns values to try at l: strings generated from each of its patterns (when it has
// several, as our Quantity has core/v1's and its own, from each), some as long as its maxLength
// allows, and integers when it is int-or-string.
func samples(l leaf, r *rand.Rand, n int) []any {
	maxLen := 24
	if l.schema.MaxLength != nil {
		maxLen = int(*l.schema.MaxLength)
	}
	var out []any
	for _, p := range l.patterns() {
		for i := range n {
			out = append(out, generate(p, r, []int{8, maxLen}[i%2]))
		}
	}
	if l.schema.XIntOrString {
		out = append(out, int64(0), int64(1), int64(-1), int64(1)<<40, int64(-1)<<62, r.Int64())
	}
	return out
}

var _ = Describe("WebApp admission, against the operator's decoder", func() {
	var ns string
	BeforeEach(func() { ns = newNamespace() })

	It("admits only WebApps that decode with the operator's types and render to children the API server accepts", func() {
		schema := loadWebAppSchema()
		// a fixed seed by default, so that a failure reproduces; PROPERTY_SEED=N explores further
		seed := uint64(1)
		if v := os.Getenv("PROPERTY_SEED"); v != "" {
			_, err := fmt.Sscan(v, &seed)
			Expect(err).NotTo(HaveOccurred())
		}
		By(fmt.Sprintf("PROPERTY_SEED=%d", seed))
		r := rand.New(rand.NewPCG(seed, 2))
		ls := leaves(schema.Properties["spec"], []string{"spec"})
		slices.SortFunc(ls, func(a, b leaf) int { return strings.Compare(a.String(), b.String()) })
		Expect(len(ls)).To(BeNumerically(">=", 8), "the schema walk found too few fields to say anything: %v", ls)
		admittedPerLeaf := map[string]int{}
		for _, l := range ls {
			for i, v := range samples(l, r, 20) {
				u := withValue(schema, ns, fmt.Sprintf("s%d", i), l.path, v, r)
				if err := k8sClient.Create(ctx, u, client.DryRunAll); err != nil {
					continue // refused at admission: nothing more to prove
				}
				admittedPerLeaf[l.String()]++
				data, err := json.Marshal(u.Object)
				Expect(err).NotTo(HaveOccurred())
				app := &webappv1.WebApp{}
				Expect(json.Unmarshal(data, app)).To(Succeed(), "%s = %#v was admitted but does not decode", l, v)
				Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &webappv1.WebApp{})).To(Succeed(),
					"%s = %#v was admitted but does not convert", l, v)
				app.UID = "00000000-0000-0000-0000-000000000001"
				hub, err := served.ToHub(app)
				Expect(err).NotTo(HaveOccurred(), "%s = %#v was admitted but does not convert to the hub", l, v)
				for _, child := range resources.All {
					desired, err := child.Desired(hub)
					Expect(err).NotTo(HaveOccurred(), "%s = %#v was admitted but does not render a %s", l, v, child.Kind())
					if desired == nil {
						continue
					}
					Expect(k8sClient.Apply(ctx, desired, client.FieldOwner(resources.FieldOwner), client.ForceOwnership,
						client.DryRunAll)).To(Succeed(), "%s = %#v was admitted but its %s is refused", l, v, child.Kind())
				}
			}
		}
		By(fmt.Sprintf("admitted samples per field: %v", admittedPerLeaf))
		for _, l := range ls {
			Expect(admittedPerLeaf[l.String()]).To(BeNumerically(">", 0), "no sample of %s was admitted: the test proves nothing there", l)
		}
	})

	It("has a rule, with a length bound, on every field whose Go type decodes more strictly than core/v1's schema", func() {
		schema := loadWebAppSchema()
		var unruled []string
		walkStrict(reflect.TypeFor[webappv1.WebAppSpec](), schema.Properties["spec"], "spec", func(path string, s apiextensionsv1.JSONSchemaProps) {
			own := false
			for _, p := range (leaf{schema: s}).patterns() {
				own = own || p != coreQuantityPattern
			}
			if s.MaxLength == nil || (!own && len(s.XValidations) == 0) {
				unruled = append(unruled, path)
			}
		})
		Expect(unruled).To(BeEmpty(), "fields decoded by a custom decoder (quantities, int-or-string, durations...) "+
			"need a rule that matches the decoder exactly, and a maxLength")
	})
})

var jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()

// walkStrict calls found for every field of t, at any depth, whose type decodes JSON with its own
// UnmarshalJSON (the decoders that can refuse what a schema's type admits), with its schema.
func walkStrict(t reflect.Type, schema apiextensionsv1.JSONSchemaProps, path string, found func(string, apiextensionsv1.JSONSchemaProps)) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(jsonUnmarshaler) {
		found(path, schema)
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" || !f.IsExported() {
				continue
			}
			walkStrict(f.Type, schema.Properties[name], path+"."+name, found)
		}
	case reflect.Slice:
		if schema.Items != nil && schema.Items.Schema != nil {
			walkStrict(t.Elem(), *schema.Items.Schema, path+"[]", found)
		}
	case reflect.Map:
		if schema.AdditionalProperties != nil && schema.AdditionalProperties.Schema != nil {
			walkStrict(t.Elem(), *schema.AdditionalProperties.Schema, path+"{}", found)
		}
	}
}

// randomValue returns a random value for schema: each optional field present half the time, lists
// and maps of up to two entries, strings from the schema's pattern or else short DNS-like names
// (which most of the WebApp's name-like fields admit), numbers anywhere in their range.
func randomValue(schema apiextensionsv1.JSONSchemaProps, r *rand.Rand, depth int) any {
	switch {
	case len(schema.Enum) > 0:
		var v any
		Expect(json.Unmarshal(schema.Enum[r.IntN(len(schema.Enum))].Raw, &v)).To(Succeed())
		return v
	case schema.XIntOrString:
		if r.IntN(2) == 0 {
			return int64(1 + r.IntN(100))
		}
		if ps := (leaf{schema: schema}).patterns(); len(ps) > 0 {
			return generate(ps[len(ps)-1], r, 8)
		}
		return generate(`^[a-z]{1,6}|[1-9]?[0-9]%$`, r, 6) // port names and percentages
	case schema.Type == "object" && schema.AdditionalProperties != nil && schema.AdditionalProperties.Schema != nil:
		obj := map[string]any{}
		for range r.IntN(3) {
			obj[mapKeys[r.IntN(len(mapKeys))]] = randomValue(*schema.AdditionalProperties.Schema, r, depth+1)
		}
		return obj
	case schema.Type == "object":
		obj := map[string]any{}
		// in a fixed order: the same seed gives the same WebApps
		for _, name := range slices.Sorted(maps.Keys(schema.Properties)) {
			if slices.Contains(schema.Required, name) || r.IntN(2) == 0 {
				obj[name] = randomValue(schema.Properties[name], r, depth+1)
			}
		}
		return obj
	case schema.Type == "array":
		n := 1 + r.IntN(2)
		if schema.MaxItems != nil && int64(n) > *schema.MaxItems {
			n = int(*schema.MaxItems)
		}
		out := []any{}
		for range n {
			out = append(out, randomValue(*schema.Items.Schema, r, depth+1))
		}
		return out
	case schema.Type == "integer":
		lo, hi := int64(0), int64(1000)
		if schema.Minimum != nil {
			lo = int64(*schema.Minimum)
		}
		if schema.Maximum != nil {
			hi = int64(*schema.Maximum)
		}
		return lo + r.Int64N(hi-lo+1)
	case schema.Type == "boolean":
		return r.IntN(2) == 0
	}
	if ps := (leaf{schema: schema}).patterns(); len(ps) > 0 {
		maxLen := 16
		if schema.MaxLength != nil && *schema.MaxLength < 16 {
			maxLen = int(*schema.MaxLength)
		}
		return generate(ps[len(ps)-1], r, maxLen) // the last is ours, where there are two
	}
	return generate(`^[a-z][a-z0-9]{0,7}$`, r, 8)
}

// present lists the paths of every scalar in v, with list indexes and map keys as in leaves.
func present(v any, path string, out map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		for k, c := range v {
			present(c, path+"."+k, out)
		}
	case []any:
		for _, c := range v {
			present(c, path+".0", out)
		}
	default:
		out[path] = true
	}
}

// scalars lists the paths of every scalar field of schema, in the form present gives them.
func scalars(schema apiextensionsv1.JSONSchemaProps, path string, out map[string]bool) {
	switch {
	case schema.Type == "object" && schema.AdditionalProperties != nil && schema.AdditionalProperties.Schema != nil:
		for _, k := range mapKeys {
			scalars(*schema.AdditionalProperties.Schema, path+"."+k, out)
		}
	case schema.Type == "object" && len(schema.Properties) > 0:
		for name, p := range schema.Properties {
			scalars(p, path+"."+name, out)
		}
	case schema.Type == "object":
		out[path] = true // an object without fields, such as emptyDir: {}
	case schema.Type == "array":
		scalars(*schema.Items.Schema, path+".0", out)
	default:
		out[path] = true
	}
}

var _ = Describe("Random WebApps, every field at once, against the operator's renderer", func() {
	It("renders every one the API server admits to children the API server accepts, and admits some with each field", func() {
		ns := newNamespace()
		schema := loadWebAppSchema()
		seed := uint64(1)
		if v := os.Getenv("PROPERTY_SEED"); v != "" {
			_, err := fmt.Sscan(v, &seed)
			Expect(err).NotTo(HaveOccurred())
		}
		By(fmt.Sprintf("PROPERTY_SEED=%d", seed))
		r := rand.New(rand.NewPCG(seed, 3))
		covered := map[string]bool{}
		admitted, tried := 0, 800
		for i := range tried {
			spec := randomValue(schema.Properties["spec"], r, 0).(map[string]any)
			spec["image"] = "example.com/shop:1.0"
			companions(spec, r)
			u := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": webappv1.GroupVersion.String(), "kind": "WebApp",
				"metadata": map[string]any{"namespace": ns, "name": fmt.Sprintf("r%d", i)}, "spec": spec,
			}}
			if err := k8sClient.Create(ctx, u, client.DryRunAll); err != nil {
				if os.Getenv("PROPERTY_DEBUG") != "" {
					GinkgoWriter.Println("REFUSED", err)
				}
				continue
			}
			admitted++
			present(u.Object["spec"], "spec", covered)
			app := &webappv1.WebApp{}
			Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, app)).To(Succeed(), "admitted but does not convert: %v", spec)
			app.UID = "00000000-0000-0000-0000-000000000001"
			hub, err := served.ToHub(app)
			Expect(err).NotTo(HaveOccurred(), "admitted but does not convert to the hub: %v", spec)
			for _, child := range resources.All {
				desired, err := child.Desired(hub)
				Expect(err).NotTo(HaveOccurred(), "admitted but does not render a %s: %v", child.Kind(), spec)
				if desired != nil {
					Expect(k8sClient.Apply(ctx, desired, client.FieldOwner(resources.FieldOwner), client.ForceOwnership,
						client.DryRunAll)).To(Succeed(), "admitted but its %s is refused: %v", child.Kind(), spec)
				}
			}
		}
		By(fmt.Sprintf("%d of %d random WebApps admitted", admitted, tried))
		all := map[string]bool{}
		scalars(schema.Properties["spec"], "spec", all)
		var missing []string
		for p := range all {
			if !covered[p] {
				missing = append(missing, p)
			}
		}
		slices.Sort(missing)
		Expect(missing).To(BeEmpty(), "fields that no admitted WebApp carried: the test proves nothing there")
	})
})
