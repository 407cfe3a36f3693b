// The short-lived certificates the forward proxy presents for
// intercepted hosts, minted on first use and kept in a bounded cache.

package ca

import (
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"
)

const (
	// LeafValidity is how long a minted leaf is valid: long enough for any
	// test run, short enough that a leaked one is soon worthless. A cached
	// leaf is re-minted once less than leafRenewBefore remains.
	LeafValidity    = 24 * time.Hour
	leafRenewBefore = time.Hour
	// leafBackdate tolerates clients whose clock is a little behind.
	leafBackdate = time.Hour
	// maxCachedLeaves bounds the cache; an agent calls a handful of hosts,
	// so this is only a guard against a client that calls thousands.
	maxCachedLeaves = 1024
)

type leafCache struct {
	mu sync.Mutex
	m  map[string]*tls.Certificate
}

func newLeafCache() *leafCache { return &leafCache{m: map[string]*tls.Certificate{}} }

// Leaf returns a certificate for host (a name or an IP, without port)
// signed by the CA, from the cache when one is still fresh.
func (a *Authority) Leaf(host string) (*tls.Certificate, error) {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if host == "" {
		return nil, fmt.Errorf("no host name to mint a certificate for")
	}
	now := time.Now()
	c := a.leaves
	c.mu.Lock()
	cert := c.m[host]
	c.mu.Unlock()
	if cert != nil && now.Add(leafRenewBefore).Before(cert.Leaf.NotAfter) {
		return cert, nil
	}
	cert, err := a.mint(host, now)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if len(c.m) >= maxCachedLeaves {
		for k := range c.m { // evict any one: hosts are few, order does not matter
			delete(c.m, k)
			break
		}
	}
	c.m[host] = cert
	c.mu.Unlock()
	return cert, nil
}

func (a *Authority) mint(host string, now time.Time) (*tls.Certificate, error) {
	key, serial, err := newKey()
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{Organization: []string{"adkproxy"}, CommonName: host},
		NotBefore:    now.Add(-leafBackdate),
		NotAfter:     now.Add(LeafValidity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	if ip := net.ParseIP(host); ip != nil {
		tmpl.IPAddresses = []net.IP{ip}
	} else {
		tmpl.DNSNames = []string{host}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, a.Cert, &key.PublicKey, a.key)
	if err != nil {
		return nil, fmt.Errorf("cannot sign a certificate for %s with the CA in %s: %v", host, a.Dir, err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &tls.Certificate{Certificate: [][]byte{der, a.Cert.Raw}, PrivateKey: key, Leaf: leaf}, nil
}
