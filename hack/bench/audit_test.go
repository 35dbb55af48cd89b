package main

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// auditLine is one audit event as the API server writes it, with the fields the breakdown reads.
func auditLine(verb, userAgent, resource, sub string, code int, at string) string {
	return auditLineIn("bench-0", verb, userAgent, resource, sub, code, at)
}

func auditLineIn(ns, verb, userAgent, resource, sub string, code int, at string) string {
	return fmt.Sprintf(`{"verb":%q,"userAgent":%q,"objectRef":{"resource":%q,"subresource":%q,"namespace":%q},`+
		`"responseStatus":{"code":%d},"requestReceivedTimestamp":"2026-12-01T10:00:%sZ"}`+"\n",
		verb, userAgent, resource, sub, ns, code, at)
}

var auditLines = auditLine("patch", "manager/v0.0.0 (linux/amd64) kubernetes/$Format", "deployments", "", 201, "01.0") +
	auditLine("patch", "manager/v0.0.0", "webapps", "status", 200, "02.0") +
	auditLineIn(probeNamespace, "patch", "manager/v0.0.0", "webapps", "status", 200, "02.5") +
	auditLineIn(probeNamespace, "create", "manager/v0.0.0", "events", "", 201, "02.6") +
	auditLine("patch", "manager/v0.0.0", "services", "", 409, "03.0") +
	auditLine("create", "bench/v0.0.0", "webapps", "", 201, "03.5") +
	auditLine("patch", "manager/v0.0.0", "deployments", "", 200, "09.0")

func TestAuditLogBreakdown(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	// The API server may be in the middle of a line: the half line waits for the next read.
	split := len(auditLines) - 40
	if err := os.WriteFile(path, []byte(auditLines[:split]), 0o600); err != nil {
		t.Fatal(err)
	}
	a := &auditLog{path: path}
	at := func(s int) time.Time { return time.Date(2026, 12, 1, 10, 0, s, 0, time.UTC) }
	got, probe, err := a.between(at(0), at(5))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"patch deployments": 1, "patch webapps/status": 1, "patch services (409)": 1}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("between(0s, 5s) = %v, want %v", got, want)
	}
	// The probe's requests are counted apart, never with the N WebApps'.
	if want := map[string]float64{"patch webapps/status": 1, "create events": 1}; !reflect.DeepEqual(probe, want) {
		t.Fatalf("between(0s, 5s): probe = %v, want %v", probe, want)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString(auditLines[split:])
	_ = f.Close()
	got, probe, err = a.between(at(5), at(10))
	if err != nil || !reflect.DeepEqual(got, map[string]float64{"patch deployments": 1}) || len(probe) != 0 {
		t.Fatalf("between(5s, 10s) = %v, %v, %v", got, probe, err)
	}
	if got := sortedReasons(map[string]float64{"b": 1, "a": 1, "c": 5}); !reflect.DeepEqual(got, []string{"c", "a", "b"}) {
		t.Fatalf("sortedReasons = %v", got)
	}
}

func TestAuditLogMissingIsEmpty(t *testing.T) {
	a := &auditLog{path: filepath.Join(t.TempDir(), "none.log")}
	got, probe, err := a.between(time.Time{}, time.Now())
	if err != nil || len(got) != 0 || len(probe) != 0 {
		t.Fatalf("between on a missing log = %v, %v, %v", got, probe, err)
	}
}

func TestByMethod(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   map[string]float64
		want map[string]float64
	}{
		{"none", nil, map[string]float64{}},
		{"writes", map[string]float64{"patch deployments": 2, "patch webapps/status": 3, "create events": 1,
			"update leases": 1, "delete pods (404)": 1, "deletecollection pods": 1},
			map[string]float64{"PATCH": 5, "POST": 1, "PUT": 1, "DELETE": 2}},
		{"reads are GET", map[string]float64{"get services": 1, "list pods": 2, "watch deployments": 4},
			map[string]float64{"GET": 7}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := byMethod(tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("byMethod = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestProbeApplies(t *testing.T) {
	line := func(ns, verb, userAgent, resource string, code int, received, answered string) string {
		return fmt.Sprintf(`{"verb":%q,"userAgent":%q,"objectRef":{"resource":%q,"namespace":%q},`+
			`"responseStatus":{"code":%d},"requestReceivedTimestamp":"2026-12-01T10:00:%sZ",`+
			`"stageTimestamp":"2026-12-01T10:00:%sZ"}`+"\n", verb, userAgent, resource, ns, code, received, answered)
	}
	path := filepath.Join(t.TempDir(), "audit.log")
	lines := line(probeNamespace, "patch", "manager/v0.0.0", "deployments", 200, "01.0", "01.2") +
		line("bench-0", "patch", "manager/v0.0.0", "deployments", 200, "02.0", "02.1") + // not the probe's
		line(probeNamespace, "patch", "manager/v0.0.0", "webapps", 200, "03.0", "03.1") + // not its Deployment
		line(probeNamespace, "patch", "bench/v0.0.0", "deployments", 200, "04.0", "04.1") + // not the operator's
		line(probeNamespace, "patch", "manager/v0.0.0", "deployments", 409, "05.0", "05.1") + // refused
		line(probeNamespace, "patch", "manager/v0.0.0", "deployments", 200, "06.0", "06.5") +
		line(probeNamespace, "patch", "manager/v0.0.0", "deployments", 200, "09.0", "09.1") // too late
	if err := os.WriteFile(path, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	at := func(s, ms int) time.Time {
		return time.Date(2026, 12, 1, 10, 0, s, ms*int(time.Millisecond), time.UTC)
	}
	got, err := (&auditLog{path: path}).probeApplies(at(0, 0), at(8, 0))
	want := []applyTimes{{received: at(1, 0), answered: at(1, 200)}, {received: at(6, 0), answered: at(6, 500)}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("probeApplies = %v, %v; want %v", got, err, want)
	}
	if got, err := (*auditLog)(nil).probeApplies(at(0, 0), at(8, 0)); got != nil || err != nil {
		t.Fatalf("probeApplies on no log = %v, %v", got, err)
	}
}
