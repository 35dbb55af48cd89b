{{- /* What the schema admits, in words, then the CEL rules by their messages. Input: dict "m" the
   markers, "skip" markers to leave out where equal (enums are always shown), "table" whether in a
   table cell. */ -}}
{{- define "validation" -}}
{{- $v := dict -}}
{{- range $name, $values := .m }}
{{- if or (eq $name "kubebuilder:validation:Enum") (not (deepEqual $values (index $.skip $name))) }}{{ $_ := set $v $name $values }}{{ end }}
{{- end }}
{{- $acc := dict "out" (list) -}}
{{- template "bounds" (dict "v" $v "p" "kubebuilder:validation:" "each" "" "acc" $acc) }}
{{- with get $v "listType" }}
{{- $lt := toString (last .) }}
{{- if eq $lt "set" }}{{ $_ := set $acc "out" (append (get $acc "out") "items unique") }}{{ end }}
{{- if eq $lt "map" }}{{ with get $v "listMapKey" }}
{{- $keys := list }}{{ range . }}{{ $keys = append $keys (printf "`%v`" .) }}{{ end }}
{{- $_ := set $acc "out" (append (get $acc "out") (printf "items unique by %s" (join " and " $keys))) }}
{{- end }}{{ end }}
{{- end }}
{{- template "bounds" (dict "v" $v "p" "kubebuilder:validation:items:" "each" "each item " "acc" $acc) }}
{{- $handled := list "Enum" "Minimum" "Maximum" "ExclusiveMinimum" "ExclusiveMaximum" "MultipleOf" "MinLength" "MaxLength" "Pattern" "Format" "MinItems" "MaxItems" "UniqueItems" "MinProperties" "MaxProperties" "Nullable" "XValidation" "XIntOrString" "Type" "Optional" "Required" }}
{{- range $name, $values := $v }}
{{- if hasPrefix "kubebuilder:validation:" $name }}
{{- $short := $name | trimPrefix "kubebuilder:validation:" | trimPrefix "items:" }}
{{- if not (has $short $handled) }}{{ $_ := set $acc "out" (append (get $acc "out") (printf "%s: %v" (trimPrefix "kubebuilder:validation:" $name) (last $values))) }}{{ end }}
{{- end }}
{{- end }}
{{- with get $acc "out" }}
{{- $s := printf "Validation: %s." (join "; " .) }}
{{- if $.table }}<br /><br />{{ replace "|" "\\|" $s }}{{ else }}

{{ $s }}{{ end }}
{{- end }}
{{- $rules := list }}
{{- with get $v "kubebuilder:validation:XValidation" }}{{ range . }}{{ $rules = append $rules (dict "r" . "each" false) }}{{ end }}{{ end }}
{{- with get $v "kubebuilder:validation:items:XValidation" }}{{ range . }}{{ $rules = append $rules (dict "r" . "each" true) }}{{ end }}{{ end }}
{{- if and $rules (not $.table) }}

Rules:
{{ end }}
{{- range $rules }}
{{- $text := trimSuffix "." .r.Message }}{{ if not $text }}{{ $text = printf "`%s`" .r.Rule }}{{ end }}
{{- if $.table }}<br />Rule{{ if .each }} for each item{{ end }}: {{ else }}
- {{ if .each }}For each item: {{ end }}{{ end }}
{{- template "doc" (dict "s" $text "table" $.table) }}.
{{- end }}
{{- end -}}

{{- /* Numeric, length, size, pattern and format bounds of the markers under prefix "p", appended to
   the list "out" of dict "acc", each phrase starting with "each". */ -}}
{{- define "bounds" -}}
{{- $v := .v }}{{ $p := .p }}{{ $a := dict "acc" .acc "each" .each }}
{{- with get $v (print $p "Enum") }}{{ $vals := list }}{{ range last . }}{{ $e := printf "%v" . }}{{ if not $e }}{{ $e = "\"\"" }}{{ end }}{{ $vals = append $vals (printf "`%s`" $e) }}{{ end }}{{ template "add" (set $a "s" (printf "one of %s" (join ", " $vals))) }}{{ end }}
{{- /* numeric bounds are floats: 31536000, not 3.1536e+07 */}}
{{- $min := "" }}{{ with get $v (print $p "Minimum") }}{{ $min = regexReplaceAll "\\.?0+$" (printf "%f" (last .)) "" }}{{ end }}
{{- $max := "" }}{{ with get $v (print $p "Maximum") }}{{ $max = regexReplaceAll "\\.?0+$" (printf "%f" (last .)) "" }}{{ end }}
{{- $exmin := false }}{{ with get $v (print $p "ExclusiveMinimum") }}{{ $exmin = eq (toString (last .)) "true" }}{{ end }}
{{- $exmax := false }}{{ with get $v (print $p "ExclusiveMaximum") }}{{ $exmax = eq (toString (last .)) "true" }}{{ end }}
{{- if and $min $max (not $exmin) (not $exmax) }}{{ template "add" (set $a "s" (printf "%s to %s" $min $max)) }}
{{- else }}
{{- if $min }}{{ template "add" (set $a "s" (printf "%s %s" (ternary "more than" "at least" $exmin) $min)) }}{{ end }}
{{- if $max }}{{ template "add" (set $a "s" (printf "%s %s" (ternary "less than" "at most" $exmax) $max)) }}{{ end }}
{{- end }}
{{- with get $v (print $p "MultipleOf") }}{{ template "add" (set $a "s" (printf "a multiple of %v" (last .))) }}{{ end }}
{{- template "count" (dict "a" $a "min" (get $v (print $p "MinLength")) "max" (get $v (print $p "MaxLength")) "one" "character" "many" "characters") }}
{{- with get $v (print $p "Pattern") }}{{ template "add" (set $a "s" (printf "matches `%v`" (last .))) }}{{ end }}
{{- with get $v (print $p "Format") }}{{ template "add" (set $a "s" (printf "format `%v`" (last .))) }}{{ end }}
{{- template "count" (dict "a" $a "min" (get $v (print $p "MinItems")) "max" (get $v (print $p "MaxItems")) "one" "item" "many" "items") }}
{{- with get $v (print $p "UniqueItems") }}{{ if eq (toString (last .)) "true" }}{{ template "add" (set $a "s" "items unique") }}{{ end }}{{ end }}
{{- template "count" (dict "a" $a "min" (get $v (print $p "MinProperties")) "max" (get $v (print $p "MaxProperties")) "one" "entry" "many" "entries") }}
{{- with get $v (print $p "Nullable") }}{{ template "add" (set $a "s" "may be null") }}{{ end }}
{{- end -}}

{{- /* "N to M things", "at least N things" or "at most M things". */ -}}
{{- define "count" -}}
{{- $min := "" }}{{ with .min }}{{ $min = toString (last .) }}{{ end }}
{{- $max := "" }}{{ with .max }}{{ $max = toString (last .) }}{{ end }}
{{- if and $min $max }}{{ template "add" (set .a "s" (printf "%s to %s %s" $min $max .many)) }}
{{- else if $min }}{{ template "add" (set .a "s" (printf "at least %s %s" $min (ternary .one .many (eq $min "1")))) }}
{{- else if $max }}{{ template "add" (set .a "s" (printf "at most %s %s" $max (ternary .one .many (eq $max "1")))) }}
{{- end }}
{{- end -}}

{{- /* Appends "each" and "s" to the list "out" of dict "acc". */ -}}
{{- define "add" -}}
{{- $_ := set .acc "out" (append (get .acc "out") (print .each .s)) -}}
{{- end -}}
