// Command mkimage builds the operator's container images without a container daemon or registry,
// as image tarballs: an OCI image layout (default) or a docker archive (-format docker), both of which
// `ctr images import`, `docker load` and `podman load` accept:
//
//	mkimage manager -binary bin/manager-linux-amd64 -binary bin/manager-linux-arm64 -tag IMG -out bin/manager-image.tar
//	mkimage bundle  -dir bundle -dockerfile bundle.Dockerfile -tag BUNDLE_IMG -out bin/bundle-image.tar
//	mkimage binary  -binary bin/demoapp -name demoapp -tag localhost/demoapp:v1 -out bin/demoapp-v1.tar
//	mkimage rootfs  -dir ROOT -entrypoint '["/bin/opm"]' -cmd '["serve","/configs"]' -user 1001 \
//	                -label k=v -env K=V -tag 10.200.0.1:5000/opm:v1 -push
//	mkimage digest  bin/manager-image.tar | 10.200.0.1:5000/webapp-operator-bundle:v0.1.0
//	mkimage check   -csv bundle/manifests/webapp-operator.clusterserviceversion.yaml bin/manager-image.tar
//
// manager and binary take one -binary per platform: each image's platform is read from its binary's
// ELF header, and several binaries make one OCI index (a multi-arch image). bundle makes an index of
// one image per -platforms entry. digest prints the digest of an image tarball, or of a reference in
// a registry (plain HTTP allowed). check verifies that every image of a tarball runs a binary built
// for the platform it claims, and that the platforms are those a CSV's operatorframework.io/arch
// labels support.
//
// rootfs packs a prepared directory as the whole file system (symbolic links kept), for the OLM, opm,
// busybox and scorecard images of hack/olm.sh. With -push the image goes to the registry of -tag
// (plain HTTP allowed, no credentials) instead of a tarball.
//
// The binary kind packs any static binary the way the manager is packed (as /<name>, the entrypoint,
// run as 65532); the local cluster uses it for its pause image and the e2e demo app.
//
// Images are reproducible: the same inputs give the same digest (timestamps are pinned to the
// epoch, layer entries are sorted and owned by root).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: mkimage manager|bundle|binary|rootfs|digest|check [flags]")
		os.Exit(2)
	}
	switch os.Args[1] {
	case cmdDigest, cmdCheck:
		if err := inspect(os.Args[1], os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "mkimage:", err)
			os.Exit(1)
		}
		return
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	tag := fs.String("tag", "", "image reference to record in the tarball, e.g. ghcr.io/org/webapp-operator:v0.1.0")
	out := fs.String("out", "", "output tarball")
	var binaries []string
	fs.Var(listFlag{&binaries}, "binary", "manager, binary: a static binary to pack (repeatable: one per platform)")
	platforms := fs.String("platforms", "linux/amd64,linux/arm64", "bundle: the platforms of the index")
	binName := fs.String("name", "", "binary: its file name in the image, /<name> (default: the base name of -binary)")
	dir := fs.String("dir", "bundle", "bundle: the bundle directory")
	dockerfile := fs.String("dockerfile", "bundle.Dockerfile", "bundle: the generated bundle.Dockerfile")
	format := fs.String("format", "oci", "oci (OCI image layout in a tar) or docker (docker save format)")
	push := fs.Bool("push", false, "push to the registry named by -tag (plain HTTP) instead of writing -out")
	var cfg v1.Config
	fs.Var(jsonList{&cfg.Entrypoint}, "entrypoint", "rootfs: entrypoint as a JSON array")
	fs.Var(jsonList{&cfg.Cmd}, "cmd", "rootfs: command as a JSON array")
	fs.StringVar(&cfg.User, "user", "", "rootfs: user to run as")
	fs.StringVar(&cfg.WorkingDir, "workdir", "/", "rootfs: working directory")
	fs.Var(listFlag{&cfg.Env}, "env", "rootfs: K=V environment variable (repeatable)")
	var labels []string
	fs.Var(listFlag{&labels}, "label", "rootfs: k=v label (repeatable)")
	_ = fs.Parse(os.Args[2:])
	if *tag == "" || (*out == "") == !*push {
		fs.Usage()
		os.Exit(2)
	}

	var img artifact
	var err error
	switch os.Args[1] {
	case "manager":
		img, err = binaryImages(binaries, "manager", map[string]string{
			"org.opencontainers.image.source": "https://github.com/webapp-operator/webapp-operator"})
	case "bundle":
		var ps []v1.Platform
		if ps, err = parsePlatforms(*platforms); err == nil {
			img, err = bundleImage(*dir, *dockerfile, ps)
		}
	case "binary":
		n := *binName
		if n == "" && len(binaries) > 0 {
			n = filepath.Base(binaries[0])
		}
		img, err = binaryImages(binaries, n, nil)
	case "rootfs":
		if cfg.Labels, err = keyValues(labels); err == nil {
			img, err = rootfsImage(*dir, cfg, hostPlatform)
		}
	default:
		err = fmt.Errorf("unknown image %q: want manager, bundle, binary or rootfs", os.Args[1])
	}
	if err == nil && *push {
		err = pushImage(img, *tag)
	} else if err == nil {
		err = write(img, *tag, *out, *format)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mkimage:", err)
		os.Exit(1)
	}
}

func write(img artifact, ref, out, format string) error {
	tag, err := name.NewTag(ref)
	if err != nil {
		return err
	}
	// the tarball's directory (bin/) may not exist yet: make gateway-install is the first
	// to write there after make cluster-up on a fresh clone
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	switch format {
	case "oci":
		err = writeOCIArchive(img, tag, out)
	case "docker":
		single, ok := img.(v1.Image)
		if !ok {
			return fmt.Errorf("a docker archive holds single-platform images: give one -binary, or -format oci")
		}
		err = tarball.WriteToFile(out, tag, single)
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

// pushImage pushes img to the registry its reference names, with the credentials of docker/podman
// logins if there are any, plain HTTP allowed (the local cluster's registry). It prints the reference
// and digest like write does.
func pushImage(img artifact, ref string) error {
	tag, err := name.NewTag(ref, name.Insecure)
	if err != nil {
		return err
	}
	auth := remote.WithAuthFromKeychain(authn.DefaultKeychain)
	switch a := img.(type) {
	case v1.ImageIndex:
		err = remote.WriteIndex(tag, a, auth)
	case v1.Image:
		err = remote.Write(tag, a, auth)
	}
	if err != nil {
		return err
	}
	digest, err := img.Digest()
	if err != nil {
		return err
	}
	fmt.Printf("%s\t%s\n", ref, digest)
	return nil
}

// listFlag collects a repeatable string flag.
type listFlag struct{ values *[]string }

func (l listFlag) String() string {
	if l.values == nil {
		return ""
	}
	return strings.Join(*l.values, ",")
}

func (l listFlag) Set(v string) error { *l.values = append(*l.values, v); return nil }

// jsonList reads a flag given as a JSON array of strings, as in a Dockerfile's exec form.
type jsonList struct{ values *[]string }

func (j jsonList) String() string {
	if j.values == nil {
		return ""
	}
	b, _ := json.Marshal(*j.values)
	return string(b)
}

func (j jsonList) Set(v string) error { return json.Unmarshal([]byte(v), j.values) }

// keyValues turns k=v strings into a map, refusing entries without "=".
func keyValues(kvs []string) (map[string]string, error) {
	if len(kvs) == 0 {
		return nil, nil
	}
	m := map[string]string{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("label %q: want key=value", kv)
		}
		m[k] = v
	}
	return m, nil
}
