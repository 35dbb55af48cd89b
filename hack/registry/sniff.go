package main

import (
	"bufio"
	"crypto/tls"
	"net"
	"sync"
)

// sniffListener accepts plain and TLS connections on one port. The decision is deferred to the first
// Read of each connection, so that a client that connects and stays silent cannot stall Accept.
type sniffListener struct {
	net.Listener
	config *tls.Config
}

func (l *sniffListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &sniffConn{Conn: c, config: l.config}, nil
}

// sniffConn is a connection that turns into a TLS server connection if its first byte is a TLS
// handshake record (0x16), and stays plain otherwise.
type sniffConn struct {
	net.Conn
	config *tls.Config
	once   sync.Once
	inner  net.Conn // the plain connection (through the peeked buffer) or the TLS one
	err    error
}

const tlsHandshake = 0x16

func (c *sniffConn) sniff() {
	br := bufio.NewReader(c.Conn)
	first, err := br.Peek(1)
	if err != nil {
		c.err = err
		return
	}
	c.inner = &bufferedConn{Conn: c.Conn, r: br}
	if first[0] == tlsHandshake {
		c.inner = tls.Server(c.inner, c.config)
	}
}

func (c *sniffConn) Read(p []byte) (int, error) {
	c.once.Do(c.sniff)
	if c.err != nil {
		return 0, c.err
	}
	return c.inner.Read(p)
}

func (c *sniffConn) Write(p []byte) (int, error) {
	c.once.Do(c.sniff)
	if c.err != nil {
		return 0, c.err
	}
	return c.inner.Write(p)
}

func (c *sniffConn) Close() error {
	if c.inner != nil {
		return c.inner.Close()
	}
	return c.Conn.Close()
}

// bufferedConn reads through the buffer that holds the peeked byte.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (b *bufferedConn) Read(p []byte) (int, error) { return b.r.Read(p) }
