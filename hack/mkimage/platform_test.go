package main

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// elfBinary is the smallest file debug/elf reads: a 64-bit little-endian ELF header for machine m,
// with no program or section header; tail makes two binaries of one machine differ.
func elfBinary(t *testing.T, m elf.Machine, tail string) []byte {
	t.Helper()
	h := elf.Header64{Type: uint16(elf.ET_EXEC), Machine: uint16(m), Version: uint32(elf.EV_CURRENT),
		Ehsize: 64, Phentsize: 56, Shentsize: 64}
	copy(h.Ident[:], elf.ELFMAG)
	h.Ident[elf.EI_CLASS], h.Ident[elf.EI_DATA], h.Ident[elf.EI_VERSION] = byte(elf.ELFCLASS64),
		byte(elf.ELFDATA2LSB), byte(elf.EV_CURRENT)
	var buf bytes.Buffer
	if err := binary.Write(&buf, binary.LittleEndian, h); err != nil {
		t.Fatal(err)
	}
	buf.WriteString(tail)
	return buf.Bytes()
}

func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

const archCSV = `metadata:
  labels:
    operatorframework.io/arch.amd64: supported
    operatorframework.io/arch.arm64: supported
    operatorframework.io/os.linux: supported
`

func TestBinaryImagesIndexOnePlatformPerELFBinary(t *testing.T) {
	dir := t.TempDir()
	amd := writeFile(t, dir, "manager-amd64", elfBinary(t, elf.EM_X86_64, "a"))
	arm := writeFile(t, dir, "manager-arm64", elfBinary(t, elf.EM_AARCH64, "b"))

	a, err := binaryImages([]string{amd, arm}, "manager", nil)
	if err != nil {
		t.Fatal(err)
	}
	idx, ok := a.(v1.ImageIndex)
	if !ok {
		t.Fatalf("two binaries gave a %T, want an index", a)
	}
	m, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	got := make([]string, 0, len(m.Manifests))
	for _, d := range m.Manifests {
		got = append(got, d.Platform.String())
		img, _ := idx.Image(d.Digest)
		if cf, _ := img.ConfigFile(); cf.Architecture != d.Platform.Architecture || cf.OS != "linux" {
			t.Errorf("%s: the config says %s/%s", d.Platform, cf.OS, cf.Architecture)
		}
	}
	if strings.Join(got, ",") != "linux/amd64,linux/arm64" {
		t.Errorf("platforms %v", got)
	}
	again, _ := binaryImages([]string{amd, arm}, "manager", nil)
	if d1, _ := a.Digest(); d1 != mustDigest(t, again) {
		t.Error("the same binaries gave two index digests")
	}

	// One binary stays a plain image, as the demo app and pause images are.
	if single, err := binaryImages([]string{arm}, "manager", nil); err != nil {
		t.Fatal(err)
	} else if _, ok := single.(v1.Image); !ok {
		t.Errorf("one binary gave a %T, want an image", single)
	}
	// Two binaries of one platform, or a file that is not a Linux ELF binary, are refused.
	amd2 := writeFile(t, dir, "other-amd64", elfBinary(t, elf.EM_X86_64, "c"))
	if _, err := binaryImages([]string{amd, amd2}, "manager", nil); err == nil {
		t.Error("two amd64 binaries: want an error")
	}
	script := writeFile(t, dir, "script", []byte("#!/bin/sh\n"))
	if _, err := binaryImages([]string{script}, "manager", nil); err == nil {
		t.Error("a shell script: want an error")
	}
}

func arch(t *testing.T, img v1.Image) string {
	t.Helper()
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	return cf.Architecture
}

func mustDigest(t *testing.T, a artifact) v1.Hash {
	t.Helper()
	d, err := a.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestCheckCatchesAWrongBinaryOrAMissingArch writes indexes to tarballs the way `make image-tarball`
// does and runs check on them: the right one passes, an arm64 entry that runs an amd64 binary and a
// CSV that does not list every architecture fail.
func TestCheckCatchesAWrongBinaryOrAMissingArch(t *testing.T) {
	dir := t.TempDir()
	csv := writeFile(t, dir, "csv.yaml", []byte(archCSV))
	amdCSV := writeFile(t, dir, "amd64-only.yaml", []byte(strings.ReplaceAll(archCSV,
		"    operatorframework.io/arch.arm64: supported\n", "")))
	amdBin, armBin := elfBinary(t, elf.EM_X86_64, "a"), elfBinary(t, elf.EM_AARCH64, "b")
	arm64 := v1.Platform{OS: "linux", Architecture: "arm64"}

	tarball := func(name string, amdEntry, armEntry []byte) string {
		images := make([]v1.Image, 0, 2)
		for p, bin := range map[*v1.Platform][]byte{&amd64: amdEntry, &arm64: armEntry} {
			img, err := binaryImage(bin, "manager", nil, *p)
			if err != nil {
				t.Fatal(err)
			}
			images = append(images, img)
		}
		sort.Slice(images, func(i, j int) bool { return arch(t, images[i]) < arch(t, images[j]) })
		idx, err := oneOrIndex(images)
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, name)
		if err := write(idx, "example.com/x/manager:v1", out, "oci"); err != nil {
			t.Fatal(err)
		}
		var fromFile v1.Hash
		if err := withArchive(out, func(a artifact) error { fromFile = mustDigest(t, a); return nil }); err != nil {
			t.Fatal(err)
		}
		if fromFile != mustDigest(t, idx) {
			t.Errorf("%s: the tarball's digest %s is not the index's", name, fromFile)
		}
		return out
	}
	good := tarball("good.tar", amdBin, armBin)
	wrong := tarball("wrong.tar", amdBin, amdBin)

	run := func(file, csv string) error {
		return withArchive(file, func(a artifact) error { return check(a, csv) })
	}
	if err := run(good, csv); err != nil {
		t.Errorf("a right index: %v", err)
	}
	if err := run(wrong, csv); err == nil || !strings.Contains(err.Error(), "runs a linux/amd64 binary") {
		t.Errorf("an arm64 image running an amd64 binary: got %v", err)
	}
	if err := run(good, amdCSV); err == nil || !strings.Contains(err.Error(), "operatorframework.io/arch") {
		t.Errorf("a CSV without arm64: got %v", err)
	}
}

func TestBundleIndexHasEveryPlatform(t *testing.T) {
	arm64 := v1.Platform{OS: "linux", Architecture: "arm64"}
	a, err := bundleImage("../../bundle", "../../bundle.Dockerfile", []v1.Platform{amd64, arm64})
	if err != nil {
		t.Fatal(err)
	}
	idx, ok := a.(v1.ImageIndex)
	if !ok {
		t.Fatalf("got a %T, want an index", a)
	}
	m, _ := idx.IndexManifest()
	if len(m.Manifests) != 2 || m.Manifests[0].Platform.Architecture != "amd64" ||
		m.Manifests[1].Platform.Architecture != "arm64" {
		t.Errorf("index: %+v", m.Manifests)
	}
}
