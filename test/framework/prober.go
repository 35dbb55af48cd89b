package framework

import (
	"context"
	"fmt"
	"io"
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
	// lastServed is when each pod (the X-Served-By header of the demo app) last answered.
	lastServed map[string]time.Time
	stop       context.CancelFunc
	done       chan struct{}
}

// StartProber probes url with hc every interval until Stop. It waits for the first successful
// answer before it counts (up to a minute): a Service that was just made Ready may not yet be
// programmed by kube-proxy, which is not what a test wants to measure.
func StartProber(hc *http.Client, url string, interval time.Duration) (*Prober, error) {
	return StartProberHost(hc, url, "", interval)
}

// StartProberHost is StartProber with the Host header set to host: through a gateway that routes by
// host name.
func StartProberHost(hc *http.Client, url, host string, interval time.Duration) (*Prober, error) {
	deadline := time.Now().Add(time.Minute)
	for {
		code, _, err := GetHost(hc, url, host)
		if err == nil && code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s never answered 200: %d %v", url, code, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &Prober{stop: cancel, done: make(chan struct{}), lastServed: map[string]time.Time{}}
	go func() {
		defer close(p.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				p.record(probe(hc, url, host))
			}
		}
	}()
	return p, nil
}

// probe returns who answered GET url, or why it failed.
func probe(hc *http.Client, url, host string) (string, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	req.Host = host
	resp, err := hc.Do(req)
	if err != nil {
		return "", err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET %s: %d", url, resp.StatusCode)
	}
	return resp.Header.Get("X-Served-By"), err
}

func (p *Prober) record(servedBy string, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err == nil {
		p.ok++
		p.lastServed[servedBy] = time.Now()
		return
	}
	p.failed++
	if len(p.firstFails) < 5 {
		p.firstFails = append(p.firstFails, time.Now().Format(time.TimeOnly)+" "+err.Error())
	}
}

// LastServed is when pod last answered, zero if it never did.
func (p *Prober) LastServed(pod string) time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lastServed[pod]
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
