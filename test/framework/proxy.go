package framework

import (
	"errors"
	"io"
	"net"
	"os"
	"sync"

	"k8s.io/client-go/tools/clientcmd"
)

// CutProxy forwards TCP connections to a target (an API server) and can cut them all: a client
// behind it sees its connections drop and new ones refused (the port stops listening), as when the
// API server is unreachable, while the target and everyone else carry on.
type CutProxy struct {
	target, addr string

	mu    sync.Mutex
	l     net.Listener
	cut   bool
	conns map[net.Conn]struct{}
}

// StartCutProxy listens on a free loopback port and forwards to target (host:port).
func StartCutProxy(target string) (*CutProxy, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &CutProxy{target: target, addr: l.Addr().String(), l: l, conns: map[net.Conn]struct{}{}}
	go p.serve(l)
	return p, nil
}

// Addr is host:port of the proxy.
func (p *CutProxy) Addr() string { return p.addr }

func (p *CutProxy) serve(l net.Listener) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		go p.forward(c)
	}
}

func (p *CutProxy) forward(c net.Conn) {
	p.mu.Lock()
	if p.cut {
		p.mu.Unlock()
		_ = c.Close()
		return
	}
	p.conns[c] = struct{}{}
	p.mu.Unlock()
	defer p.drop(c)
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		return
	}
	p.mu.Lock()
	p.conns[up] = struct{}{}
	p.mu.Unlock()
	defer p.drop(up)
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(up, c); done <- struct{}{} }()
	go func() { _, _ = io.Copy(c, up); done <- struct{}{} }()
	<-done
}

func (p *CutProxy) drop(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
	_ = c.Close()
}

// Cut closes every connection and stops listening, so that new connections are refused, until Restore.
func (p *CutProxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = true
	if p.l != nil {
		_ = p.l.Close()
		p.l = nil
	}
	for c := range p.conns {
		_ = c.Close()
	}
}

// Restore listens again, on the same address, and lets connections through.
func (p *CutProxy) Restore() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	l, err := net.Listen("tcp", p.addr)
	if err != nil {
		return err
	}
	p.l, p.cut = l, false
	go p.serve(l)
	return nil
}

// Close stops the proxy.
func (p *CutProxy) Close() error {
	p.Cut()
	return nil
}

// KubeconfigVia writes a copy of the kubeconfig at path whose clusters point at proxy instead, to out.
func KubeconfigVia(path, proxyAddr, out string) error {
	cfg, err := clientcmd.LoadFromFile(path)
	if err != nil {
		return err
	}
	if len(cfg.Clusters) == 0 {
		return errors.New(path + ": no cluster")
	}
	for _, c := range cfg.Clusters {
		c.Server = "https://" + proxyAddr
	}
	data, err := clientcmd.Write(*cfg)
	if err != nil {
		return err
	}
	return os.WriteFile(out, data, 0o600)
}
