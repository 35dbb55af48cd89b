// Command mkimage builds the operator's container images without a container daemon or registry,
// as image tarballs: an OCI image layout (default) or a docker archive (-format docker), both of which
// `ctr images import`, `docker load` and `podman load` accept:
//
//	mkimage manager -binary bin/manager -tag IMG -out bin/manager-image.tar
//	mkimage bundle  -dir bundle -dockerfile bundle.Dockerfile -tag BUNDLE_IMG -out bin/bundle-image.tar
//	mkimage binary  -binary bin/demoapp -name demoapp -tag localhost/demoapp:v1 -out bin/demoapp-v1.tar
//
// The binary kind packs any static binary the way the manager is packed (as /<name>, the entrypoint,
// run as 65532); the local cluster uses it for its pause image and the e2e demo app.
//
// Images are reproducible: the same inputs give the same digest (timestamps are pinned to the
// epoch, layer entries are sorted and owned by root).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: mkimage manager|bundle|binary [flags]")
		os.Exit(2)
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	tag := fs.String("tag", "", "image reference to record in the tarball, e.g. ghcr.io/org/webapp-operator:v0.1.0")
	out := fs.String("out", "", "output tarball")
	binary := fs.String("binary", "bin/manager", "manager, binary: the static binary to pack")
	binName := fs.String("name", "", "binary: its file name in the image, /<name> (default: the base name of -binary)")
	dir := fs.String("dir", "bundle", "bundle: the bundle directory")
	dockerfile := fs.String("dockerfile", "bundle.Dockerfile", "bundle: the generated bundle.Dockerfile")
	format := fs.String("format", "oci", "oci (OCI image layout in a tar) or docker (docker save format)")
	_ = fs.Parse(os.Args[2:])
	if *tag == "" || *out == "" {
		fs.Usage()
		os.Exit(2)
	}

	var img v1.Image
	var err error
	switch os.Args[1] {
	case "manager":
		var data []byte
		if data, err = os.ReadFile(*binary); err == nil {
			img, err = managerImage(data, map[string]string{
				"org.opencontainers.image.source": "https://github.com/webapp-operator/webapp-operator"})
		}
	case "bundle":
		img, err = bundleImage(*dir, *dockerfile)
	case "binary":
		n := *binName
		if n == "" {
			n = filepath.Base(*binary)
		}
		var data []byte
		if data, err = os.ReadFile(*binary); err == nil {
			img, err = binaryImage(data, n, nil)
		}
	default:
		err = fmt.Errorf("unknown image %q: want manager, bundle or binary", os.Args[1])
	}
	if err == nil {
		err = write(img, *tag, *out, *format)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mkimage:", err)
		os.Exit(1)
	}
}

func write(img v1.Image, ref, out, format string) error {
	tag, err := name.NewTag(ref)
	if err != nil {
		return err
	}
	switch format {
	case "oci":
		err = writeOCIArchive(img, tag, out)
	case "docker":
		err = tarball.WriteToFile(out, tag, img)
	default:
		err = fmt.Errorf("unknown format %q", format)
	}
	if err != nil {
		return err
	}
	digest, err := img.Digest()
	if err != nil {
		return err
	}
	fmt.Printf("%s\t%s\t%s\n", out, ref, digest)
	return nil
}
