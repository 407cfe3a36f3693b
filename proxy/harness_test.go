package proxy_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/proxy"
)

// running is a proxy served on a real loopback port.
type running struct {
	*proxy.Server
	URL  string
	http *httptest.Server
}

// startProxy serves a proxy; stop() shuts the listener and writes cassettes.
func startProxy(t *testing.T, cfg proxy.Config) *running {
	t.Helper()
	srv, err := proxy.New(cfg)
	if err != nil {
		t.Fatalf("proxy.New: %v", err)
	}
	hs := httptest.NewServer(srv)
	r := &running{Server: srv, URL: hs.URL, http: hs}
	t.Cleanup(func() { hs.Close() })
	return r
}

func (r *running) stop(t *testing.T) {
	t.Helper()
	r.http.Close()
	if err := r.Close(); err != nil {
		t.Fatalf("writing cassettes: %v", err)
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func post(t *testing.T, base, path string, header http.Header, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	return resp
}
