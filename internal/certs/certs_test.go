package certs

import (
	"crypto/x509"
	"slices"
	"strings"
	"testing"
	"time"
)

var (
	t0    = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	hosts = ServiceHosts("webhook", "ops")
)

func TestServiceHosts(t *testing.T) {
	for _, c := range []struct {
		service, namespace string
		want               []string
	}{
		{"webapp-operator-webhook-service", "webapp-operator-system", []string{
			"webapp-operator-webhook-service",
			"webapp-operator-webhook-service.webapp-operator-system",
			// the name the API server checks the certificate against
			"webapp-operator-webhook-service.webapp-operator-system.svc",
			"webapp-operator-webhook-service.webapp-operator-system.svc.cluster.local",
		}},
		{"w", "n", []string{"w", "w.n", "w.n.svc", "w.n.svc.cluster.local"}},
	} {
		if got := ServiceHosts(c.service, c.namespace); !slices.Equal(got, c.want) {
			t.Errorf("ServiceHosts(%q, %q) = %v, want %v", c.service, c.namespace, got, c.want)
		}
	}
}

func TestServingCertificateNames(t *testing.T) {
	ca := mustCA(t, t0, t0.Add(time.Hour))
	for _, c := range []struct {
		hosts       []string
		dns, ips    []string
		wantInHosts []string
	}{
		{hosts, hosts, nil, sorted(hosts)},
		{[]string{"a.b.svc", "127.0.0.1", "::1"}, []string{"a.b.svc"}, []string{"127.0.0.1", "::1"},
			[]string{"127.0.0.1", "::1", "a.b.svc"}},
	} {
		s := mustServing(t, ca, c.hosts, t0, t0.Add(time.Hour))
		if !slices.Equal(s.Cert.DNSNames, c.dns) {
			t.Errorf("%v: DNS names %v, want %v", c.hosts, s.Cert.DNSNames, c.dns)
		}
		ips := make([]string, 0, len(s.Cert.IPAddresses))
		for _, ip := range s.Cert.IPAddresses {
			ips = append(ips, ip.String())
		}
		if !slices.Equal(ips, c.ips) {
			t.Errorf("%v: IP addresses %v, want %v", c.hosts, ips, c.ips)
		}
		if got := Hosts(s.Cert); !slices.Equal(got, c.wantInHosts) {
			t.Errorf("Hosts = %v, want %v", got, c.wantInHosts)
		}
		if s.Cert.CheckSignatureFrom(ca.Cert) != nil || s.Cert.IsCA || s.Cert.ExtKeyUsage[0] != x509.ExtKeyUsageServerAuth {
			t.Errorf("%v: not a serving certificate signed by the CA", c.hosts)
		}
	}
	if _, err := NewServing(ca, nil, t0, t0.Add(time.Hour)); err == nil {
		t.Error("a serving certificate without a host was made")
	}
}

func TestRenewAt(t *testing.T) {
	for _, c := range []struct {
		from, to, want time.Time
	}{
		{t0, t0.Add(90 * 24 * time.Hour), t0.Add(60 * 24 * time.Hour)},
		{t0, t0.Add(30 * time.Second), t0.Add(20 * time.Second)},
		{t0.Add(-time.Hour), t0.Add(2 * time.Hour), t0.Add(time.Hour)},
	} {
		if got := RenewAt(&x509.Certificate{NotBefore: c.from, NotAfter: c.to}); !got.Equal(c.want) {
			t.Errorf("RenewAt(%s..%s) = %s, want %s", c.from, c.to, got, c.want)
		}
	}
}

// TestPlan is what to renew when: the CA life is t0-1h..t0+299h (renewed at t0+199h), the serving
// certificate's t0-1h..t0+29h (renewed at t0+19h).
func TestPlan(t *testing.T) {
	ca := mustCA(t, t0.Add(-time.Hour), t0.Add(299*time.Hour))
	otherCA := mustCA(t, t0.Add(-time.Hour), t0.Add(299*time.Hour))
	oldCA := mustCA(t, t0.Add(-400*time.Hour), t0.Add(100*time.Hour))
	expiredCA := mustCA(t, t0.Add(-400*time.Hour), t0.Add(-time.Hour))
	serving := mustServing(t, ca, hosts, t0.Add(-time.Hour), t0.Add(29*time.Hour))
	good := Set{CA: ca, Serving: serving, Trust: []*x509.Certificate{ca.Cert}}
	with := func(edit func(*Set)) Set { s := good; edit(&s); return s }
	for _, c := range []struct {
		name  string
		set   Set
		hosts []string
		now   time.Time
		want  Action
	}{
		{"valid", good, hosts, t0, Keep},
		{"hosts in another order", good, []string{hosts[3], hosts[1], hosts[0], hosts[2], hosts[1]}, t0, Keep},
		{"nothing yet", Set{}, hosts, t0, RenewCA},
		{"the CA is no CA", with(func(s *Set) { s.CA = serving }), hosts, t0, RenewCA},
		{"the CA just before two thirds", with(func(s *Set) {
			s.Serving = mustServing(t, ca, hosts, t0.Add(190*time.Hour), t0.Add(290*time.Hour))
		}), hosts, t0.Add(199*time.Hour - time.Second), Keep},
		{"the CA at two thirds", good, hosts, t0.Add(199 * time.Hour), RenewCA},
		{"the CA expired", good, hosts, t0.Add(300 * time.Hour), RenewCA},
		{"no serving certificate", with(func(s *Set) { s.Serving = nil }), hosts, t0, RenewServing},
		{"signed by another CA", with(func(s *Set) {
			s.Serving = mustServing(t, otherCA, hosts, t0.Add(-time.Hour), t0.Add(29*time.Hour))
		}), hosts, t0, RenewServing},
		{"for other names", good, ServiceHosts("webhook", "other"), t0, RenewServing},
		{"for one name more", good, append(slices.Clone(hosts), "127.0.0.1"), t0, RenewServing},
		{"serving just before two thirds", good, hosts, t0.Add(19*time.Hour - time.Second), Keep},
		{"serving at two thirds", good, hosts, t0.Add(19 * time.Hour), RenewServing},
		{"serving expired", good, hosts, t0.Add(30 * time.Hour), RenewServing},
		{"the CA not trusted", with(func(s *Set) { s.Trust = nil }), hosts, t0, RenewTrust},
		{"the CA not first", with(func(s *Set) { s.Trust = []*x509.Certificate{oldCA.Cert, ca.Cert} }), hosts, t0, RenewTrust},
		{"the CA before it still trusted", with(func(s *Set) { s.Trust = []*x509.Certificate{ca.Cert, oldCA.Cert} }),
			hosts, t0, Keep},
		{"the CA before it expired", with(func(s *Set) { s.Trust = []*x509.Certificate{ca.Cert, expiredCA.Cert} }),
			hosts, t0, RenewTrust},
	} {
		got, why := Plan(c.set, c.hosts, c.now)
		if got != c.want {
			t.Errorf("%s: %s (%s), want %s", c.name, got, why, c.want)
		}
	}
}

// TestApply: each action gives a Set that Plan keeps, with what the action promises.
func TestApply(t *testing.T) {
	p := Policy{CA: 300 * time.Hour, Serving: 160 * time.Hour, Backdate: time.Minute}
	first, err := p.Apply(Set{}, RenewCA, hosts, t0)
	if err != nil {
		t.Fatal(err)
	}
	assertKept(t, "a new Set", first, t0)
	if !first.CA.Cert.NotBefore.Equal(t0.Add(-time.Minute)) || !first.CA.Cert.NotAfter.Equal(t0.Add(300*time.Hour)) {
		t.Errorf("CA life %s..%s", first.CA.Cert.NotBefore, first.CA.Cert.NotAfter)
	}
	if !first.Serving.Cert.NotAfter.Equal(t0.Add(160 * time.Hour)) {
		t.Errorf("serving certificate until %s", first.Serving.Cert.NotAfter)
	}

	// the serving certificate renewed: same CA, same trust
	at := RenewAt(first.Serving.Cert)
	second, err := p.Apply(first, mustPlan(t, first, at, RenewServing), hosts, at)
	if err != nil {
		t.Fatal(err)
	}
	assertKept(t, "a renewed serving certificate", second, at)
	if !sameCert(second.CA.Cert, first.CA.Cert) || sameCert(second.Serving.Cert, first.Serving.Cert) ||
		len(second.Trust) != 1 {
		t.Error("a new serving certificate changed the CA or the trust, or kept the certificate")
	}

	// the CA renewed: the old one stays trusted, after the new one, until it expires
	at = RenewAt(first.CA.Cert)
	third, err := p.Apply(second, mustPlan(t, second, at, RenewCA), hosts, at)
	if err != nil {
		t.Fatal(err)
	}
	assertKept(t, "a renewed CA", third, at)
	if sameCert(third.CA.Cert, first.CA.Cert) || len(third.Trust) != 2 || !sameCert(third.Trust[1], first.CA.Cert) {
		t.Errorf("after the CA's renewal the trust holds %d CAs, want the new and the old", len(third.Trust))
	}
	if third.Serving.Cert.CheckSignatureFrom(third.CA.Cert) != nil {
		t.Error("the new serving certificate is not signed by the new CA")
	}

	// the old CA expires: the trust drops it, nothing else changes
	at = first.CA.Cert.NotAfter
	fourth, err := p.Apply(third, mustPlan(t, third, at, RenewTrust), hosts, at)
	if err != nil {
		t.Fatal(err)
	}
	if len(fourth.Trust) != 1 || !sameCert(fourth.Trust[0], third.CA.Cert) || fourth.Serving != third.Serving {
		t.Error("the expired CA was not dropped alone")
	}
}

// TestRenewedCAKeepsTheOldOneTrusted: the CA it replaces stays trusted even when the stored trust
// had lost it, since replicas may still serve certificates it signed.
func TestRenewedCAKeepsTheOldOneTrusted(t *testing.T) {
	p := Policy{CA: 300 * time.Hour, Serving: 100 * time.Hour}
	s, err := p.Apply(Set{}, RenewCA, hosts, t0)
	if err != nil {
		t.Fatal(err)
	}
	old := s.CA.Cert
	s.Trust = nil
	at := RenewAt(old)
	if s, err = p.Apply(s, RenewCA, hosts, at); err != nil {
		t.Fatal(err)
	}
	if len(s.Trust) != 2 || !sameCert(s.Trust[1], old) {
		t.Errorf("after the CA's renewal the trust holds %d CAs, want the new one and the one it replaced", len(s.Trust))
	}
}

// TestServingNeverOutlivesTheCA: a serving certificate made late in the CA's life ends with it.
func TestServingNeverOutlivesTheCA(t *testing.T) {
	p := Policy{CA: 100 * time.Hour, Serving: 90 * time.Hour}
	s, err := p.Apply(Set{}, RenewCA, hosts, t0)
	if err != nil {
		t.Fatal(err)
	}
	late := t0.Add(60 * time.Hour)
	s, err = p.Apply(s, RenewServing, hosts, late)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Serving.Cert.NotAfter.Equal(s.CA.Cert.NotAfter) {
		t.Errorf("serving certificate until %s, CA until %s", s.Serving.Cert.NotAfter, s.CA.Cert.NotAfter)
	}
}

func TestNextCheck(t *testing.T) {
	ca := mustCA(t, t0, t0.Add(300*time.Hour))
	serving := mustServing(t, ca, hosts, t0, t0.Add(30*time.Hour))
	old := mustCA(t, t0.Add(-400*time.Hour), t0.Add(10*time.Hour))
	for _, c := range []struct {
		name string
		set  Set
		want time.Time
	}{
		{"the serving certificate's renewal", Set{CA: ca, Serving: serving, Trust: []*x509.Certificate{ca.Cert}},
			t0.Add(20 * time.Hour)},
		{"an old CA's expiry", Set{CA: ca, Serving: serving, Trust: []*x509.Certificate{ca.Cert, old.Cert}},
			t0.Add(10 * time.Hour)},
		{"the CA's renewal", Set{CA: ca, Serving: mustServing(t, ca, hosts, t0, t0.Add(303*time.Hour)),
			Trust: []*x509.Certificate{ca.Cert}}, t0.Add(200 * time.Hour)},
	} {
		if got := c.set.NextCheck(); !got.Equal(c.want) {
			t.Errorf("%s: NextCheck = %s, want %s", c.name, got, c.want)
		}
	}
}

func TestData(t *testing.T) {
	s, err := DefaultPolicy.Apply(Set{}, RenewCA, hosts, t0)
	if err != nil {
		t.Fatal(err)
	}
	back := FromData(s.Data())
	if !sameCert(back.CA.Cert, s.CA.Cert) || !sameCert(back.Serving.Cert, s.Serving.Cert) || len(back.Trust) != 1 {
		t.Error("a Set does not read back from its data")
	}
	broken := s.Data()
	broken[KeyKey] = s.CA.KeyPEM // another key
	broken[KeyCACert] = []byte("garbage")
	back = FromData(broken)
	if back.CA != nil || back.Serving != nil {
		t.Error("a mismatched key or an unreadable certificate was read as valid")
	}
	if a, why := Plan(back, hosts, t0); a != RenewCA {
		t.Errorf("plan for broken data: %s (%s)", a, why)
	}
	if _, err := ParseKeyPair(s.Serving.CertPEM, s.CA.KeyPEM); err == nil || !strings.Contains(err.Error(), "does not belong") {
		t.Errorf("a key of another certificate: %v", err)
	}
}

func mustPlan(t *testing.T, s Set, now time.Time, want Action) Action {
	t.Helper()
	if got, why := Plan(s, hosts, now); got != want {
		t.Fatalf("plan at %s: %s (%s), want %s", now, got, why, want)
	}
	return want
}

func assertKept(t *testing.T, what string, s Set, now time.Time) {
	t.Helper()
	if a, why := Plan(s, hosts, now); a != Keep {
		t.Errorf("%s: plan %s (%s), want keep", what, a, why)
	}
}

func mustCA(t *testing.T, from, to time.Time) *KeyPair {
	t.Helper()
	ca, err := NewCA("test-ca", from, to)
	if err != nil {
		t.Fatal(err)
	}
	return ca
}

func mustServing(t *testing.T, ca *KeyPair, hosts []string, from, to time.Time) *KeyPair {
	t.Helper()
	s, err := NewServing(ca, hosts, from, to)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
