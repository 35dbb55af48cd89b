package framework

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"

	"github.com/webapp-operator/webapp-operator/internal/testenv"
)

// BuildOperator builds the operator's binary (cmd/) into dir and returns its path.
func BuildOperator(dir string) (string, error) {
	bin := filepath.Join(dir, "manager")
	build := exec.Command("go", "build", "-o", bin, "github.com/webapp-operator/webapp-operator/cmd")
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the operator: %v\n%s", err, out)
	}
	KeyCacheOnSources()
	return bin, nil
}

// OperatorProcess is the operator's binary running as a process, with plain-HTTP metrics and the
// probes on free loopback ports.
type OperatorProcess struct {
	*Process
	MetricsPort, ProbePort int
}

// StartOperator runs bin against the cluster of kubeconfig, logging to dir/name.log, with env added to
// its environment and args to the metrics and probe flags.
func StartOperator(bin, kubeconfig, dir, name string, env []string, args ...string) (*OperatorProcess, error) {
	metrics, err := testenv.FreePort()
	if err != nil {
		return nil, err
	}
	probes, err := testenv.FreePort()
	if err != nil {
		return nil, err
	}
	args = append([]string{
		"--metrics-bind-address=127.0.0.1:" + strconv.Itoa(metrics), "--metrics-secure=false",
		"--health-probe-bind-address=127.0.0.1:" + strconv.Itoa(probes),
	}, args...)
	env = append([]string{"KUBECONFIG=" + kubeconfig}, env...)
	p, err := StartProcess(name, filepath.Join(dir, name+".log"), env, bin, args...)
	if err != nil {
		return nil, err
	}
	return &OperatorProcess{Process: p, MetricsPort: metrics, ProbePort: probes}, nil
}

// Log returns what the process wrote so far.
func (p *OperatorProcess) Log() string {
	data, _ := os.ReadFile(p.LogPath())
	return string(data)
}
