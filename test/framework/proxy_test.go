package framework

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestCutProxy(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "ok")
	}))
	defer srv.Close()
	p, err := StartCutProxy(strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = p.Close() }()
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	get := func() (string, error) {
		resp, err := hc.Get("http://" + p.Addr())
		if err != nil {
			return "", err
		}
		defer func() { _ = resp.Body.Close() }()
		b, err := io.ReadAll(resp.Body)
		return string(b), err
	}
	if body, err := get(); err != nil || body != "ok" {
		t.Fatalf("through the proxy: %q, %v", body, err)
	}
	p.Cut()
	if _, err := get(); err == nil {
		t.Fatal("a cut proxy let a request through")
	}
	if err := p.Restore(); err != nil {
		t.Fatal(err)
	}
	if body, err := get(); err != nil || body != "ok" {
		t.Fatalf("after Restore: %q, %v", body, err)
	}
}
