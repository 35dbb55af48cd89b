package main

import (
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// One port answers both plain HTTP and HTTPS, with the same handler.
func TestSniffListenerServesPlainAndTLS(t *testing.T) {
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "ok "+r.URL.Path)
	})
	// a throwaway certificate: httptest's
	tlsSrv := httptest.NewTLSServer(handler)
	defer tlsSrv.Close()
	cert := tlsSrv.TLS.Certificates[0]

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: handler}
	sniffing := &sniffListener{Listener: ln, config: &tls.Config{Certificates: []tls.Certificate{cert}}}
	go func() { _ = srv.Serve(sniffing) }()
	defer func() { _ = srv.Close() }()

	plain := &http.Client{}
	secure := tlsSrv.Client() // trusts the certificate
	for _, tc := range []struct {
		client *http.Client
		url    string
	}{
		{plain, "http://" + ln.Addr().String() + "/v2/"},
		{secure, "https://" + ln.Addr().String() + "/v2/"},
		{plain, "http://" + ln.Addr().String() + "/again"},
	} {
		resp, err := tc.client.Get(tc.url)
		if err != nil {
			t.Fatalf("%s: %v", tc.url, err)
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != 200 || string(body) != "ok "+resp.Request.URL.Path {
			t.Errorf("%s: %d %q", tc.url, resp.StatusCode, body)
		}
	}
	// a TLS client that does not trust the certificate is refused by the handshake, not served in plain
	if _, err := plain.Get("https://" + ln.Addr().String() + "/v2/"); err == nil {
		t.Error("an untrusted certificate was accepted")
	}
}
