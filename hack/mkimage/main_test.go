package main

import (
	"archive/tar"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

var amd64 = v1.Platform{OS: "linux", Architecture: "amd64"}

func digest(t *testing.T, img v1.Image) v1.Hash {
	t.Helper()
	d, err := img.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// entries lists the paths in img's only layer.
func entries(t *testing.T, img v1.Image) map[string]*tar.Header {
	t.Helper()
	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("want one layer, got %d (%v)", len(layers), err)
	}
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rc.Close() }()
	out := map[string]*tar.Header{}
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out[h.Name] = h
	}
}

func TestManagerImage(t *testing.T) {
	a, err := binaryImage([]byte("binary"), "manager", nil, amd64)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := binaryImage([]byte("binary"), "manager", nil, amd64)
	c, _ := binaryImage([]byte("other binary"), "manager", nil, amd64)
	if digest(t, a) != digest(t, b) {
		t.Error("the same binary gave two digests")
	}
	if digest(t, a) == digest(t, c) {
		t.Error("different binaries gave one digest")
	}
	cf, err := a.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if cf.Config.User != "65532:65532" || cf.Config.Entrypoint[0] != "/manager" || cf.OS != "linux" {
		t.Errorf("config: %+v", cf.Config)
	}
	files := entries(t, a)
	if h := files["manager"]; h == nil || h.Mode != 0o755 || h.Uid != 0 || !h.ModTime.Equal(epoch) {
		t.Errorf("manager entry: %+v", h)
	}
	if files["etc/passwd"] == nil || files["tmp/"] == nil {
		t.Error("passwd or tmp missing")
	}
	if mt, _ := a.MediaType(); mt != types.OCIManifestSchema1 {
		t.Errorf("media type %s, want OCI", mt)
	}
}

func TestBinaryImage(t *testing.T) {
	img, err := binaryImage([]byte("demo"), "demoapp", nil, amd64)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := binaryImage([]byte("demo"), "demoapp", nil, amd64)
	if digest(t, img) != digest(t, again) {
		t.Error("the same binary gave two digests")
	}
	if h := entries(t, img)["demoapp"]; h == nil || h.Mode != 0o755 || h.Size != 4 {
		t.Errorf("/demoapp entry: %+v", h)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if got := cf.Config.Entrypoint; len(got) != 1 || got[0] != "/demoapp" || cf.Config.User != "65532:65532" {
		t.Errorf("config: entrypoint %v user %q", got, cf.Config.User)
	}
	for _, bad := range []string{"", "a/b", "etc", "a b"} {
		if _, err := binaryImage([]byte("x"), bad, nil, amd64); err == nil {
			t.Errorf("name %q: want an error", bad)
		}
	}
}

func TestBundleImageFollowsBundleDockerfile(t *testing.T) {
	a, err := bundleImage("../../bundle", "../../bundle.Dockerfile", []v1.Platform{amd64})
	if err != nil {
		t.Fatal(err)
	}
	img := a.(v1.Image)
	again, _ := bundleImage("../../bundle", "../../bundle.Dockerfile", []v1.Platform{amd64})
	if digest(t, img) != digest(t, again.(v1.Image)) {
		t.Error("bundle image is not reproducible")
	}
	labels, _, err := parseBundleDockerfile("../../bundle.Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	cf, _ := img.ConfigFile()
	if len(labels) < 5 {
		t.Fatalf("only %d labels read from bundle.Dockerfile", len(labels))
	}
	for k, v := range labels {
		if cf.Config.Labels[k] != v {
			t.Errorf("label %s = %q, want %q", k, cf.Config.Labels[k], v)
		}
	}
	if cf.Config.Labels["operators.operatorframework.io.bundle.package.v1"] != "webapp-operator" {
		t.Error("package label missing")
	}
	files := entries(t, img)
	for _, want := range []string{
		"manifests/webapp-operator.clusterserviceversion.yaml",
		"manifests/apps.webapp-operator.io_webapps.yaml",
		"metadata/annotations.yaml",
		"tests/scorecard/config.yaml",
	} {
		if files[want] == nil {
			t.Errorf("%s missing from the bundle image", want)
		}
	}
	for name := range files {
		if strings.HasPrefix(name, "bundle/") {
			t.Errorf("%s: bundle files must sit at the image root", name)
		}
	}
}

func TestOCIArchiveIsNamedAndReproducible(t *testing.T) {
	img, err := binaryImage([]byte("binary"), "manager", nil, amd64)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.tar"), filepath.Join(dir, "b.tar")
	for _, out := range []string{a, b} {
		if err := write(img, "example.com/x/manager:v1", out, "oci"); err != nil {
			t.Fatal(err)
		}
	}
	da, _ := os.ReadFile(a)
	db, _ := os.ReadFile(b)
	if string(da) != string(db) {
		t.Error("two writes of one image differ")
	}
	// Unpack and read it back as an OCI layout.
	layoutDir := filepath.Join(dir, "layout")
	if err := untar(a, layoutDir); err != nil {
		t.Fatal(err)
	}
	p, err := layout.FromPath(layoutDir)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := p.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	m, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Manifests) != 1 || m.Manifests[0].Annotations["io.containerd.image.name"] != "example.com/x/manager:v1" {
		t.Fatalf("index: %+v", m.Manifests)
	}
	if m.Manifests[0].Digest != digest(t, img) {
		t.Error("the archive holds another image")
	}
}

func TestRootfsImageKeepsLinksAndExecBits(t *testing.T) {
	root := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(root, "bin"), 0o755))
	must(os.WriteFile(filepath.Join(root, "bin", "busybox"), []byte("bb"), 0o700))
	must(os.Symlink("busybox", filepath.Join(root, "bin", "sh")))
	must(os.MkdirAll(filepath.Join(root, "configs"), 0o700))
	must(os.MkdirAll(filepath.Join(root, "tmp"), 0o755))
	must(os.Chmod(filepath.Join(root, "tmp"), 0o1777|os.ModeSticky))
	must(os.WriteFile(filepath.Join(root, "configs", "catalog.yaml"), []byte("x"), 0o600))
	if os.Getuid() == 0 { // only root can give a file away
		must(os.Chown(filepath.Join(root, "configs", "catalog.yaml"), 1001, 1002))
	}
	cfg := v1.Config{Entrypoint: []string{"/bin/sh"}, User: "1001", Labels: map[string]string{"a": "b"}}
	img, err := rootfsImage(root, cfg, amd64)
	must(err)
	files := entries(t, img)
	if _, ok := files["./"]; ok {
		t.Error("the root directory is an entry")
	}
	if h := files["bin/busybox"]; h == nil || h.Mode != 0o755 || h.Typeflag != tar.TypeReg {
		t.Errorf("bin/busybox: %+v", h)
	}
	if h := files["bin/sh"]; h == nil || h.Typeflag != tar.TypeSymlink || h.Linkname != "busybox" {
		t.Errorf("bin/sh: %+v", h)
	}
	if h := files["configs/catalog.yaml"]; os.Getuid() == 0 && (h == nil || h.Uid != 1001 || h.Gid != 1002) {
		t.Errorf("configs/catalog.yaml must keep its owner: %+v", h)
	}
	if h := files["configs/catalog.yaml"]; h == nil || h.Mode != 0o644 {
		t.Errorf("configs/catalog.yaml: %+v", h)
	}
	if h := files["configs/"]; h == nil || h.Typeflag != tar.TypeDir || h.Mode != 0o755 {
		t.Errorf("configs/: %+v", h)
	}
	if h := files["tmp/"]; h == nil || h.Mode != 0o1777 {
		t.Errorf("tmp/ must stay world-writable and sticky: %+v", h)
	}
	cf, err := img.ConfigFile()
	must(err)
	if cf.Config.User != "1001" || cf.Config.Labels["a"] != "b" || cf.Config.Entrypoint[0] != "/bin/sh" {
		t.Errorf("config: %+v", cf.Config)
	}
	again, err := rootfsImage(root, cfg, amd64)
	must(err)
	if digest(t, img) != digest(t, again) {
		t.Error("the same tree gave two digests")
	}
}

func TestKeyValues(t *testing.T) {
	m, err := keyValues([]string{"a=b", "c=d=e", "f="})
	if err != nil || m["a"] != "b" || m["c"] != "d=e" || m["f"] != "" || len(m) != 3 {
		t.Errorf("got %v, %v", m, err)
	}
	for _, bad := range []string{"novalue", "=v"} {
		if _, err := keyValues([]string{bad}); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
}
