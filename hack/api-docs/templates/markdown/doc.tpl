{{- /* A doc comment as markdown. Go comments wrap prose at a column, so the lines of a paragraph are
   joined; paragraphs are kept. Outside code spans, the characters markdown or HTML would take for
   syntax are escaped ("hugepages-<size>", "*.example.com"). In a table a cell is one line, and a pipe
   ends it even in a code span. Input: dict "s" the text, "table" whether in a table cell. */ -}}
{{- define "doc" -}}
{{- $table := .table -}}
{{- $paras := list -}}
{{- range regexSplit "\n\\s*\n" (trim .s) -1 }}
{{- $parts := list }}
{{- range $i, $part := splitList "`" (regexReplaceAll "\\s*\n\\s*" . " ") }}
{{- if mod $i 2 }}
{{- if $table }}{{ $part = replace "|" "\\|" $part }}{{ end }}
{{- else }}
{{- $part = $part | replace "\\" "\\\\" | replace "*" "\\*" | replace "~" "\\~" | replace "|" "\\|" | replace "<" "&lt;" | replace ">" "&gt;" }}
{{- end }}
{{- $parts = append $parts $part }}
{{- end }}
{{- $paras = append $paras (join "`" $parts) }}
{{- end }}
{{- join (ternary "<br /><br />" "\n\n" $table) $paras }}
{{- end -}}
