// Command registry serves an OCI distribution registry for the local cluster: OLM pulls bundle and
// catalog images by reference, so images must live in a registry, and the machine has no network
// access to a public one. It is go-containerregistry's registry: blobs on disk (-dir), manifests in
// memory, so images are pushed again after a restart (hack/olm.sh pushes on every run; pushing a blob
// the registry already has costs one HEAD request).
//
// One port speaks both plain HTTP, what containerd and opm --use-http are configured for, and, given
// -cert and -key, HTTPS: operator-sdk run bundle inspects its --index-image over HTTPS whatever its
// --use-http flag says (operator-framework/operator-lifecycle-manager#2975), then renders that same
// image over plain HTTP. Each connection is told apart by its first byte (a TLS handshake starts 0x16).
//
//	registry -addr 10.200.0.1:5000 -cert registry.crt -key registry.key -dir DIR
package main

import (
	"crypto/tls"
	"flag"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:5000", "address to listen on")
	cert := flag.String("cert", "", "TLS certificate (PEM): also answer HTTPS on the same port")
	key := flag.String("key", "", "TLS private key (PEM)")
	dir := flag.String("dir", "", "directory for blobs (default: in memory)")
	quiet := flag.Bool("quiet", false, "do not log every request")
	flag.Parse()

	var opts []registry.Option
	if *dir != "" {
		if err := os.MkdirAll(*dir, 0o755); err != nil {
			log.Fatal(err)
		}
		opts = append(opts, registry.WithBlobHandler(registry.NewDiskBlobHandler(*dir)))
	}
	if *quiet {
		opts = append(opts, registry.Logger(log.New(io.Discard, "", 0)))
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	if *cert != "" {
		pair, err := tls.LoadX509KeyPair(*cert, *key)
		if err != nil {
			log.Fatal(err)
		}
		// HTTP/1.1 only: the server does not know a connection is TLS, so it cannot speak h2 on it
		ln = &sniffListener{Listener: ln, config: &tls.Config{Certificates: []tls.Certificate{pair},
			NextProtos: []string{"http/1.1"}, MinVersion: tls.VersionTLS12}}
	}
	log.Printf("registry listening on %s (TLS too: %v)", *addr, *cert != "")
	srv := &http.Server{Handler: registry.New(opts...), ReadHeaderTimeout: 10 * time.Second}
	log.Fatal(srv.Serve(ln))
}
