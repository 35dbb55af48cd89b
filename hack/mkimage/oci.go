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

// writeOCIArchive writes img as an OCI image layout packed in a tar. The index entry carries the
// image name in both annotations that importers read (containerd's and the OCI one).
func writeOCIArchive(img v1.Image, tag name.Tag, out string) error {
	dir, err := os.MkdirTemp("", "oci-layout-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return err
	}
	if err := p.AppendImage(img, layout.WithAnnotations(map[string]string{
		"io.containerd.image.name":          tag.Name(),
		"org.opencontainers.image.ref.name": tag.TagStr(),
	})); err != nil {
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
