package controller

import "testing"

func TestArticle(t *testing.T) {
	for kind, want := range map[string]string{
		"Ingress": "an", "Service": "a", "HorizontalPodAutoscaler": "a", "HTTPRoute": "an", "": "a",
	} {
		if got := article(kind); got != want {
			t.Errorf("article(%q) = %q, want %q", kind, got, want)
		}
	}
}
