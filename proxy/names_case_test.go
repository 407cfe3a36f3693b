package proxy_test

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/proxy"
)

// TestCassetteNamesDifferingOnlyInCaseAreRefused: on macOS and Windows two
// such cassettes are one file, so recording the second would overwrite the
// first. It is refused with a 400 naming both, whether the first is open in
// this run or already on disk, and nothing is lost.
func TestCassetteNamesDifferingOnlyInCaseAreRefused(t *testing.T) {
	up, _ := countingUpstream()
	defer up.Close()
	dir := t.TempDir()
	call := func(rec *running, cassette string) (int, string) {
		resp := post(t, rec.URL, generatePath, http.Header{proxy.HeaderCassette: {cassette}}, `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, string(b)
	}

	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL)})
	if code, b := call(rec, "suite/TestWeather"); code != http.StatusOK {
		t.Fatalf("first cassette: %d %s", code, b)
	}
	code, b := call(rec, "suite/testweather")
	if code != http.StatusBadRequest || !strings.Contains(b, "differs only in case") || !strings.Contains(b, "TestWeather") {
		t.Fatalf("same run: %d %s", code, b)
	}
	rec.stop(t)

	// A later run: the clash is with the file on disk, a folder's too.
	rec = startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL)})
	for _, name := range []string{"suite/testWEATHER", "Suite/other"} {
		if code, b := call(rec, name); code != http.StatusBadRequest || !strings.Contains(b, "differs only in case") {
			t.Errorf("%s: %d %s", name, code, b)
		}
	}
	if code, b := call(rec, "suite/TestWeather"); code != http.StatusOK {
		t.Errorf("the same name again: %d %s", code, b)
	}
	rec.stop(t)

	files, _ := filepath.Glob(filepath.Join(dir, "*", "*.yaml"))
	if len(files) != 1 || filepath.Base(files[0]) != "TestWeather.yaml" {
		t.Errorf("files %v, want only suite/TestWeather.yaml", files)
	}
	if _, err := os.Stat(filepath.Join(dir, "Suite")); err == nil {
		t.Error("a Suite folder was made beside suite")
	}
}
