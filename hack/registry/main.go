// Command registry serves an OCI distribution registry over plain HTTP for the local cluster: OLM pulls
// bundle and catalog images by reference, so images must live in a registry, and the machine has no
// network access to a public one. It is go-containerregistry's registry: blobs on disk (-dir), manifests
// in memory, so images are pushed again after a restart (hack/olm.sh pushes on every run; pushing a
// blob the registry already has costs one HEAD request).
//
//	registry -addr 10.200.0.1:5000 -dir .cache/local-cluster/registry
package main

import (
	"flag"
	"io"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:5000", "address to listen on")
	dir := flag.String("dir", "", "directory for blobs (default: in memory)")
	quiet := flag.Bool("quiet", false, "do not log every request")
	flag.Parse()

	opts := []registry.Option{}
	if *dir != "" {
		if err := os.MkdirAll(*dir, 0o755); err != nil {
			log.Fatal(err)
		}
		opts = append(opts, registry.WithBlobHandler(registry.NewDiskBlobHandler(*dir)))
	}
	if *quiet {
		opts = append(opts, registry.Logger(log.New(io.Discard, "", 0)))
	}
	srv := &http.Server{Addr: *addr, Handler: registry.New(opts...), ReadHeaderTimeout: 10 * time.Second}
	log.Printf("registry listening on http://%s", *addr)
	log.Fatal(srv.ListenAndServe())
}
