package framework

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"time"
)

// Process is a child process whose output goes to a log file. It is killed when its parent dies
// (Pdeathsig), so an interrupted test or benchmark leaves no control plane behind.
type Process struct {
	Name string
	cmd  *exec.Cmd
	log  *os.File
	done chan struct{}
	err  error
}

// StartProcess starts bin with args, its output appended to logPath, with env added to the
// parent's environment.
func StartProcess(name, logPath string, env []string, bin string, args ...string) (*Process, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	// Pdeathsig fires when the OS thread that started the child ends, not the process. Go ends
	// threads: DialInNetns throws away every thread it moves into another network namespace, and the
	// thread that ran cmd.Start could be the next one it takes. So the child is started, and waited
	// for, from a thread that this goroutine keeps locked, which no other goroutine runs on.
	p := &Process{Name: name, cmd: cmd, log: logFile, done: make(chan struct{})}
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		p.err = cmd.Wait()
		close(p.done)
	}()
	if err := <-started; err != nil {
		_ = logFile.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	return p, nil
}

// PID is the process ID.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// LogPath is where the process writes its output.
func (p *Process) LogPath() string { return p.log.Name() }

// Exited reports whether the process stopped on its own, with an error that says so.
func (p *Process) Exited() (bool, error) {
	select {
	case <-p.done:
		return true, fmt.Errorf("%s exited: %v (log: %s)", p.Name, p.err, p.log.Name())
	default:
		return false, nil
	}
}

// Signal sends sig to the process (SIGSTOP and SIGCONT freeze and thaw it).
func (p *Process) Signal(sig syscall.Signal) error { return p.cmd.Process.Signal(sig) }

// Stop sends SIGTERM, waits up to 20 s, then kills. A nil Process is already stopped.
func (p *Process) Stop() {
	if p == nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGCONT) // a frozen process cannot act on SIGTERM
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
	_ = p.log.Close()
}
