package framework

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// Prober sends GET requests to a URL at a fixed interval and counts the answers, to show that
// something (an upgrade, a rollout, an eviction) happened without a failed request.
type Prober struct {
	mu         sync.Mutex
	ok, failed int
	firstFails []string
	stop       context.CancelFunc
	done       chan struct{}
}

// StartProber probes url with hc every interval until Stop. It waits for the first successful
// answer before it counts (up to a minute): a Service that was just made Ready may not yet be
// programmed by kube-proxy, which is not what a test wants to measure.
func StartProber(hc *http.Client, url string, interval time.Duration) (*Prober, error) {
	deadline := time.Now().Add(time.Minute)
	for {
		code, _, err := Get(hc, url)
		if err == nil && code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s never answered 200: %d %v", url, code, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &Prober{stop: cancel, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				code, _, err := Get(hc, url)
				if err == nil && code != http.StatusOK {
					err = fmt.Errorf("GET %s: %d", url, code)
				}
				p.record(err)
			}
		}
	}()
	return p, nil
}

func (p *Prober) record(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err == nil {
		p.ok++
		return
	}
	p.failed++
	if len(p.firstFails) < 5 {
		p.firstFails = append(p.firstFails, time.Now().Format(time.TimeOnly)+" "+err.Error())
	}
}

// Stop stops probing and returns the number of successful and failed requests, and the first
// failures with their time.
func (p *Prober) Stop() (ok, failed int, firstFails []string) {
	p.stop()
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ok, p.failed, append([]string(nil), p.firstFails...)
}
