package main

import (
	"time"

	"github.com/prometheus/procfs"
)

// procSample is what /proc says about a process at one moment.
type procSample struct {
	CPU      time.Duration // user + system time
	RSS, HWM uint64        // resident set size now and at its peak, bytes
}

func readProc(pid int) (procSample, error) {
	p, err := procfs.NewProc(pid)
	if err != nil {
		return procSample{}, err
	}
	stat, err := p.Stat()
	if err != nil {
		return procSample{}, err
	}
	status, err := p.NewStatus()
	if err != nil {
		return procSample{}, err
	}
	return procSample{CPU: time.Duration(stat.CPUTime() * float64(time.Second)), RSS: status.VmRSS,
		HWM: status.VmHWM}, nil
}
