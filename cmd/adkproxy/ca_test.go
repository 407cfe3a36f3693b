package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestCACommands(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "ca")
	certPath := filepath.Join(dir, "ca.pem")

	if r := adkproxy(t, nil, "ca", "path", "--ca-dir", dir); r.code != exitDataErr || !strings.Contains(r.stderr, "ca init") {
		t.Errorf("ca path with no CA: exit %d, stderr %q; want 65 and how to make one", r.code, r.stderr)
	}
	r := adkproxy(t, nil, "ca", "init", "--ca-dir", dir)
	if r.code != 0 || r.stdout != certPath+"\n" || !strings.Contains(r.stderr, "created") {
		t.Fatalf("ca init: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if runtime.GOOS != "windows" {
		for f, want := range map[string]os.FileMode{"ca-key.pem": 0o600, "ca.pem": 0o644} {
			if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Mode().Perm() != want {
				t.Errorf("%s: %v %v, want mode %04o", f, fi.Mode().Perm(), err, want)
			}
		}
	}
	pem, _ := os.ReadFile(certPath)
	if r := adkproxy(t, []string{"ADKPROXY_CA_DIR=" + dir}, "ca", "show"); r.code != 0 || r.stdout != string(pem) {
		t.Errorf("ca show (ADKPROXY_CA_DIR): exit %d, stdout %q", r.code, r.stdout)
	}
	if r := adkproxy(t, nil, "ca", "path", "--ca-dir", dir); r.code != 0 || r.stdout != certPath+"\n" {
		t.Errorf("ca path: exit %d, stdout %q", r.code, r.stdout)
	}
	if r := adkproxy(t, nil, "ca", "init", "--ca-dir", dir); r.code != 0 || !strings.Contains(r.stderr, "already exists") {
		t.Errorf("second ca init: exit %d, stderr %q", r.code, r.stderr)
	}
	if again, _ := os.ReadFile(certPath); string(again) != string(pem) {
		t.Error("a second ca init replaced the CA")
	}
	for _, args := range [][]string{{"ca", "bogus"}, {"ca"}, {"ca", "path", "extra"}} {
		if r := adkproxy(t, nil, args...); r.code != exitUsage || !strings.Contains(r.stderr, "init") && !strings.Contains(r.stderr, "no arguments") {
			t.Errorf("%v: exit %d, stderr %q; want 64", args, r.code, r.stderr)
		}
	}
}

// A broken CA is never replaced: every command that needs it exits 65
// naming the file, and the file is left as it was.
func TestBrokenCAExits65(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		spoil func(dir string)
		file  string
	}{
		{"missing key", func(dir string) { os.Remove(filepath.Join(dir, "ca-key.pem")) }, "ca-key.pem"},
		{"malformed key", func(dir string) { os.WriteFile(filepath.Join(dir, "ca-key.pem"), []byte("not a key"), 0o600) }, "ca-key.pem"},
		{"malformed cert", func(dir string) { os.WriteFile(filepath.Join(dir, "ca.pem"), []byte("not a cert"), 0o644) }, "ca.pem"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "ca")
			if r := adkproxy(t, nil, "ca", "init", "--ca-dir", dir); r.code != 0 {
				t.Fatal(r.stderr)
			}
			c.spoil(dir)
			before, _ := os.ReadDir(dir)
			for _, args := range [][]string{
				{"ca", "show", "--ca-dir", dir},
				{"ca", "init", "--ca-dir", dir},
				{"replay", "--cassettes", t.TempDir(), "--ca-dir", dir, "--", "true"},
				{"record", "--cassettes", t.TempDir(), "--ca-dir", dir, "--", "true"},
			} {
				r := adkproxy(t, nil, args...)
				if r.code != exitDataErr || !strings.Contains(r.stderr, filepath.Join(dir, c.file)) {
					t.Errorf("%v: exit %d, stderr %q; want 65 naming %s", args[:2], r.code, r.stderr, c.file)
				}
			}
			if after, _ := os.ReadDir(dir); len(after) != len(before) {
				t.Errorf("the CA folder changed: %d entries, was %d", len(after), len(before))
			}
		})
	}
	// --no-forward-proxy needs no CA, so a broken one does not stop it.
	dir := filepath.Join(t.TempDir(), "ca")
	os.MkdirAll(dir, 0o700)
	os.WriteFile(filepath.Join(dir, "ca.pem"), []byte("junk"), 0o644)
	if r := adkproxy(t, nil, "replay", "--no-forward-proxy", "--cassettes", t.TempDir(), "--ca-dir", dir, "--", "true"); r.code != 0 {
		t.Errorf("--no-forward-proxy with a broken CA: exit %d, %s", r.code, r.stderr)
	}
}
