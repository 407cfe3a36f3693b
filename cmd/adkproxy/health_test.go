package main

import (
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// TestHealthFromAnotherMachineNeedsTheToken: a proxy on a non-loopback
// address with --control-token answers `adkproxy health` only when the
// token comes along, by flag or by ADKPROXY_CONTROL_TOKEN.
func TestHealthFromAnotherMachineNeedsTheToken(t *testing.T) {
	t.Parallel()
	ip := testutil.NonLoopbackIP(t)
	const token = "health-check-token"
	addrFile := filepath.Join(t.TempDir(), "addr")
	proxy := adkproxyCmd(t, []string{"ADKPROXY_CONTROL_TOKEN=" + token}, "replay", "--cassettes", t.TempDir(),
		"--listen", net.JoinHostPort(ip.String(), "0"), "--addr-file", addrFile)
	if err := proxy.Start(); err != nil {
		t.Fatal(err)
	}
	defer proxy.Process.Kill()
	url := "http://" + waitForFile(t, addrFile)

	if r := adkproxy(t, nil, "health", "--url", url); r.code != 1 || !strings.Contains(r.stderr, "401") || !strings.Contains(r.stderr, "Authorization: Bearer") {
		t.Errorf("health without the token: %d %s, want 1 naming the bearer token", r.code, r.stderr)
	}
	if r := adkproxy(t, nil, "health", "--url", url, "--control-token", token); r.code != 0 || !strings.Contains(r.stdout, "ok: adkproxy replay") {
		t.Errorf("health with --control-token: %d %s%s", r.code, r.stdout, r.stderr)
	}
	if r := adkproxy(t, []string{"ADKPROXY_URL=" + url, "ADKPROXY_CONTROL_TOKEN=" + token}, "health"); r.code != 0 {
		t.Errorf("health with ADKPROXY_URL and ADKPROXY_CONTROL_TOKEN: %d %s", r.code, r.stderr)
	}
	if r := adkproxy(t, nil, "health", "--url", strings.TrimPrefix(url, "http://"), "--control-token", token); r.code != 0 {
		t.Errorf("health --url HOST:PORT: %d %s", r.code, r.stderr)
	}
	if r := adkproxy(t, nil, "health", "extra"); r.code != exitUsage {
		t.Errorf("health with an argument: %d, want 64", r.code)
	}
}

func TestLocalAddress(t *testing.T) {
	t.Parallel()
	for listen, want := range map[string]string{
		"":                DefaultListen,
		"0.0.0.0:9787":    "127.0.0.1:9787",
		"[::]:8080":       "127.0.0.1:8080",
		":9000":           "127.0.0.1:9000",
		"127.0.0.1:9787":  "127.0.0.1:9787",
		"10.0.0.7:9787":   "10.0.0.7:9787",
		"proxy.local:443": "proxy.local:443",
	} {
		if got := localAddress(listen); got != want {
			t.Errorf("localAddress(%q) = %q, want %q", listen, got, want)
		}
	}
}
