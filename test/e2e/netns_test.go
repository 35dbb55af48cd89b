package e2e

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

// dialInNetns opens a connection from inside the node's network namespace, where ClusterIPs and pod
// IPs are routed (kube-proxy's rules live there), without leaving this process: a goroutine locks
// its OS thread, joins the namespace and creates the socket there. A socket stays in the namespace it
// was created in. The thread is never switched back: the goroutine ends while still locked, so the
// Go runtime throws that thread away.
func dialInNetns(ctx context.Context, network, addr string) (net.Conn, error) {
	type result struct {
		conn net.Conn
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		fd, err := unix.Open(netnsPath, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			ch <- result{err: fmt.Errorf("open %s: %w", netnsPath, err)}
			return
		}
		defer func() { _ = unix.Close(fd) }()
		if err := unix.Setns(fd, unix.CLONE_NEWNET); err != nil {
			ch <- result{err: fmt.Errorf("setns %s: %w", netnsPath, err)}
			return
		}
		var d net.Dialer
		c, err := d.DialContext(ctx, network, addr)
		ch <- result{c, err}
	}()
	r := <-ch
	return r.conn, r.err
}

// nodeHTTP is an HTTP client whose connections start in the node's network namespace. Keep-alive is
// off so that every request is a new connection, which kube-proxy balances anew.
var nodeHTTP = &http.Client{
	Timeout:   5 * time.Second,
	Transport: &http.Transport{DialContext: dialInNetns, DisableKeepAlives: true},
}

// get returns the status code and body of GET url, called from the node.
func get(url string) (int, string, error) {
	resp, err := nodeHTTP.Get(url)
	if err != nil {
		return 0, "", err
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(body)), err
}
