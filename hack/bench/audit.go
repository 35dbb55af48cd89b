package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// The API server's audit log says, for every request the operator sends, what it was for: its verb,
// the resource and subresource, and the answer's code. The operator's own client metrics only tell
// the HTTP method, so a regression in "requests per WebApp" would not point at its cause; each row
// of this breakdown is one code path of the operator (applying a child, reading a child the cache
// lacks, writing status, recording an event, its caches' lists and watches).

// auditPolicy logs, at the Metadata level, requests for the kinds the operator reads or writes;
// nothing else, so the log stays small (kwok's pod and node status updates are most of the traffic).
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
  resources:
  - {group: apps.webapp-operator.io, resources: [webapps, webapps/status]}
  - {group: apps, resources: [deployments]}
  - {group: "", resources: [services, pods, events]}
  - {group: events.k8s.io, resources: [events]}
  - {group: policy, resources: [poddisruptionbudgets]}
  - {group: autoscaling, resources: [horizontalpodautoscalers]}
  - {group: networking.k8s.io, resources: [networkpolicies, ingresses]}
  - {group: gateway.networking.k8s.io, resources: [httproutes]}
- level: None
`

// auditArgs writes the policy under dir and returns the API server flags that use it.
func auditArgs(dir string) (map[string]string, string, error) {
	policy := filepath.Join(dir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(auditPolicy), 0o600); err != nil {
		return nil, "", err
	}
	log := filepath.Join(dir, "audit.log")
	// The API server rotates its audit log at --audit-log-maxsize, which means 100 MB when it is 0:
	// N=5,000 writes more than that, and the reader, which follows the file by offset, then read
	// the new file from the middle of a line. 1 TB is never reached.
	return map[string]string{"audit-policy-file": policy, "audit-log-path": log, "audit-log-maxsize": "1000000"},
		log, nil
}

// auditEvent is the part of an audit.k8s.io/v1 Event the breakdown reads.
type auditEvent struct {
	Verb      string `json:"verb"`
	UserAgent string `json:"userAgent"`
	ObjectRef *struct {
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
		Namespace   string `json:"namespace"`
	} `json:"objectRef"`
	ResponseStatus *struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
	Received time.Time `json:"requestReceivedTimestamp"`
	Answered time.Time `json:"stageTimestamp"` // of the ResponseComplete stage, the one the policy keeps
}

// operatorUserAgent is how the operator's requests begin their User-Agent: client-go names them
// after the binary, bin/manager.
const operatorUserAgent = "manager/"

// reason names the code path of one of the operator's requests, or "" when it is not the operator's.
func reason(e auditEvent) string {
	if !strings.HasPrefix(e.UserAgent, operatorUserAgent) || e.ObjectRef == nil {
		return ""
	}
	what := e.ObjectRef.Resource
	if e.ObjectRef.Subresource != "" {
		what += "/" + e.ObjectRef.Subresource
	}
	r := e.Verb + " " + what
	if e.ResponseStatus != nil && e.ResponseStatus.Code >= 300 {
		r += fmt.Sprintf(" (%d)", e.ResponseStatus.Code)
	}
	return r
}

// auditRecord is one of the operator's requests: when the API server received it, why, and whether
// it was about an object of the probe's namespace (probe.go).
type auditRecord struct {
	at, answered time.Time
	reason       string
	probe        bool
}

// auditLog reads the audit log as it grows and keeps the operator's requests.
type auditLog struct {
	path    string
	mu      sync.Mutex
	offset  int64
	partial []byte
	records []auditRecord
}

// catchUp reads what the API server appended since the last call.
func (a *auditLog) catchUp() error {
	f, err := os.Open(a.path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	if _, err := f.Seek(a.offset, io.SeekStart); err != nil {
		return err
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return err
	}
	a.offset += int64(len(data))
	data = append(a.partial, data...)
	last := bytes.LastIndexByte(data, '\n')
	a.partial = append([]byte(nil), data[last+1:]...)
	sc := bufio.NewScanner(bytes.NewReader(data[:last+1]))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var e auditEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return fmt.Errorf("audit log: %w", err)
		}
		if r := reason(e); r != "" {
			a.records = append(a.records, auditRecord{at: e.Received, answered: e.Answered, reason: r,
				probe: e.ObjectRef.Namespace == probeNamespace})
		}
	}
	return sc.Err()
}

// between counts the operator's requests received from from to to, by reason: those about the
// probe's WebApp and its children apart, in probe. A nil log counts none.
func (a *auditLog) between(from, to time.Time) (ours, probe map[string]float64, err error) {
	if a == nil {
		return nil, nil, nil
	}
	records, err := a.read()
	if err != nil {
		return nil, nil, err
	}
	ours, probe = countBetween(records, from, to)
	return ours, probe, nil
}

// read catches up with the log and returns the operator's requests so far. A nil log has none.
// Records are only ever appended, so the slice returned stays valid after the lock is released.
func (a *auditLog) read() ([]auditRecord, error) {
	if a == nil {
		return nil, nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.catchUp(); err != nil {
		return nil, err
	}
	return a.records, nil
}

func countBetween(records []auditRecord, from, to time.Time) (ours, probe map[string]float64) {
	ours, probe = map[string]float64{}, map[string]float64{}
	for _, r := range records {
		if r.at.Before(from) || !r.at.Before(to) {
			continue
		}
		if r.probe {
			probe[r.reason]++
		} else {
			ours[r.reason]++
		}
	}
	return ours, probe
}

// probeApplies are the operator's applies of the probe's Deployment received from from to to
// (editsteps.go). A nil log has none.
func (a *auditLog) probeApplies(from, to time.Time) ([]applyTimes, error) {
	records, err := a.read()
	if err != nil {
		return nil, err
	}
	var out []applyTimes
	for _, r := range records {
		if r.probe && r.reason == "patch deployments" && !r.at.Before(from) && !r.at.After(to) {
			out = append(out, applyTimes{received: r.at, answered: r.answered})
		}
	}
	return out, nil
}

// methodOf is the HTTP method client-go sends an API verb with, as its request metric counts it.
func methodOf(verb string) string {
	switch verb {
	case "create":
		return "POST"
	case "update":
		return "PUT"
	case "patch":
		return "PATCH"
	case "delete", "deletecollection":
		return "DELETE"
	}
	return "GET" // get, list, watch
}

// byMethod sums requests counted by reason (reason: "verb resource...") by HTTP method.
func byMethod(byReason map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for r, n := range byReason {
		verb, _, _ := strings.Cut(r, " ")
		out[methodOf(verb)] += n
	}
	return out
}

// sortedReasons are the reasons of m, the most frequent first.
func sortedReasons(m map[string]float64) []string {
	out := make([]string, 0, len(m))
	for r := range m {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		if m[out[i]] != m[out[j]] {
			return m[out[i]] > m[out[j]]
		}
		return out[i] < out[j]
	})
	return out
}
