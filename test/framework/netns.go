package framework

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// NodeNetns is the local cluster's network namespace (hack/local-cluster.sh), where ClusterIPs and
// pod IPs are routed.
var NodeNetns = "/run/netns/" + EnvOr("LOCAL_CLUSTER_NETNS", "webapp-lc")

// DialInNetns returns a dialer whose connections start inside the network namespace at path,
// without leaving this process: a goroutine locks its OS thread, joins the namespace and creates
// the socket there (a socket stays in the namespace it was created in). The thread is never switched
// back: the goroutine ends while still locked, so the Go runtime throws that thread away.
func DialInNetns(path string) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		type result struct {
			conn net.Conn
			err  error
		}
		ch := make(chan result, 1)
		go func() {
			runtime.LockOSThread()
			fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
			if err != nil {
				ch <- result{err: fmt.Errorf("open %s: %w", path, err)}
				return
			}
			defer func() { _ = unix.Close(fd) }()
			if err := unix.Setns(fd, unix.CLONE_NEWNET); err != nil {
				ch <- result{err: fmt.Errorf("setns %s: %w", path, err)}
				return
			}
			var d net.Dialer
			c, err := d.DialContext(ctx, network, addr)
			ch <- result{c, err}
		}()
		r := <-ch
		return r.conn, r.err
	}
}

// NodeHTTPClient is an HTTP client whose connections start in the node's network namespace. Keep-alive
// is off so that every request is a new connection, which kube-proxy balances anew.
func NodeHTTPClient() *http.Client {
	return &http.Client{
		Timeout:   5 * time.Second,
		Transport: &http.Transport{DialContext: DialInNetns(NodeNetns), DisableKeepAlives: true},
	}
}

// Get returns the status code and the trimmed body of GET url.
func Get(hc *http.Client, url string) (int, string, error) { return GetHost(hc, url, "") }

// GetHost is Get with the Host header set to host (when not empty), as a client that resolves host to
// the address of url would send it: how a gateway that routes by host name is reached.
func GetHost(hc *http.Client, url, host string) (int, string, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return 0, "", err
	}
	req.Host = host
	resp, err := hc.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(body)), err
}
