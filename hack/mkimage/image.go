package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// epoch is the timestamp of every file and of the image itself: digests depend only on content.
var epoch = time.Unix(0, 0).UTC()

// file is one entry of a layer.
type file struct {
	name string // path inside the image, without leading slash
	mode int64
	data []byte // nil for a directory
	link string // target of a symbolic link
	uid  int    // owner; 0 (root) unless a rootfs says otherwise
	gid  int
}

// binaryImage packs a static binary as /<name>, its entrypoint, run as the non-root user 65532 with
// a minimal /etc/passwd, /home/nonroot and /tmp, like the distroless static:nonroot base that the
// Dockerfile uses. The manager image is the binary named manager; the local cluster's pause image
// and the e2e demo app are made the same way.
func binaryImage(binary []byte, name string, labels map[string]string, p v1.Platform) (v1.Image, error) {
	if name == "" || strings.ContainsAny(name, "/ \t\n") || name == "etc" || name == "home" || name == "tmp" {
		return nil, fmt.Errorf("invalid binary name %q: want a plain file name", name)
	}
	passwd := "root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n"
	group := "root:x:0:\nnonroot:x:65532:\n"
	files := []file{
		{name: "etc/", mode: 0o755},
		{name: "etc/passwd", mode: 0o644, data: []byte(passwd)},
		{name: "etc/group", mode: 0o644, data: []byte(group)},
		{name: "home/", mode: 0o755},
		{name: "home/nonroot/", mode: 0o700, uid: 65532, gid: 65532}, // as in distroless: the user's own
		{name: "tmp/", mode: 0o1777},
		{name: name, mode: 0o755, data: binary},
	}
	return image([][]file{files}, v1.Config{
		Entrypoint: []string{"/" + name},
		User:       "65532:65532",
		WorkingDir: "/",
		Env:        []string{"PATH=/usr/local/bin:/usr/bin:/bin"},
		Labels:     labels,
	}, p)
}

// bundleImage packs an OLM bundle like bundle.Dockerfile does: FROM scratch, its LABELs, and
// bundle/{manifests,metadata,tests/scorecard} copied to /manifests, /metadata, /tests/scorecard.
// A bundle holds no binary, but OLM runs it as a container (its unpack Job copies the manifests out
// with a binary of its own), so one image per platform, all of the same layer, lets every node pull it.
func bundleImage(bundleDir, dockerfile string, platforms []v1.Platform) (artifact, error) {
	labels, copies, err := parseBundleDockerfile(dockerfile)
	if err != nil {
		return nil, err
	}
	var files []file
	for _, c := range copies {
		// COPY paths in bundle.Dockerfile are relative to the project root; bundleDir replaces "bundle".
		src := filepath.Join(bundleDir, strings.TrimPrefix(filepath.Clean(c[0]), "bundle"))
		dirFiles, err := readTree(src, strings.Trim(c[1], "/"))
		if err != nil {
			return nil, err
		}
		files = append(files, dirFiles...)
	}
	images := make([]v1.Image, 0, len(platforms))
	for _, p := range platforms {
		img, err := image([][]file{files}, v1.Config{Labels: labels}, p)
		if err != nil {
			return nil, err
		}
		images = append(images, img)
	}
	return oneOrIndex(images)
}

// parseBundleDockerfile reads the LABEL and COPY lines of a generated bundle.Dockerfile.
func parseBundleDockerfile(path string) (map[string]string, [][2]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer func() { _ = f.Close() }()
	labels := map[string]string{}
	var copies [][2]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		switch {
		case len(fields) == 2 && fields[0] == "LABEL":
			k, v, ok := strings.Cut(fields[1], "=")
			if !ok {
				return nil, nil, fmt.Errorf("%s: cannot read %q", path, sc.Text())
			}
			labels[k] = v
		case len(fields) == 3 && fields[0] == "COPY":
			copies = append(copies, [2]string{fields[1], fields[2]})
		case len(fields) > 0 && fields[0] != "FROM" && !strings.HasPrefix(fields[0], "#"):
			return nil, nil, fmt.Errorf("%s: unsupported instruction %q", path, sc.Text())
		}
	}
	if len(copies) == 0 {
		return nil, nil, fmt.Errorf("%s has no COPY instruction", path)
	}
	return labels, copies, sc.Err()
}

// rootfsImage packs a directory as the image's root file system, with the given config, for platform p
// (the binaries in dir are the host's). Symbolic links
// are kept (a busybox and its applets), executables get 0755, other files 0644, and owners are kept:
// a non-root image may need to own some of its files (opm's catalog cache takes a lock file beside it).
func rootfsImage(dir string, cfg v1.Config, p v1.Platform) (v1.Image, error) {
	files, err := readTree(dir, "")
	if err != nil {
		return nil, err
	}
	if err := readOwners(dir, files); err != nil {
		return nil, err
	}
	// the root itself is not an entry
	kept := files[:0]
	for _, f := range files {
		if f.name != "./" {
			kept = append(kept, f)
		}
	}
	return image([][]file{kept}, cfg, p)
}

// readOwners sets the owner of each file (listed by readTree(dir, "")) from the file system.
func readOwners(dir string, files []file) error {
	for i := range files {
		info, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(files[i].name)))
		if err != nil {
			return err
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			files[i].uid, files[i].gid = int(st.Uid), int(st.Gid)
		}
	}
	return nil
}

// readTree lists dir's files as layer entries under prefix, in a stable order; every entry is owned by root.
func readTree(dir, prefix string) ([]file, error) {
	var files []file
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		name := filepath.ToSlash(filepath.Join(prefix, rel))
		switch {
		case d.IsDir():
			mode := int64(0o755)
			if info, err := d.Info(); err == nil && info.Mode()&fs.ModeSticky != 0 {
				mode = 0o1777 // /tmp: anyone may create files, only their owner may remove them
			}
			files = append(files, file{name: name + "/", mode: mode})
			return nil
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			files = append(files, file{name: name, mode: 0o777, link: target})
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		mode := int64(0o644)
		if info.Mode().Perm()&0o111 != 0 {
			mode = 0o755
		}
		files = append(files, file{name: name, mode: mode, data: data})
		return nil
	})
	return files, err
}

// image assembles an image for platform p from layers, with timestamps pinned to epoch.
func image(layers [][]file, cfg v1.Config, p v1.Platform) (v1.Image, error) {
	img := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	for _, files := range layers {
		data, err := layerTar(files)
		if err != nil {
			return nil, err
		}
		layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
			return io.NopCloser(bytes.NewReader(data)), nil
		}, tarball.WithMediaType(types.OCILayer))
		if err != nil {
			return nil, err
		}
		if img, err = mutate.Append(img, mutate.Addendum{Layer: layer, History: v1.History{
			Created: v1.Time{Time: epoch}, CreatedBy: "webapp-operator hack/mkimage"}}); err != nil {
			return nil, err
		}
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.Architecture, cf.OS, cf.Variant = p.Architecture, p.OS, p.Variant
	cf.Created = v1.Time{Time: epoch}
	cf.Config = cfg
	return mutate.ConfigFile(img, cf)
}

// layerTar writes files as an uncompressed tar, sorted by name, owned by root, dated epoch.
func layerTar(files []file) ([]byte, error) {
	sort.Slice(files, func(i, j int) bool { return files[i].name < files[j].name })
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range files {
		h := &tar.Header{Name: f.name, Mode: f.mode, ModTime: epoch, Format: tar.FormatPAX, Typeflag: tar.TypeReg,
			Size: int64(len(f.data)), Uid: f.uid, Gid: f.gid}
		switch {
		case strings.HasSuffix(f.name, "/"):
			h.Typeflag, h.Size = tar.TypeDir, 0
		case f.link != "":
			h.Typeflag, h.Size, h.Linkname = tar.TypeSymlink, 0, f.link
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
