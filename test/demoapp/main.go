// Command demoapp is the tiny web app that the local-cluster quickstart and the e2e suite run through a
// WebApp. It answers "hello from <version>" on / and 200 on /healthz, so a test can tell two image tags
// apart. The version comes from -version, else $VERSION, else the value linked in with
// -ldflags "-X main.version=v2" (how `make demo-images` gives each tag its own answer).
// /lookup?host=NAME answers with NAME's addresses as the pod resolves them (cluster DNS).
// /files/NAME serves the files of -files (a mounted ConfigMap, say); /env/NAME the value of an
// environment variable listed in -expose-env (one set from a Secret, say); /ready is a readiness
// endpoint apart from /healthz.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

var version = "dev"

func main() {
	addr := flag.String("listen", ":8080", "address to serve on")
	v := flag.String("version", "", "version to report (default $VERSION, else the linked-in version)")
	files := flag.String("files", "", "directory to serve under /files/")
	exposeEnv := flag.String("expose-env", "", "comma-separated environment variables to serve under /env/")
	flag.Parse()
	switch {
	case *v != "":
		version = *v
	case os.Getenv("VERSION") != "":
		version = os.Getenv("VERSION")
	}
	host, _ := os.Hostname()

	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Served-By", host)
		_, _ = fmt.Fprintf(w, "hello from %s\n", version)
	})
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) { _, _ = fmt.Fprintln(w, "ok") })
	mux.HandleFunc("/ready", func(w http.ResponseWriter, r *http.Request) { _, _ = fmt.Fprintln(w, "ready") })
	if *files != "" {
		mux.Handle("/files/", http.StripPrefix("/files/", http.FileServer(http.Dir(*files))))
	}
	for _, name := range strings.Split(*exposeEnv, ",") {
		if name != "" {
			mux.HandleFunc("/env/"+name, func(w http.ResponseWriter, r *http.Request) { _, _ = fmt.Fprint(w, os.Getenv(name)) })
		}
	}
	// /lookup?host=NAME resolves NAME from inside the pod: it shows that cluster DNS works.
	mux.HandleFunc("/lookup", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
		defer cancel()
		addrs, err := net.DefaultResolver.LookupHost(ctx, r.URL.Query().Get("host"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		_, _ = fmt.Fprintln(w, strings.Join(addrs, " "))
	})
	srv := &http.Server{Addr: *addr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}

	// As PID 1 in its container, the process must handle SIGTERM itself or pod deletion waits for
	// the whole grace period.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	log.Printf("demoapp %s listening on %s", version, *addr)
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
}
