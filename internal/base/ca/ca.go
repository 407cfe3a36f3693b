// Creating, loading and checking the CA's two files.

package ca

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"os"
	"os/user"
	"path/filepath"
	"runtime"
	"time"
)

// File names inside the CA folder.
const (
	CertFile = "ca.pem"
	KeyFile  = "ca-key.pem"
)

// Validity of the CA certificate itself. Leaves are much shorter (LeafValidity).
const caValidity = 10 * 365 * 24 * time.Hour

var (
	// ErrNotFound: the folder holds no CA at all (neither file).
	ErrNotFound = errors.New("no CA")
	// ErrBroken: a CA file is missing, unreadable, malformed, unsafe or
	// does not match the other. It is never replaced automatically.
	ErrBroken = errors.New("the CA is unusable")
	// ErrExists: Create found a CA (or part of one) already there.
	ErrExists = errors.New("a CA already exists")
)

// Authority is a loaded CA: it signs leaf certificates for intercepted hosts.
type Authority struct {
	// Dir, CertPath, KeyPath: where it was loaded from.
	Dir, CertPath, KeyPath string
	// Cert is the CA certificate; PEM its encoded form, as on disk.
	Cert *x509.Certificate
	PEM  []byte

	key    *ecdsa.PrivateKey
	leaves *leafCache
}

func paths(dir string) (cert, key string) {
	return filepath.Join(dir, CertFile), filepath.Join(dir, KeyFile)
}

// Exists reports whether dir holds any CA file (whole or broken).
func Exists(dir string) bool {
	c, k := paths(dir)
	_, errC := os.Lstat(c)
	_, errK := os.Lstat(k)
	return errC == nil || errK == nil
}

// Load reads the CA in dir. A folder with neither file gives ErrNotFound;
// anything else wrong gives ErrBroken naming the file and what to do.
func Load(dir string) (*Authority, error) {
	certPath, keyPath := paths(dir)
	if !Exists(dir) {
		return nil, fmt.Errorf("%w in %s: create one with 'adkproxy ca init --ca-dir %s'", ErrNotFound, dir, dir)
	}
	broken := func(file, format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s; fix or remove the CA files in %s and run 'adkproxy ca init' (clients must then trust the new ca.pem)",
			ErrBroken, file, fmt.Sprintf(format, args...), dir)
	}
	if err := checkDir(dir); err != nil {
		return nil, err
	}
	if fi, err := os.Lstat(certPath); err == nil && !fi.Mode().IsRegular() {
		// Another file's certificate would be handed to clients to trust.
		return nil, broken(certPath, "the CA certificate is not a regular file (%s)", fi.Mode().Type())
	}
	certPEM, err := os.ReadFile(certPath)
	if err != nil {
		return nil, broken(certPath, "cannot read the CA certificate: %v", reason(err))
	}
	if err := checkKeyMode(keyPath); err != nil {
		return nil, broken(keyPath, "%v", err)
	}
	keyPEM, err := os.ReadFile(keyPath)
	if err != nil {
		return nil, broken(keyPath, "cannot read the CA key: %v", reason(err))
	}
	block, _ := pem.Decode(certPEM)
	if block == nil || block.Type != "CERTIFICATE" {
		return nil, broken(certPath, "not a PEM CERTIFICATE")
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return nil, broken(certPath, "malformed certificate: %v", err)
	}
	if !cert.IsCA {
		return nil, broken(certPath, "the certificate is not a CA certificate")
	}
	kb, _ := pem.Decode(keyPEM)
	if kb == nil || kb.Type != "EC PRIVATE KEY" {
		return nil, broken(keyPath, "not a PEM EC PRIVATE KEY")
	}
	key, err := x509.ParseECPrivateKey(kb.Bytes)
	if err != nil {
		return nil, broken(keyPath, "malformed key: %v", err)
	}
	if pub, ok := cert.PublicKey.(*ecdsa.PublicKey); !ok || !pub.Equal(&key.PublicKey) {
		return nil, broken(keyPath, "the key does not belong to the certificate %s", certPath)
	}
	if time.Now().After(cert.NotAfter) {
		return nil, broken(certPath, "the CA certificate expired on %s", cert.NotAfter.Format(time.DateOnly))
	}
	return &Authority{Dir: dir, CertPath: certPath, KeyPath: keyPath, Cert: cert, PEM: certPEM, key: key, leaves: newLeafCache()}, nil
}

// reason drops the path os errors repeat, since the message names the file.
func reason(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		if errors.Is(err, fs.ErrNotExist) {
			return errors.New("the file is missing")
		}
		return pe.Err
	}
	return err
}

// checkDir refuses a CA folder anyone may write to, as ssh refuses such a
// ~/.ssh: another user could put their own key and certificate there.
func checkDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm()&0o002 != 0 {
		return fmt.Errorf("%w: the CA folder %s is writable by every user (mode %04o), so anyone could replace the CA; run chmod 700 %s or choose another --ca-dir",
			ErrBroken, dir, fi.Mode().Perm(), dir)
	}
	return nil
}

// checkKeyMode refuses a key others can read: the CA signs certificates any
// client trusting it accepts for any host.
func checkKeyMode(keyPath string) error {
	fi, err := os.Lstat(keyPath)
	if err != nil {
		return fmt.Errorf("cannot read the CA key: %v", reason(err))
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("the CA key is not a regular file (%s)", fi.Mode().Type())
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("the CA key is readable by others (mode %04o); run chmod 600 %s", fi.Mode().Perm(), keyPath)
	}
	return nil
}

// Create makes a new CA in dir (created 0700 if needed). It never replaces
// anything: if either file exists it returns ErrExists.
func Create(dir string) (*Authority, error) {
	if Exists(dir) {
		return nil, fmt.Errorf("%w in %s", ErrExists, dir)
	}
	if err := checkDir(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("cannot create the CA folder %s: %v", dir, reason(err))
	}
	key, serial, err := newKey()
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{Organization: []string{"adkproxy"}, CommonName: "adkproxy local CA (" + owner() + ")"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(caValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true, // it signs leaves only, never another CA
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	certPath, keyPath := paths(dir)
	if err := writeNew(keyPath, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		return nil, err
	}
	if err := writeNew(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		os.Remove(keyPath) // ours, written a moment ago: leave no half CA behind
		return nil, err
	}
	return Load(dir)
}

// Ensure loads the CA in dir, creating it when the folder holds none.
// created says whether it did. A broken CA is returned as an error, never
// replaced. Several adkproxy processes starting at once (parallel CI jobs
// sharing a home) end up with the one CA the first of them wrote.
func Ensure(dir string) (a *Authority, created bool, err error) {
	reread := false
	for range 40 { // about a second of waiting, at most
		a, err = Load(dir)
		switch {
		case errors.Is(err, ErrNotFound):
			a, err = Create(dir)
			if errors.Is(err, ErrExists) {
				continue // another process got there first: load its CA
			}
			return a, err == nil, err
		case errors.Is(err, ErrBroken) && halfWritten(dir):
			// Another process is between writing the key and the
			// certificate; a CA left like that by a crash stays an error.
			time.Sleep(25 * time.Millisecond)
		case errors.Is(err, ErrBroken) && !reread && bothWritten(dir):
			// The certificate appeared between Load's reading and the
			// check above: another process finished. Read it once more;
			// a CA that stays broken with both files is an error.
			reread = true
		default:
			return a, false, err
		}
	}
	return nil, false, err
}

// halfWritten: the key is there and the certificate not, as Create leaves
// the folder for a moment.
func halfWritten(dir string) bool {
	c, k := paths(dir)
	_, errC := os.Lstat(c)
	_, errK := os.Lstat(k)
	return errK == nil && errors.Is(errC, fs.ErrNotExist)
}

// bothWritten: the key and the certificate are both there.
func bothWritten(dir string) bool {
	c, k := paths(dir)
	_, errC := os.Lstat(c)
	_, errK := os.Lstat(k)
	return errC == nil && errK == nil
}

// newKey makes a P-256 key and a random serial for its certificate.
func newKey() (*ecdsa.PrivateKey, *big.Int, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	return key, serial, err
}

func owner() string {
	name := "unknown user"
	if u, err := user.Current(); err == nil {
		name = u.Username
	}
	if h, err := os.Hostname(); err == nil {
		name += "@" + h
	}
	return name
}
