package proxy_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/journalfile"
	"github.com/adkproxy/adkproxy/internal/base/setaside"
	"github.com/adkproxy/adkproxy/proxy"
)

// TestFailedRunKeepsTheCassette: re-recording a good cassette in a run
// whose command failed leaves the cassette byte for byte as it was, puts
// the run's exchanges in the set-aside file, and replay serves the old
// recording, ignoring that file.
func TestFailedRunKeepsTheCassette(t *testing.T) {
	up, _ := countingUpstream()
	defer up.Close()
	dir := t.TempDir()
	ask := func(base, q string) (int, string) {
		resp := post(t, base, generatePath, http.Header{proxy.HeaderCassette: {"suite/c"}}, `{"contents":[{"role":"user","parts":[{"text":"`+q+`"}]}]}`)
		return resp.StatusCode, body(t, resp)
	}
	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL)})
	ask(rec.URL, "one")
	ask(rec.URL, "two")
	rec.stop(t)
	path := filepath.Join(dir, "suite", "c.yaml")
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}

	// The re-record: one exchange, then the command fails.
	rec = startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL)})
	ask(rec.URL, "three")
	rec.http.Close()
	aside, err := rec.CloseFailed()
	if err != nil {
		t.Fatal(err)
	}
	failed := setaside.Path(path)
	if len(aside) != 1 || aside[0].Cassette != "suite/c" || aside[0].Kept != path || aside[0].File != failed || aside[0].Exchanges != 1 {
		t.Fatalf("set aside: %+v", aside)
	}
	if now, _ := os.ReadFile(path); string(now) != string(good) {
		t.Fatalf("the cassette changed:\n%s", now)
	}
	kept, err := os.ReadFile(failed)
	if err != nil || !strings.Contains(string(kept), "three") {
		t.Fatalf("the run's exchange is not in %s: %v\n%s", failed, err, kept)
	}
	if _, err := os.Stat(journalfile.Path(path)); err == nil {
		t.Fatal("the journal of the failed run is left; loading would fold it over the cassette")
	}

	// Replay serves the good recording and lists no "suite/c.failed".
	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir})
	if got := rep.Cassettes(); len(got) != 1 || got[0] != "suite/c" {
		t.Fatalf("replay lists %v", got)
	}
	if code, b := ask(rep.URL, "one"); code != http.StatusOK {
		t.Fatalf("the kept recording is not served: %d %s", code, b)
	}
	if code, _ := ask(rep.URL, "three"); code == http.StatusOK {
		t.Fatal("replay served the set-aside exchange")
	}
	rep.stop(t)
}

// TestFailedRunWritesNewCassettes: a failed run replaces nothing when its
// cassette did not exist, so it is written as usual (nothing recorded is
// lost), and Close after a failure-free run writes over the cassette.
func TestFailedRunWritesNewCassettes(t *testing.T) {
	up, _ := countingUpstream()
	defer up.Close()
	dir := t.TempDir()
	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL)})
	post(t, rec.URL, generatePath, nil, `{"contents":[{"role":"user","parts":[{"text":"one"}]}]}`).Body.Close()
	rec.http.Close()
	aside, err := rec.CloseFailed()
	if err != nil || len(aside) != 0 {
		t.Fatalf("set aside %+v, %v", aside, err)
	}
	path := filepath.Join(dir, cassettes.DefaultName+cassettes.Extension)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the new cassette was not written: %v", err)
	}
	if _, err := os.Stat(setaside.Path(path)); err == nil {
		t.Fatal("a set-aside file for a cassette that did not exist")
	}
}

func TestNoCassetteNameMapsOntoASetAsideFile(t *testing.T) {
	for _, name := range []string{"x.failed", "a/b.failed", "x.FAILED"} {
		rel, err := cassettes.FileName(name)
		if err != nil {
			t.Fatal(err)
		}
		if setaside.Is(strings.ToLower(rel)) { // one file where case folds
			t.Errorf("cassette %q is stored in %s, a set-aside file", name, rel)
		}
	}
}
