// Package certs makes and checks the certificates of the conversion webhook when the operator
// issues them itself (the self-managed mode of internal/webhook): a self-signed CA, a serving
// certificate it signs for the webhook Service's DNS names, and the CAs the API server is told to
// trust. It is pure: no client, no clock of its own, no files; internal/webhook keeps them in a
// Secret and the cert dir.
package certs

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"slices"
	"time"
)

// pemCertificate is the PEM block type of a certificate.
const pemCertificate = "CERTIFICATE"

// KeyPair is a certificate and its private key, parsed and as PEM.
type KeyPair struct {
	Cert    *x509.Certificate
	Key     crypto.Signer
	CertPEM []byte
	KeyPEM  []byte
}

// ServiceHosts are the DNS names of a Service, from the shortest to the fully qualified. The API
// server calls a webhook Service as <name>.<namespace>.svc and checks the certificate against that
// name; the others serve clients inside the cluster that use a shorter or longer form.
func ServiceHosts(service, namespace string) []string {
	base := service + "." + namespace
	return []string{service, base, base + ".svc", base + ".svc.cluster.local"}
}

// NewCA makes a self-signed CA valid from from to to.
func NewCA(name string, from, to time.Time) (*KeyPair, error) {
	tmpl := &x509.Certificate{
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             from,
		NotAfter:              to,
		IsCA:                  true,
		BasicConstraintsValid: true,
		MaxPathLenZero:        true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	return issue(tmpl, nil)
}

// NewServing makes a serving certificate for hosts (DNS names or IP addresses), signed by ca, valid
// from from to to.
func NewServing(ca *KeyPair, hosts []string, from, to time.Time) (*KeyPair, error) {
	if len(hosts) == 0 {
		return nil, errors.New("a serving certificate needs a host")
	}
	tmpl := &x509.Certificate{
		Subject:     pkix.Name{CommonName: hosts[0]},
		NotBefore:   from,
		NotAfter:    to,
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	return issue(tmpl, ca)
}

// issue signs tmpl with a new ECDSA P-256 key, by parent or by itself when parent is nil.
func issue(tmpl *x509.Certificate, parent *KeyPair) (*KeyPair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	if tmpl.SerialNumber, err = rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128)); err != nil {
		return nil, err
	}
	signerCert, signerKey := tmpl, crypto.Signer(key)
	if parent != nil {
		signerCert, signerKey = parent.Cert, parent.Key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, signerCert, key.Public(), signerKey)
	if err != nil {
		return nil, err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	return ParseKeyPair(pem.EncodeToMemory(&pem.Block{Type: pemCertificate, Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}))
}

// ParseKeyPair reads a PEM certificate and its PEM private key, and checks that they belong together.
func ParseKeyPair(certPEM, keyPEM []byte) (*KeyPair, error) {
	certs, err := ParseCerts(certPEM)
	if err != nil {
		return nil, err
	}
	block, _ := pem.Decode(keyPEM)
	if block == nil {
		return nil, errors.New("no PEM private key")
	}
	key, err := parseKey(block.Bytes)
	if err != nil {
		return nil, err
	}
	pub, ok := key.Public().(interface{ Equal(crypto.PublicKey) bool })
	if !ok || !pub.Equal(certs[0].PublicKey) {
		return nil, errors.New("the private key does not belong to the certificate")
	}
	return &KeyPair{Cert: certs[0], Key: key, CertPEM: certPEM, KeyPEM: keyPEM}, nil
}

func parseKey(der []byte) (crypto.Signer, error) {
	if k, err := x509.ParsePKCS8PrivateKey(der); err == nil {
		if s, ok := k.(crypto.Signer); ok {
			return s, nil
		}
	}
	if k, err := x509.ParseECPrivateKey(der); err == nil {
		return k, nil
	}
	if k, err := x509.ParsePKCS1PrivateKey(der); err == nil {
		return k, nil
	}
	return nil, errors.New("unreadable private key")
}

// ParseCerts reads every certificate of a PEM bundle; it fails on an empty or broken one.
func ParseCerts(data []byte) ([]*x509.Certificate, error) {
	var out []*x509.Certificate
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			break
		}
		if block.Type != pemCertificate {
			continue
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("parsing a certificate: %w", err)
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, errors.New("no PEM certificate")
	}
	return out, nil
}

// EncodeCerts writes certificates as one PEM bundle.
func EncodeCerts(certs []*x509.Certificate) []byte {
	out := make([]byte, 0, 1024*len(certs))
	for _, c := range certs {
		out = append(out, pem.EncodeToMemory(&pem.Block{Type: pemCertificate, Bytes: c.Raw})...)
	}
	return out
}

// Hosts are the DNS names and IP addresses a certificate is for, sorted.
func Hosts(c *x509.Certificate) []string {
	out := slices.Clone(c.DNSNames)
	for _, ip := range c.IPAddresses {
		out = append(out, ip.String())
	}
	slices.Sort(out)
	return out
}

// RenewAt is when a certificate reaches two thirds of its life: the operator replaces it then, so
// that the last third is the margin for a replica that is down or cannot reach the API server.
func RenewAt(c *x509.Certificate) time.Time {
	life := c.NotAfter.Sub(c.NotBefore)
	return c.NotBefore.Add(life / 3 * 2)
}
