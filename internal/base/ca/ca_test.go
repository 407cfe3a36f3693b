package ca_test

import (
	"crypto/x509"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/internal/base/ca"
)

func TestCreateWritesPrivateFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "adkproxy")
	a, err := ca.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" {
		for path, want := range map[string]os.FileMode{dir: 0o700, a.KeyPath: 0o600, a.CertPath: 0o644} {
			fi, err := os.Stat(path)
			if err != nil || fi.Mode().Perm() != want {
				t.Errorf("%s: mode %v (%v), want %04o", path, fi.Mode().Perm(), err, want)
			}
		}
	}
	if a.Cert.PublicKeyAlgorithm != x509.ECDSA || !a.Cert.IsCA || a.Cert.MaxPathLen != 0 || !a.Cert.MaxPathLenZero {
		t.Errorf("CA certificate: algorithm %v, CA %v, max path %d", a.Cert.PublicKeyAlgorithm, a.Cert.IsCA, a.Cert.MaxPathLen)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("the CA folder holds %d files, want 2 (no temporary files left)", len(entries))
	}
	if _, err := ca.Create(dir); !errors.Is(err, ca.ErrExists) {
		t.Errorf("a second Create: %v, want ErrExists", err)
	}
}

func TestLoadRefusesBrokenCA(t *testing.T) {
	other, err := ca.Create(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	otherKey, _ := os.ReadFile(other.KeyPath)
	for _, c := range []struct {
		name  string
		spoil func(a *ca.Authority)
		file  string // which file the error must name
		want  string
	}{
		{"missing key", func(a *ca.Authority) { os.Remove(a.KeyPath) }, ca.KeyFile, "missing"},
		{"missing cert", func(a *ca.Authority) { os.Remove(a.CertPath) }, ca.CertFile, "missing"},
		{"malformed key", func(a *ca.Authority) {
			os.WriteFile(a.KeyPath, []byte("-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----\n"), 0o600)
		}, ca.KeyFile, "malformed key"},
		{"not PEM cert", func(a *ca.Authority) { os.WriteFile(a.CertPath, []byte("hello"), 0o644) }, ca.CertFile, "not a PEM CERTIFICATE"},
		{"other CA's key", func(a *ca.Authority) { os.WriteFile(a.KeyPath, otherKey, 0o600) }, ca.KeyFile, "does not belong"},
		{"key readable by others", func(a *ca.Authority) { os.Chmod(a.KeyPath, 0o644) }, ca.KeyFile, "chmod 600"},
		{"key is a symlink", func(a *ca.Authority) { os.Remove(a.KeyPath); os.Symlink(other.KeyPath, a.KeyPath) }, ca.KeyFile, "not a regular file"},
		{"certificate is a symlink", func(a *ca.Authority) { os.Remove(a.CertPath); os.Symlink(other.CertPath, a.CertPath) }, ca.CertFile, "not a regular file"},
		{"folder writable by every user", func(a *ca.Authority) { os.Chmod(a.Dir, 0o777) }, "", "chmod 700"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if runtime.GOOS == "windows" && (c.name == "key readable by others" || strings.Contains(c.name, "symlink") || strings.Contains(c.name, "writable")) {
				t.Skip("Unix file modes")
			}
			dir := t.TempDir()
			a, err := ca.Create(dir)
			if err != nil {
				t.Fatal(err)
			}
			c.spoil(a)
			before, _ := os.ReadFile(a.KeyPath)
			_, err = ca.Load(dir)
			if !errors.Is(err, ca.ErrBroken) || !strings.Contains(err.Error(), filepath.Join(dir, c.file)) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Load: %v; want ErrBroken naming %s and %q", err, c.file, c.want)
			}
			if _, created, err := ca.Ensure(dir); created || !errors.Is(err, ca.ErrBroken) {
				t.Errorf("Ensure on a broken CA: created %v, err %v; it must never be replaced", created, err)
			}
			if after, _ := os.ReadFile(a.KeyPath); string(after) != string(before) {
				t.Error("Ensure changed the broken key")
			}
		})
	}
}

func TestEnsureCreatesOnceThenLoads(t *testing.T) {
	dir := t.TempDir()
	a, created, err := ca.Ensure(dir)
	if err != nil || !created {
		t.Fatalf("first Ensure: created %v, %v", created, err)
	}
	b, created, err := ca.Ensure(dir)
	if err != nil || created || !b.Cert.Equal(a.Cert) {
		t.Errorf("second Ensure: created %v, %v, same CA %v", created, err, err == nil && b.Cert.Equal(a.Cert))
	}
	if _, err := ca.Load(t.TempDir()); !errors.Is(err, ca.ErrNotFound) || !strings.Contains(err.Error(), "ca init") {
		t.Errorf("Load of an empty folder: %v", err)
	}
}

// A dangling symlink where a CA file goes must not be written through.
func TestCreateNeverWritesThroughSymlink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks")
	}
	dir, elsewhere := t.TempDir(), filepath.Join(t.TempDir(), "stolen-key.pem")
	if err := os.Symlink(elsewhere, filepath.Join(dir, ca.KeyFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := ca.Create(dir); !errors.Is(err, ca.ErrExists) {
		t.Errorf("Create over a symlink: %v, want ErrExists", err)
	}
	if _, err := os.Lstat(elsewhere); !os.IsNotExist(err) {
		t.Errorf("the key was written through the symlink to %s", elsewhere)
	}
}

func TestLeafVerifiesAndIsCached(t *testing.T) {
	a, err := ca.Create(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(a.Cert)
	for _, host := range []string{"weather.example.com", "127.0.0.1", "::1"} {
		cert, err := a.Leaf(host)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cert.Leaf.Verify(x509.VerifyOptions{DNSName: host, Roots: roots}); err != nil {
			t.Errorf("%s: the leaf does not verify against the CA: %v", host, err)
		}
		if life := time.Until(cert.Leaf.NotAfter); life > ca.LeafValidity || life < ca.LeafValidity-time.Minute {
			t.Errorf("%s: leaf valid for %v more, want %v", host, life, ca.LeafValidity)
		}
		again, _ := a.Leaf(strings.ToUpper(host))
		if again != cert {
			t.Errorf("%s: a second leaf was minted instead of the cached one", host)
		}
	}
	if _, err := a.Leaf(""); err == nil {
		t.Error("a leaf for no host")
	}
}

func TestBundleIsRemoved(t *testing.T) {
	a, err := ca.Create(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b, err := a.WriteBundle()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(b.Path)
	if err != nil || !strings.HasSuffix(string(data), string(a.PEM)) {
		t.Fatalf("bundle: %v; it must end with the CA", err)
	}
	if fi, _ := os.Stat(filepath.Dir(b.Path)); runtime.GOOS != "windows" && fi.Mode().Perm() != 0o700 {
		t.Errorf("the bundle's folder has mode %04o, want 0700", fi.Mode().Perm())
	}
	if err := b.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Dir(b.Path)); !os.IsNotExist(err) {
		t.Errorf("the bundle's folder is still there: %v", err)
	}
}

func TestDefaultDir(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Unix layout")
	}
	t.Setenv(ca.DirEnv, "")
	t.Setenv("XDG_DATA_HOME", "/xdg")
	if d, _ := ca.DefaultDir(); d != "/xdg/adkproxy" {
		t.Errorf("with XDG_DATA_HOME: %s", d)
	}
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("HOME", "/home/u")
	if d, _ := ca.DefaultDir(); d != "/home/u/.local/share/adkproxy" {
		t.Errorf("without XDG_DATA_HOME: %s", d)
	}
	t.Setenv(ca.DirEnv, "/mine")
	if d, _ := ca.DefaultDir(); d != "/mine" {
		t.Errorf("with %s: %s", ca.DirEnv, d)
	}
}

// Parallel first runs (CI jobs sharing a home) end up with one CA.
func TestEnsureConcurrently(t *testing.T) {
	dir := t.TempDir()
	const n = 8
	got := make(chan *ca.Authority, n)
	for range n {
		go func() {
			a, _, err := ca.Ensure(dir)
			if err != nil {
				t.Error(err)
			}
			got <- a
		}()
	}
	first := <-got
	for range n - 1 {
		if a := <-got; a == nil || first == nil || !a.Cert.Equal(first.Cert) {
			t.Error("concurrent Ensure calls returned different CAs")
		}
	}
}

// A CA is never made in a folder every user may write to.
func TestCreateRefusesAWorldWritableFolder(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Unix file modes")
	}
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if _, created, err := ca.Ensure(dir); created || !errors.Is(err, ca.ErrBroken) || !strings.Contains(err.Error(), "writable by every user") {
		t.Errorf("Ensure in a 0777 folder: created %v, %v; want it refused", created, err)
	}
	if ca.Exists(dir) {
		t.Error("a CA file was written into the world-writable folder")
	}
}
