// The trust bundle a wrapped command is pointed at, holding the
// system's roots and the CA, so clients that replace (rather than extend)
// their roots with SSL_CERT_FILE and the like still reach real hosts.

package ca

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
)

// systemBundles are the PEM files Go's crypto/x509 reads on Unix systems,
// in its order; the first that exists holds the system roots.
var systemBundles = []string{
	"/etc/ssl/certs/ca-certificates.crt",                // Debian, Ubuntu, Gentoo, Arch
	"/etc/pki/tls/certs/ca-bundle.crt",                  // Fedora, RHEL 6
	"/etc/ssl/ca-bundle.pem",                            // openSUSE
	"/etc/pki/tls/cacert.pem",                           // OpenELEC
	"/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem", // CentOS, RHEL 7
	"/etc/ssl/cert.pem",                                 // Alpine, macOS, BSDs
}

// SystemRoots returns the system's root certificates as PEM: the file in
// $SSL_CERT_FILE when set, else the first of the usual bundle files. It
// returns nil where no such file exists (Windows; macOS without
// /etc/ssl/cert.pem), and then the bundle holds the CA alone.
func SystemRoots() (pemData []byte, from string) {
	candidates := systemBundles
	if f := os.Getenv("SSL_CERT_FILE"); f != "" {
		candidates = append([]string{f}, candidates...)
	}
	for _, f := range candidates {
		if data, err := os.ReadFile(f); err == nil && bytes.Contains(data, []byte("-----BEGIN CERTIFICATE-----")) {
			return data, f
		}
	}
	return nil, ""
}

// Bundle is a trust bundle written for one run.
type Bundle struct {
	// Path is the PEM file: the system roots, then the CA.
	Path string
	dir  string
}

// WriteBundle writes the system roots plus the CA into a fresh private
// temporary folder (0700). Remove it when the run ends.
func (a *Authority) WriteBundle() (*Bundle, error) {
	dir, err := os.MkdirTemp("", "adkproxy-trust-")
	if err != nil {
		return nil, fmt.Errorf("cannot create a folder for the trust bundle: %v", err)
	}
	roots, _ := SystemRoots()
	var buf bytes.Buffer
	buf.Write(roots)
	if len(roots) > 0 && roots[len(roots)-1] != '\n' {
		buf.WriteByte('\n')
	}
	buf.WriteString("# adkproxy local CA (" + a.CertPath + ")\n")
	buf.Write(a.PEM)
	b := &Bundle{Path: filepath.Join(dir, "ca-bundle.pem"), dir: dir}
	if err := writeNew(b.Path, buf.Bytes(), 0o644); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return b, nil
}

// Remove deletes the bundle and its folder.
func (b *Bundle) Remove() error { return os.RemoveAll(b.dir) }
