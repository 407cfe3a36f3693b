package proxy_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/proxy"
)

// Config.Sample files every cassette name under its sample, NAME@N, for
// the header's names and the default alike, in record and in replay; an
// out-of-range Sample is refused.
func TestConfigSampleNamesTheSample(t *testing.T) {
	up := httptest.NewServer(&fakegemini.Handler{})
	defer up.Close()
	dir := t.TempDir()
	const path = "/v1beta/models/gemini-2.5-flash:generateContent"
	body := `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`
	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL), Sample: 2})
	post(t, rec.URL, path, http.Header{proxy.HeaderCassette: {"suite/TestX"}}, body).Body.Close()
	post(t, rec.URL, path, nil, body).Body.Close()
	rec.stop(t)
	for _, f := range []string{"suite/TestX@2.yaml", "default@2.yaml"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	rep := startProxy(t, proxy.Config{Dir: dir, Sample: 2})
	resp := post(t, rep.URL, path, http.Header{proxy.HeaderCassette: {"suite/TestX"}}, body)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("replay of sample 2: %d %s", resp.StatusCode, b)
	}
	other := startProxy(t, proxy.Config{Dir: dir, Sample: 3})
	resp = post(t, other.URL, path, http.Header{proxy.HeaderCassette: {"suite/TestX"}}, body)
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode == 200 || !strings.Contains(string(b), `suite/TestX@3`) {
		t.Errorf("replay of a sample not recorded: %d %s", resp.StatusCode, b)
	}
	for _, n := range []int{-1, 10000} {
		if _, err := proxy.New(proxy.Config{Dir: dir, Sample: n}); err == nil || !strings.Contains(err.Error(), "Config.Sample") {
			t.Errorf("Sample %d: %v", n, err)
		}
	}
}
