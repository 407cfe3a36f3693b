package proxy_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/base/journalfile"
	"github.com/adkproxy/adkproxy/proxy"
)

// TestJournalOfAFailedSaveDoesNotReplaceTheCassette is issue 11's torn
// journal: an overwrite recording of a good cassette whose save fails at
// exit leaves its replace-mode journal, torn after its first record. The
// next load must still serve the original cassette's requests, and say
// what it left out.
func TestJournalOfAFailedSaveDoesNotReplaceTheCassette(t *testing.T) {
	up, _ := countingUpstream()
	defer up.Close()
	dir := t.TempDir()
	ask := func(base, q string) (int, string) {
		resp := post(t, base, generatePath, http.Header{proxy.HeaderCassette: {"suite/c"}}, `{"contents":[{"role":"user","parts":[{"text":"`+q+`"}]}]}`)
		return resp.StatusCode, body(t, resp)
	}

	// A good cassette of two exchanges.
	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL)})
	ask(rec.URL, "one")
	ask(rec.URL, "two")
	rec.stop(t)

	// Re-recording it: one exchange is journalled, then the save fails
	// (the folder was moved away and a file put in its place).
	rec = startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL)})
	if code, b := ask(rec.URL, "three"); code != http.StatusOK {
		t.Fatalf("%d %s", code, b)
	}
	suite := filepath.Join(dir, "suite")
	os.Rename(suite, suite+".moved")
	os.WriteFile(suite, []byte("in the way"), 0o644)
	rec.http.Close()
	if err := rec.Close(); err == nil {
		t.Fatal("the save did not fail")
	}
	os.Remove(suite)
	os.Rename(suite+".moved", suite)
	path := filepath.Join(suite, "c.yaml")
	journal := journalfile.Path(path)
	f, err := os.OpenFile(journal, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatalf("the journal of the failed save is gone: %v", err)
	}
	f.WriteString("412 0badc0de\n{\"Request\":") // torn after its first record
	f.Close()

	var logs bytes.Buffer
	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	for _, q := range []string{"one", "two"} {
		if code, b := ask(rep.URL, q); code != http.StatusOK {
			t.Errorf("the original cassette's %q: %d %s", q, code, b)
		}
	}
	if !strings.Contains(logs.String(), journal) || !strings.Contains(logs.String(), "not folded in") {
		t.Errorf("no warning naming the journal left out:\n%s", logs.String())
	}
	if _, err := os.Stat(journal); err != nil {
		t.Errorf("the journal's recording was deleted: %v", err)
	}
}
