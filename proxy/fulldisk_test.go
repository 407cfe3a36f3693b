package proxy_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/matcher"
	"github.com/adkproxy/adkproxy/proxy"
)

// TestFullDiskTellsTheClient is issue 39 item 3: recording onto a disk
// that fills up. An answer whose exchange cannot be journalled is not
// passed on: a plain call gets a Gemini-style 507 naming the disk, a
// stream breaks before its end. Every answer a client got whole is on
// disk, and the report counts exactly those as recorded.
func TestFullDiskTellsTheClient(t *testing.T) {
	dir := testutil.SmallDisk(t, 256<<10)
	up := httptest.NewServer(&fakegemini.Handler{})
	defer up.Close()
	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL)})
	padding := strings.Repeat("padding ", 1000) // about 8 KB a request, 16 KB an exchange
	whole, refused := map[string]bool{}, 0
	for i := range 30 {
		q := fmt.Sprintf("question %d %s", i, padding)
		path := generatePath
		if i%3 == 2 {
			path = "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
		}
		req, _ := http.NewRequest(http.MethodPost, rec.URL+path, strings.NewReader(fmt.Sprintf(`{"contents":[{"role":"user","parts":[{"text":%q}]}]}`, q)))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, readErr := io.ReadAll(resp.Body)
		resp.Body.Close()
		switch {
		case resp.StatusCode == 200 && readErr == nil:
			if !strings.Contains(string(b), "You said") {
				t.Fatalf("call %d: 200 without the answer: %.200s", i, b)
			}
			whole[q] = true
		case resp.StatusCode == 200:
			refused++ // a stream cut before its end: the client sees an error
		case resp.StatusCode == http.StatusInsufficientStorage:
			var e struct{ Error struct{ Message string } }
			if json.Unmarshal(b, &e) != nil || !strings.Contains(e.Error.Message, "disk") || !strings.Contains(e.Error.Message, "no space left") {
				t.Errorf("call %d: the 507 does not name the disk: %s", i, b)
			}
			refused++
		default:
			t.Fatalf("call %d: %d %s", i, resp.StatusCode, b)
		}
	}
	if refused == 0 || len(whole) == 0 {
		t.Fatalf("%d answers whole, %d refused: the disk did not fill up mid-run", len(whole), refused)
	}
	rec.http.Close()
	rec.Close() // the YAML may not fit; the journal holds what was answered
	if err := rec.Failure(); !errors.Is(err, cassettes.ErrWrite) {
		t.Errorf("Failure() = %v: the refused calls were not recorded, which fails the run as a write failure", err)
	}
	if got := rec.Report().Counts[matcher.OutcomeRecorded]; got != len(whole) {
		t.Errorf("the report counts %d recorded, but %d answers reached their clients whole", got, len(whole))
	}
	c, err := cassettes.Load(filepath.Join(dir, "default.yaml"))
	if err != nil {
		t.Fatalf("loading what is on disk: %v", err)
	}
	onDisk := map[string]bool{}
	for _, x := range c.Exchanges {
		var r struct {
			Contents []struct{ Parts []struct{ Text string } }
		}
		json.Unmarshal(x.Request.Body, &r)
		onDisk[r.Contents[0].Parts[0].Text] = true
	}
	for q := range whole {
		if !onDisk[q] {
			t.Errorf("answered whole but not on disk: %.20s", q)
		}
	}
	if len(onDisk) != len(whole) {
		t.Errorf("%d exchanges on disk, %d answered whole: a refused answer was kept", len(onDisk), len(whole))
	}
	t.Logf("%d answered whole, %d refused, %d on disk", len(whole), refused, len(onDisk))
}
