{{- /* One type: its doc, what it is (a kind, a scalar, a list or map), its validation, where it is
   used, and a table of its fields. Input: dict "t" the type, "pkg" the API package. */ -}}
{{- define "type" -}}
{{- $t := .t -}}
{{- $pkg := .pkg -}}
## {{ $t.Name }}
{{- with $t.Doc }}

{{ template "doc" (dict "s" . "table" false) }}
{{- end }}
{{- with $t.GVK }}

`apiVersion: {{ .Group }}/{{ .Version }}`, `kind: {{ .Kind }}`.
{{- template "resource" $t }}
{{- end }}
{{- if not $t.Members }}

Type: {{ template "scalar" (dict "t" $t "pkg" $pkg) }}.
{{- end }}
{{- template "validation" (dict "m" $t.Markers "skip" dict "table" false) }}
{{- with $t.SortedReferences }}

Used in:
{{- range $i, $r := . }}{{ if $i }},{{ end }} [{{ $r.Name }}](#{{ lower $r.Name }}){{ end }}.
{{- end }}
{{- $documented := false }}
{{- range $t.EnumValues }}{{ if .Doc }}{{ $documented = true }}{{ end }}{{ end }}
{{- if $documented }}

| Value | Description |
| --- | --- |
{{- range $t.EnumValues }}
| `{{ .Name }}` | {{ template "doc" (dict "s" .Doc "table" true) }} |
{{- end }}
{{- end }}
{{- if $t.Members }}

| Field | Type | Default | Description |
| --- | --- | --- | --- |
{{- with $t.GVK }}
| `apiVersion`<br />_required_ | string |  | `{{ .Group }}/{{ .Version }}` |
| `kind`<br />_required_ | string |  | `{{ .Kind }}` |
{{- end }}
{{- range $t.Members }}
{{ template "field" (dict "f" . "pkg" $pkg) }}
{{- end }}
{{- end }}
{{ end -}}

{{- /* What a type without fields holds. */ -}}
{{- define "scalar" -}}
{{- if index .t.Markers "kubebuilder:validation:XIntOrString" }}integer or string
{{- else if .t.UnderlyingType }}{{ template "typeRef" (dict "t" .t.UnderlyingType "pkg" .pkg) }}
{{- else }}object{{ end }}
{{- end -}}

{{- /* A kind's resource facts: scope, short names, categories and subresources. */ -}}
{{- define "resource" -}}
{{- $m := .Markers -}}
{{- $res := dict -}}
{{- with index $m "kubebuilder:resource" }}{{ $res = last . }}{{ end -}}
{{- $scope := "Namespaced" -}}
{{- with $res }}{{ with .Scope }}{{ $scope = . }}{{ end }}{{ end }} {{ $scope }}.
{{- with $res }}
{{- with .ShortName }} Short name{{ if gt (len .) 1 }}s{{ end }}:{{ range $i, $n := . }}{{ if $i }},{{ end }} `{{ $n }}`{{ end }}.{{ end }}
{{- with .Categories }} Categor{{ if gt (len .) 1 }}ies{{ else }}y{{ end }}:{{ range $i, $n := . }}{{ if $i }},{{ end }} `{{ $n }}`{{ end }}.{{ end }}
{{- end }}
{{- $sub := list }}
{{- if index $m "kubebuilder:subresource:status" }}{{ $sub = append $sub "`status`" }}{{ end }}
{{- with index $m "kubebuilder:subresource:scale" }}{{ $sub = append $sub (printf "`scale` (replicas at `%s`)" (last .).SpecPath) }}{{ end }}
{{- with $sub }} Subresources: {{ join ", " . }}.{{ end }}
{{- end -}}

{{- /* A table row. A field is required unless marked optional: controller-gen also makes optional
   a field whose JSON tag says omitempty, which crd-ref-docs does not see, and every such field of
   this API is marked. crd-ref-docs merges a type's markers into the fields of that type; those the
   type's own section shows are left out here, enums aside. Kinds (crd-ref-docs' types.Kind):
   0 alias, 1 basic, 2 interface, 3 map, 4 pointer, 5 slice, 6 struct. */ -}}
{{- define "field" -}}
{{- $f := .f -}}
{{- $m := $f.Markers -}}
{{- $base := $f.Type -}}
{{- if or (eq $base.Kind 4) (eq $base.Kind 5) }}{{ $base = $base.UnderlyingType }}{{ end -}}
{{- $skip := dict -}}
{{- if and $base (eq $base.Package .pkg) $base.Markers }}{{ $skip = $base.Markers }}{{ end -}}
| `{{ $f.Name }}`
{{- if not (or (index $m "optional") (index $m "kubebuilder:validation:Optional") (index $m "k8s:optional")) }}<br />_required_{{ end }} | {{ template "typeRef" (dict "t" $f.Type "pkg" .pkg) }} | {{ template "default" $m }} | {{ template "doc" (dict "s" $f.Doc "table" true) }}
{{- template "validation" (dict "m" $m "skip" $skip "table" true) }} |
{{- end -}}

{{- /* A type's name, linked to its section, or to the Kubernetes or Go documentation when imported. */ -}}
{{- define "typeRef" -}}
{{- $t := .t -}}
{{- if eq $t.Kind 5 }}list of {{ template "typeRef" (dict "t" $t.UnderlyingType "pkg" .pkg) }}
{{- else if eq $t.Kind 3 }}map of {{ template "typeRef" (dict "t" $t.KeyType "pkg" .pkg) }} to {{ template "typeRef" (dict "t" $t.ValueType "pkg" .pkg) }}
{{- else if eq $t.Kind 4 }}{{ template "typeRef" (dict "t" $t.UnderlyingType "pkg" .pkg) }}
{{- else if or (eq $t.Kind 1) (eq $t.Kind 2) }}{{ markdownRenderType $t }}
{{- else if eq $t.Package .pkg }}[{{ $t.Name }}](#{{ lower $t.Name }})
{{- else }}
{{- $id := printf "%s.%s" $t.Package $t.Name }}
{{- $known := dict
	"k8s.io/apimachinery/pkg/util/intstr.IntOrString" "integer or string"
	"k8s.io/apimachinery/pkg/api/resource.Quantity" "[Quantity](https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/quantity/)"
	"k8s.io/apimachinery/pkg/apis/meta/v1.Time" "string (RFC 3339 time)"
	"k8s.io/apimachinery/pkg/apis/meta/v1.ObjectMeta" "[ObjectMeta](https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/object-meta/)"
	"k8s.io/apimachinery/pkg/apis/meta/v1.ListMeta" "[ListMeta](https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/list-meta/)" }}
{{- if hasKey $known $id }}{{ get $known $id }}{{ else }}[{{ $t.Name }}](https://pkg.go.dev/{{ $t.Package }}#{{ $t.Name }}){{ end }}
{{- end }}
{{- end -}}

{{- /* The default the API server applies, as it would be written in YAML. */ -}}
{{- define "default" -}}
{{- $d := index . "kubebuilder:default" }}{{ with index . "default" }}{{ $d = . }}{{ end -}}
{{- with $d }}{{ $v := (last .).Value }}`{{ if kindIs "string" $v }}{{ $v }}{{ else }}{{ toJson $v }}{{ end }}`{{ end -}}
{{- end -}}
