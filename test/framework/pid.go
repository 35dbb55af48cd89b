package framework

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// FindPID returns the process whose executable is exe and whose command line contains arg: the way
// to reach a process that a library started without telling its PID (envtest's kube-apiserver and etcd).
func FindPID(exe, arg string) (int, error) {
	dirs, err := filepath.Glob("/proc/[0-9]*")
	if err != nil {
		return 0, err
	}
	for _, d := range dirs {
		cmdline, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err != nil {
			continue
		}
		args := bytes.Split(bytes.TrimRight(cmdline, "\x00"), []byte{0})
		if len(args) == 0 || string(args[0]) != exe {
			continue
		}
		for _, a := range args[1:] {
			if bytes.Contains(a, []byte(arg)) {
				return strconv.Atoi(filepath.Base(d))
			}
		}
	}
	return 0, fmt.Errorf("no process %s with an argument containing %q", exe, arg)
}
