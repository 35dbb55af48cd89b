{{- /* A group-version: its kinds first, each followed by its spec and status, then every other type
   by name. Types no kind refers to are left out. */ -}}
{{- define "gvDetails" -}}
{{- $gv := . -}}
{{- $pkg := (index $gv.Types (first $gv.SortedKinds)).Package -}}
{{- $first := list -}}
{{- range $gv.SortedKinds }}{{ $first = concat $first (list . (printf "%sSpec" .) (printf "%sStatus" .)) }}{{ end -}}
API version: `{{ $gv.GroupVersionString }}`. Kinds:
{{- range $i, $k := $gv.SortedKinds }}{{ if $i }},{{ end }} [{{ $k }}](#{{ lower $k }}){{ end }}.
{{- with $gv.Doc }}

{{ template "doc" (dict "s" . "table" false) }}
{{- end }}
{{ range $first }}
{{- with index $gv.Types . }}
{{- if markdownShouldRenderType . }}
{{ template "type" (dict "t" . "pkg" $pkg) }}
{{- end }}
{{- end }}
{{- end }}
{{- range $gv.SortedTypes }}
{{- if and (markdownShouldRenderType .) (not (has .Name $first)) }}
{{ template "type" (dict "t" . "pkg" $pkg) }}
{{- end }}
{{- end }}
{{- end -}}
