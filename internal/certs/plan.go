package certs

import (
	"bytes"
	"crypto/x509"
	"fmt"
	"net"
	"slices"
	"time"
)

// The keys of the Secret that holds a Set: tls.crt and tls.key as a kubernetes.io/tls Secret has
// them, the CA that signs, and the CAs the API server is told to trust.
const (
	KeyCert   = "tls.crt"
	KeyKey    = "tls.key"
	KeyCACert = "ca.crt"
	KeyCAKey  = "ca.key"
	// KeyTrust is the CRD's caBundle: the CA, and the CA it replaced until that one expires, so that
	// a replica still serving a certificate of the old CA is trusted while it catches up.
	KeyTrust = "ca-bundle.crt"
)

// Set is what the Secret holds: a CA, the serving certificate it signed, and the trusted CAs. A
// part that is missing or unreadable is nil.
type Set struct {
	CA      *KeyPair
	Serving *KeyPair
	Trust   []*x509.Certificate
}

// FromData reads a Set from a Secret's data; what cannot be read stays nil, and Plan replaces it.
func FromData(data map[string][]byte) Set {
	var s Set
	s.CA, _ = ParseKeyPair(data[KeyCACert], data[KeyCAKey])
	s.Serving, _ = ParseKeyPair(data[KeyCert], data[KeyKey])
	s.Trust, _ = ParseCerts(data[KeyTrust])
	return s
}

// Data is the Secret's data for s, which must be complete.
func (s Set) Data() map[string][]byte {
	return map[string][]byte{
		KeyCert: s.Serving.CertPEM, KeyKey: s.Serving.KeyPEM,
		KeyCACert: s.CA.CertPEM, KeyCAKey: s.CA.KeyPEM,
		KeyTrust: EncodeCerts(s.Trust),
	}
}

// Action is what a Set needs.
type Action int

const (
	// Keep: nothing to do.
	Keep Action = iota
	// RenewTrust: rebuild the trusted CAs (the CA missing from them, or one of them expired).
	RenewTrust
	// RenewServing: a new serving certificate from the same CA.
	RenewServing
	// RenewCA: a new CA and a new serving certificate; the old CA stays trusted until it expires.
	RenewCA
)

func (a Action) String() string {
	return [...]string{"keep", "new trust bundle", "new serving certificate", "new CA"}[a]
}

// Plan says what s needs at now for a serving certificate of hosts, and why.
func Plan(s Set, hosts []string, now time.Time) (Action, string) {
	switch {
	case s.CA == nil || !s.CA.Cert.IsCA:
		return RenewCA, "no readable CA"
	case !now.Before(RenewAt(s.CA.Cert)):
		return RenewCA, fmt.Sprintf("the CA is past two thirds of its life (%s)", RenewAt(s.CA.Cert).Format(time.RFC3339))
	case s.Serving == nil:
		return RenewServing, "no readable serving certificate"
	case s.Serving.Cert.CheckSignatureFrom(s.CA.Cert) != nil:
		return RenewServing, "the serving certificate is not signed by the CA"
	case !slices.Equal(Hosts(s.Serving.Cert), sorted(hosts)):
		return RenewServing, fmt.Sprintf("the serving certificate is for %v, not %v", Hosts(s.Serving.Cert), sorted(hosts))
	case !now.Before(RenewAt(s.Serving.Cert)):
		return RenewServing, fmt.Sprintf("the serving certificate is past two thirds of its life (%s)",
			RenewAt(s.Serving.Cert).Format(time.RFC3339))
	case !slices.EqualFunc(s.Trust, trusted(s.CA.Cert, s.Trust, now), sameCert):
		return RenewTrust, "the trusted CAs are not the CA and the unexpired CAs before it"
	}
	return Keep, "valid"
}

// Policy is how long new certificates live.
type Policy struct {
	CA, Serving time.Duration
	// Backdate starts a certificate's life this much before now, for API servers whose clock is a
	// little behind the operator's.
	Backdate time.Duration
}

// DefaultPolicy: a CA for a year and serving certificates for 90 days, so the operator renews a
// serving certificate every 60 days and the CA every 243; each has a third of its life as margin.
var DefaultPolicy = Policy{CA: 365 * 24 * time.Hour, Serving: 90 * 24 * time.Hour, Backdate: 5 * time.Minute}

// Apply carries out action a on s at now: it returns the new Set.
func (p Policy) Apply(s Set, a Action, hosts []string, now time.Time) (Set, error) {
	from := now.Add(-p.Backdate)
	out := s
	var err error
	switch a {
	case Keep:
		return s, nil
	case RenewCA:
		if out.CA, err = NewCA("webapp-operator-webhook-ca", from, now.Add(p.CA)); err != nil {
			return s, err
		}
		fallthrough
	case RenewServing:
		to := now.Add(p.Serving)
		if to.After(out.CA.Cert.NotAfter) {
			to = out.CA.Cert.NotAfter // never outlive the CA
		}
		if out.Serving, err = NewServing(out.CA, hosts, from, to); err != nil {
			return s, err
		}
	}
	old := s.Trust
	if a == RenewCA && s.CA != nil && s.CA.Cert.IsCA {
		old = append([]*x509.Certificate{s.CA.Cert}, old...)
	}
	out.Trust = trusted(out.CA.Cert, old, now)
	return out, nil
}

// trusted is ca followed by the other certificates of old that have not expired at now, in order
// and without repeats.
func trusted(ca *x509.Certificate, old []*x509.Certificate, now time.Time) []*x509.Certificate {
	out := []*x509.Certificate{ca}
	for _, c := range old {
		if now.Before(c.NotAfter) && !slices.ContainsFunc(out, func(o *x509.Certificate) bool { return sameCert(o, c) }) {
			out = append(out, c)
		}
	}
	return out
}

// NextCheck is the first moment after which Plan may say something else than Keep for s: the
// renewal of the CA or of the serving certificate, or the expiry of a trusted CA.
func (s Set) NextCheck() time.Time {
	next := RenewAt(s.CA.Cert)
	if at := RenewAt(s.Serving.Cert); at.Before(next) {
		next = at
	}
	for _, c := range s.Trust {
		if c.NotAfter.Before(next) {
			next = c.NotAfter
		}
	}
	return next
}

func sameCert(a, b *x509.Certificate) bool { return bytes.Equal(a.Raw, b.Raw) }

// sorted is hosts sorted, without repeats, with IP addresses in the form Hosts gives them.
func sorted(hosts []string) []string {
	out := make([]string, 0, len(hosts))
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			h = ip.String()
		}
		out = append(out, h)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
