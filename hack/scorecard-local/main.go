// Command scorecard-local runs the scorecard tests of a bundle's tests/scorecard/config.yaml on the
// host, without a cluster, and prints a table.
//
// The built-in tests live in operator-sdk's scorecard-test image, whose binary reads the bundle from
// the fixed path /bundle. We run that same binary (built from the pinned operator-sdk module) in a
// chroot holding nothing but the binary and a copy of the bundle at /bundle: the same code, the same
// paths, no container runtime. Non-root users get the chroot through a user namespace.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"text/tabwriter"

	scapiv1alpha3 "github.com/operator-framework/api/pkg/apis/scorecard/v1alpha3"
	"sigs.k8s.io/yaml"
)

func main() {
	bundle := flag.String("bundle", "bundle", "bundle directory (manifests/, metadata/, tests/scorecard/)")
	binary := flag.String("scorecard-test", "bin/scorecard-test", "the scorecard-test binary")
	selector := flag.String("test", "", "run only the test with this name (default: all in config.yaml)")
	flag.Parse()
	failed, err := run(*bundle, *binary, *selector, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "scorecard-local:", err)
		os.Exit(2)
	}
	if failed > 0 {
		fmt.Fprintf(os.Stderr, "scorecard-local: %d test(s) did not pass\n", failed)
		os.Exit(1)
	}
}

// run executes the tests and returns how many did not pass.
func run(bundleDir, binary, only string, out io.Writer) (int, error) {
	tests, err := readTests(filepath.Join(bundleDir, "tests", "scorecard", "config.yaml"))
	if err != nil {
		return 0, err
	}
	root, err := os.MkdirTemp("", "scorecard-root-")
	if err != nil {
		return 0, err
	}
	defer func() { _ = os.RemoveAll(root) }()
	if err := prepareRoot(root, bundleDir, binary); err != nil {
		return 0, err
	}

	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	_, _ = fmt.Fprintln(w, "TEST\tSTATE\tDETAILS")
	failed, ran := 0, 0
	for _, t := range tests {
		// only operator-sdk's built-in tests run here; the others (test/scorecard) need a cluster
		if len(t.Entrypoint) < 2 || t.Entrypoint[0] != "scorecard-test" || (only != "" && t.Labels["test"] != only) {
			continue
		}
		ran++
		results, err := runTest(root, t.Entrypoint[1:])
		if err != nil {
			return 0, fmt.Errorf("%s: %w", t.Entrypoint[1], err)
		}
		for _, r := range results {
			if r.State != scapiv1alpha3.PassState {
				failed++
			}
			_, _ = fmt.Fprintf(w, "%s\t%s\t%s\n", r.Name, r.State, details(r))
		}
	}
	if err := w.Flush(); err != nil {
		return 0, err
	}
	if ran == 0 {
		return 0, fmt.Errorf("no test selected in %s", bundleDir)
	}
	_, err = fmt.Fprintf(out, "\nscorecard: %d passed, %d failed\n", ran-failed, failed)
	return failed, err
}

func readTests(path string) ([]scapiv1alpha3.TestConfiguration, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var cfg scapiv1alpha3.Configuration
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		return nil, fmt.Errorf("parsing %s: %w", path, err)
	}
	var tests []scapiv1alpha3.TestConfiguration
	for _, stage := range cfg.Stages {
		tests = append(tests, stage.Tests...)
	}
	return tests, nil
}

// prepareRoot lays out root/scorecard-test and root/bundle/{manifests,metadata,tests}.
func prepareRoot(root, bundleDir, binary string) error {
	if err := copyFile(binary, filepath.Join(root, "scorecard-test"), 0o755); err != nil {
		return fmt.Errorf("copying %s (run `make scorecard-test`): %w", binary, err)
	}
	if err := os.MkdirAll(filepath.Join(root, "tmp"), 0o1777); err != nil {
		return err
	}
	return filepath.WalkDir(bundleDir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(bundleDir, path)
		dst := filepath.Join(root, "bundle", rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		return copyFile(path, dst, 0o644)
	})
}

func runTest(root string, args []string) ([]scapiv1alpha3.TestResult, error) {
	cmd := exec.Command("/scorecard-test", args...)
	cmd.Dir = "/"
	cmd.Env = []string{"HOME=/tmp", "TMPDIR=/tmp"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Chroot: root}
	if os.Geteuid() != 0 {
		cmd.SysProcAttr.Cloneflags = syscall.CLONE_NEWUSER
		cmd.SysProcAttr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Geteuid(), Size: 1}}
		cmd.SysProcAttr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getegid(), Size: 1}}
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%v: %s", err, strings.TrimSpace(stderr.String()))
	}
	var status scapiv1alpha3.TestStatus
	if err := json.Unmarshal(stdout.Bytes(), &status); err != nil {
		return nil, fmt.Errorf("reading the result (%q): %w", stdout.String(), err)
	}
	return status.Results, nil
}

func details(r scapiv1alpha3.TestResult) string {
	parts := append(append([]string{}, r.Errors...), r.Suggestions...)
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, "; ")
}

func copyFile(src, dst string, mode os.FileMode) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, data, mode)
}
