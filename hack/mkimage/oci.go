package main

import (
	"io/fs"
	"os"
	"path/filepath"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
)

// writeOCIArchive writes img (an image or an index) as an OCI image layout packed in a tar. The
// layout's entry carries the image name in both annotations that importers read (containerd's and
// the OCI one).
func writeOCIArchive(img artifact, tag name.Tag, out string) error {
	dir, err := os.MkdirTemp("", "oci-layout-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return err
	}
	names := layout.WithAnnotations(map[string]string{
		"io.containerd.image.name":          tag.Name(),
		"org.opencontainers.image.ref.name": tag.TagStr(),
	})
	switch a := img.(type) {
	case v1.ImageIndex:
		err = p.AppendIndex(a, names)
	case v1.Image:
		err = p.AppendImage(a, names)
	}
	if err != nil {
		return err
	}
	return tarDir(dir, out)
}

// tarDir packs dir into out with sorted entries (WalkDir's lexical order) and pinned timestamps.
func tarDir(dir, out string) error {
	var files []file
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if d.IsDir() {
			files = append(files, file{name: filepath.ToSlash(rel) + "/", mode: 0o755})
			return nil
		}
		data, err := os.ReadFile(path)
		files = append(files, file{name: filepath.ToSlash(rel), mode: 0o644, data: data})
		return err
	})
	if err != nil {
		return err
	}
	data, err := layerTar(files)
	if err != nil {
		return err
	}
	return os.WriteFile(out, data, 0o644)
}
