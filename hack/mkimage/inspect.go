package main

import (
	"archive/tar"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"sigs.k8s.io/yaml"
)

// The commands that read images rather than make them.
const (
	cmdDigest = "digest"
	cmdCheck  = "check"
)

// inspect runs the digest and check commands.
func inspect(cmd string, args []string) error {
	fs := flag.NewFlagSet(cmd, flag.ExitOnError)
	csv := fs.String("csv", "", "check: the ClusterServiceVersion whose arch labels the image must match")
	_ = fs.Parse(args)
	if fs.NArg() != 1 || cmd == cmdCheck && *csv == "" {
		return fmt.Errorf("usage: mkimage digest TARBALL|REFERENCE, mkimage check -csv CSV TARBALL")
	}
	src := fs.Arg(0)
	if cmd == cmdDigest {
		if _, err := os.Stat(src); err != nil {
			return remoteDigest(src)
		}
	}
	return withArchive(src, func(a artifact) error {
		if cmd == cmdDigest {
			d, err := a.Digest()
			fmt.Println(d)
			return err
		}
		return check(a, *csv)
	})
}

// remoteDigest prints the digest a registry gives for ref (plain HTTP allowed).
func remoteDigest(ref string) error {
	r, err := name.ParseReference(ref, name.Insecure)
	if err != nil {
		return err
	}
	desc, err := remote.Head(r)
	if err != nil {
		return err
	}
	fmt.Println(desc.Digest)
	return nil
}

// withArchive unpacks an OCI layout tarball written by writeOCIArchive and calls fn with its one
// image or index (read lazily from the unpacked layout, so fn runs before it is removed).
func withArchive(tarball string, fn func(artifact) error) error {
	dir, err := os.MkdirTemp("", "oci-layout-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	if err := untar(tarball, dir); err != nil {
		return err
	}
	idx, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		return err
	}
	m, err := idx.IndexManifest()
	if err != nil {
		return err
	}
	if len(m.Manifests) != 1 {
		return fmt.Errorf("%s: want one entry in index.json, got %d", tarball, len(m.Manifests))
	}
	var a artifact
	if d := m.Manifests[0]; d.MediaType.IsIndex() {
		a, err = idx.ImageIndex(d.Digest)
	} else {
		a, err = idx.Image(d.Digest)
	}
	if err != nil {
		return err
	}
	return fn(a)
}

// untar unpacks the regular files and directories of a tarball into dir.
func untar(tarball, dir string) error {
	f, err := os.Open(tarball)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		p := filepath.Join(dir, filepath.FromSlash(path.Clean("/"+h.Name)))
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(p, 0o755)
		case tar.TypeReg:
			var data []byte
			if data, err = io.ReadAll(tr); err == nil {
				if err = os.MkdirAll(filepath.Dir(p), 0o755); err == nil {
					err = os.WriteFile(p, data, 0o644)
				}
			}
		}
		if err != nil {
			return err
		}
	}
}

// check prints each platform of a and the binary its entrypoint runs, and fails unless every binary
// was built for its image's platform and the platforms are exactly those the CSV supports.
func check(a artifact, csvPath string) error {
	images, err := platformImages(a)
	if err != nil {
		return err
	}
	var have []string
	for _, pi := range images {
		got, err := entrypointPlatform(pi.image)
		if err != nil {
			return fmt.Errorf("%s: %w", pi.platform, err)
		}
		d, _ := pi.image.Digest()
		fmt.Printf("%s\t%s\tentrypoint built for %s\n", pi.platform, d, got)
		if got.String() != pi.platform.String() {
			return fmt.Errorf("the %s image runs a %s binary", pi.platform, got)
		}
		have = append(have, pi.platform.Architecture)
	}
	want, err := csvArchitectures(csvPath)
	if err != nil {
		return err
	}
	sort.Strings(have)
	if !slices.Equal(have, want) {
		return fmt.Errorf("the image is for %v, the CSV's operatorframework.io/arch labels say %v", have, want)
	}
	return nil
}

type platformImage struct {
	platform v1.Platform
	image    v1.Image
}

// platformImages lists an index's images with the platforms it gives them, or a single image with
// the platform of its config.
func platformImages(a artifact) ([]platformImage, error) {
	if img, ok := a.(v1.Image); ok {
		cf, err := img.ConfigFile()
		if err != nil {
			return nil, err
		}
		return []platformImage{{*cf.Platform(), img}}, nil
	}
	idx := a.(v1.ImageIndex)
	m, err := idx.IndexManifest()
	if err != nil {
		return nil, err
	}
	var out []platformImage
	for _, d := range m.Manifests {
		if d.Platform == nil {
			return nil, fmt.Errorf("index entry %s names no platform", d.Digest)
		}
		img, err := idx.Image(d.Digest)
		if err != nil {
			return nil, err
		}
		out = append(out, platformImage{*d.Platform, img})
	}
	return out, nil
}

// entrypointPlatform finds the image's entrypoint binary in its layers (the last one that has it
// wins, as in the container's file system) and reads its platform.
func entrypointPlatform(img v1.Image) (v1.Platform, error) {
	cf, err := img.ConfigFile()
	if err != nil {
		return v1.Platform{}, err
	}
	if len(cf.Config.Entrypoint) == 0 {
		return v1.Platform{}, fmt.Errorf("no entrypoint")
	}
	want := strings.TrimPrefix(path.Clean(cf.Config.Entrypoint[0]), "/")
	layers, err := img.Layers()
	if err != nil {
		return v1.Platform{}, err
	}
	for i := len(layers) - 1; i >= 0; i-- {
		data, err := layerFile(layers[i], want)
		if err != nil {
			return v1.Platform{}, err
		}
		if data != nil {
			return elfPlatform(data)
		}
	}
	return v1.Platform{}, fmt.Errorf("entrypoint /%s is in no layer", want)
}

// layerFile returns the content of the regular file at path file in layer, or nil if it has none.
func layerFile(layer v1.Layer, file string) ([]byte, error) {
	rc, err := layer.Uncompressed()
	if err != nil {
		return nil, err
	}
	defer func() { _ = rc.Close() }()
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		if strings.TrimPrefix(path.Clean(h.Name), "/") == file && h.Typeflag == tar.TypeReg {
			return io.ReadAll(tr)
		}
	}
}

// csvArchitectures reads the architectures a CSV's operatorframework.io/arch.<arch>: supported labels
// declare, sorted.
func csvArchitectures(csvPath string) ([]string, error) {
	data, err := os.ReadFile(csvPath)
	if err != nil {
		return nil, err
	}
	var csv struct {
		Metadata struct {
			Labels map[string]string `json:"labels"`
		} `json:"metadata"`
	}
	if err := yaml.Unmarshal(data, &csv); err != nil {
		return nil, fmt.Errorf("%s: %w", csvPath, err)
	}
	var archs []string
	for k, v := range csv.Metadata.Labels {
		if arch, ok := strings.CutPrefix(k, "operatorframework.io/arch."); ok && v == "supported" {
			archs = append(archs, arch)
		}
	}
	sort.Strings(archs)
	return archs, nil
}
