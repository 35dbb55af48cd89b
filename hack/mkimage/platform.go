package main

import (
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"runtime"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// artifact is what mkimage writes or pushes: a v1.Image, or a v1.ImageIndex of one image per platform.
type artifact interface {
	Digest() (v1.Hash, error)
}

// hostPlatform is the platform of the binaries built on this machine without GOARCH.
var hostPlatform = v1.Platform{OS: "linux", Architecture: runtime.GOARCH}

// elfMachines maps the ELF machine of a Linux binary to its Go (and OCI) architecture.
var elfMachines = map[elf.Machine]string{
	elf.EM_X86_64:  "amd64",
	elf.EM_AARCH64: "arm64",
	elf.EM_PPC64:   "ppc64le",
	elf.EM_S390:    "s390x",
	elf.EM_RISCV:   "riscv64",
}

// elfPlatform reads the platform a binary runs on from its ELF header, so that an image can never
// claim an architecture its binary was not built for.
func elfPlatform(binary []byte) (v1.Platform, error) {
	f, err := elf.NewFile(bytes.NewReader(binary))
	if err != nil {
		return v1.Platform{}, fmt.Errorf("not an ELF binary: %w", err)
	}
	arch, ok := elfMachines[f.Machine]
	if !ok || f.Class != elf.ELFCLASS64 {
		return v1.Platform{}, fmt.Errorf("unsupported ELF machine %s (%s)", f.Machine, f.Class)
	}
	return v1.Platform{OS: "linux", Architecture: arch}, nil
}

// binaryImages packs each of the static binaries at paths as /<name>, one image per binary, each
// for the platform its ELF header names, in one index when there are several. Two binaries for one
// platform are refused.
func binaryImages(paths []string, name string, labels map[string]string) (artifact, error) {
	seen := map[string]string{}
	var images []v1.Image
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		p, err := elfPlatform(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if other, dup := seen[p.String()]; dup {
			return nil, fmt.Errorf("%s and %s are both %s binaries", other, path, p)
		}
		seen[p.String()] = path
		img, err := binaryImage(data, name, labels, p)
		if err != nil {
			return nil, err
		}
		images = append(images, img)
	}
	return oneOrIndex(images)
}

// oneOrIndex returns the only image, or an OCI index of the images, each described by the platform
// its config names (what a node's runtime matches to pull its own).
func oneOrIndex(images []v1.Image) (artifact, error) {
	switch len(images) {
	case 0:
		return nil, fmt.Errorf("no image")
	case 1:
		return images[0], nil
	}
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, img := range images {
		cf, err := img.ConfigFile()
		if err != nil {
			return nil, err
		}
		p := cf.Platform()
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{
			MediaType: types.OCIManifestSchema1, Platform: p}})
	}
	return idx, nil
}

// parsePlatforms reads a comma-separated list of os/arch[/variant].
func parsePlatforms(s string) ([]v1.Platform, error) {
	var out []v1.Platform
	for _, f := range strings.Split(s, ",") {
		p, err := v1.ParsePlatform(strings.TrimSpace(f))
		if err != nil {
			return nil, err
		}
		out = append(out, *p)
	}
	return out, nil
}
