package proxy_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/proxy"
)

const (
	watchRequest  = `{"contents":[{"role":"user","parts":[{"text":"watch me"}]}]}`
	recordedFirst = "{\n  \"call\": 1\n}\n"
)

// reload is one report of Config.OnReload.
type reload struct {
	name string
	err  error
}

// recordOne records watchRequest once into default.yaml and returns the dir.
func recordOne(t *testing.T) string {
	t.Helper()
	up, _ := countingUpstream()
	defer up.Close()
	return record(t, up.URL, watchRequest)
}

// startWatching serves dir in replay mode with Watch running; each reload
// attempt is reported on the channel.
func startWatching(t *testing.T, dir string) (*running, <-chan reload) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	reloads := make(chan reload, 64)
	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir, OnReload: func(name string, err error) {
		select {
		case reloads <- reload{name, err}:
		case <-ctx.Done():
		}
	}})
	done := proxy.StartWatch(ctx, rep.Server)
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Watch: %v", err)
		}
	})
	return rep, reloads
}

// waitReload returns the next reload attempt for the named cassette. The
// timeout only guards against a hang; nothing here depends on timing.
func waitReload(t *testing.T, reloads <-chan reload, name string) reload {
	t.Helper()
	guard := time.After(20 * time.Second)
	for {
		select {
		case r := <-reloads:
			if r.name == name {
				return r
			}
			t.Logf("reload of another cassette: %q %v", r.name, r.err)
		case <-guard:
			t.Fatalf("no reload of cassette %q was reported", name)
		}
	}
}

// saveWithBody rewrites a copy of src's cassette at dst with a new response
// body and name, as an editor (or a re-recording) would.
func saveWithBody(t *testing.T, src, dst, name, respBody string) {
	t.Helper()
	c, err := cassettes.Load(src)
	if err != nil {
		t.Fatal(err)
	}
	c.Name = name
	c.Exchanges[0].Response.Body = []byte(respBody)
	if err := cassettes.Save(dst, c, nil); err != nil {
		t.Fatal(err)
	}
}

func askFor(t *testing.T, rep *running, cassette string) (int, string) {
	t.Helper()
	resp := post(t, rep.URL, generatePath, map[string][]string{proxy.HeaderCassette: {cassette}}, watchRequest)
	got := body(t, resp)
	return resp.StatusCode, got
}

func TestWatchServesAnEditedCassette(t *testing.T) {
	dir := recordOne(t)
	file := filepath.Join(dir, "default.yaml")
	rep, reloads := startWatching(t, dir)

	if code, got := askFor(t, rep, "default"); code != 200 || got != recordedFirst {
		t.Fatalf("before the edit: %d %q", code, got)
	}
	saveWithBody(t, file, file, "default", "{\"edited\": 1}\n")
	if r := waitReload(t, reloads, "default"); r.err != nil {
		t.Fatalf("reload failed: %v", r.err)
	}
	// The edited cassette starts over: its one recording is unused again.
	if code, got := askFor(t, rep, "default"); code != 200 || got != "{\"edited\": 1}\n" {
		t.Fatalf("after the edit: %d %q", code, got)
	}
}

func TestWatchKeepsTheLastGoodVersionOfABrokenEdit(t *testing.T) {
	dir := recordOne(t)
	file := filepath.Join(dir, "default.yaml")
	good, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	rep, reloads := startWatching(t, dir)

	if err := cassettes.WriteFileAtomic(file, []byte("version: 1\ninteractions:\n  - request: {method: GET\n")); err != nil {
		t.Fatal(err)
	}
	r := waitReload(t, reloads, "default")
	var fe *cassettes.FormatError
	if !errors.As(r.err, &fe) || fe.Line <= 0 {
		t.Fatalf("broken edit: got error %v, want a FormatError with a line", r.err)
	}
	if want := fmt.Sprintf("%s:%d:", file, fe.Line); !strings.Contains(r.err.Error(), want) {
		t.Fatalf("error %q does not name %s", r.err, want)
	}
	if code, got := askFor(t, rep, "default"); code != 200 || got != recordedFirst {
		t.Fatalf("after the broken edit the previous version should serve: %d %q", code, got)
	}

	c, err := cassettes.Unmarshal(file, good)
	if err != nil {
		t.Fatal(err)
	}
	c.Exchanges[0].Response.Body = []byte("{\"fixed\": true}\n")
	if err := cassettes.Save(file, c, nil); err != nil {
		t.Fatal(err)
	}
	if r := waitReload(t, reloads, "default"); r.err != nil {
		t.Fatalf("the fixed file did not load: %v", r.err)
	}
	if code, got := askFor(t, rep, "default"); code != 200 || got != "{\"fixed\": true}\n" {
		t.Fatalf("after the fix: %d %q", code, got)
	}
}

func TestWatchServesANewCassetteInANewFolder(t *testing.T) {
	dir := recordOne(t)
	rep, reloads := startWatching(t, dir)

	if code, got := askFor(t, rep, "team/deep/TestNew"); code != 400 || !strings.Contains(got, "no such cassette") {
		t.Fatalf("before the file exists: %d %s", code, got)
	}
	// Two new folder levels at once; without a name field the cassette is
	// named by its path, as when the folder is loaded at start.
	saveWithBody(t, filepath.Join(dir, "default.yaml"), filepath.Join(dir, "team", "deep", "TestNew.yaml"), "", "{\"new\": true}\n")
	if r := waitReload(t, reloads, "team/deep/TestNew"); r.err != nil {
		t.Fatalf("new cassette did not load: %v", r.err)
	}
	if code, got := askFor(t, rep, "team/deep/TestNew"); code != 200 || got != "{\"new\": true}\n" {
		t.Fatalf("new cassette: %d %q", code, got)
	}
	if code, got := askFor(t, rep, "default"); code != 200 || got != recordedFirst {
		t.Fatalf("the other cassette: %d %q", code, got)
	}
}

func TestWatchDropsARemovedCassette(t *testing.T) {
	dir := recordOne(t)
	file := filepath.Join(dir, "default.yaml")
	saveWithBody(t, file, filepath.Join(dir, "suite", "other.yaml"), "suite/other", "{\"other\": true}\n")
	rep, reloads := startWatching(t, dir)
	if got := rep.Cassettes(); !slices.Equal(got, []string{"default", "suite/other"}) {
		t.Fatalf("cassettes at start: %v", got)
	}

	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	if r := waitReload(t, reloads, "default"); r.err != nil {
		t.Fatalf("removal: %v", r.err)
	}
	if code, got := askFor(t, rep, "default"); code != 400 || !strings.Contains(got, "no such cassette") {
		t.Fatalf("request for the removed cassette: %d %s", code, got)
	}

	// A removed folder takes its cassettes along.
	if err := os.RemoveAll(filepath.Join(dir, "suite")); err != nil {
		t.Fatal(err)
	}
	if r := waitReload(t, reloads, "suite/other"); r.err != nil {
		t.Fatalf("folder removal: %v", r.err)
	}
	if got := rep.Cassettes(); len(got) != 0 {
		t.Fatalf("cassettes left: %v", got)
	}
	if code, got := askFor(t, rep, "suite/other"); code != 400 || !strings.Contains(got, "no such cassette") {
		t.Fatalf("request for the removed folder's cassette: %d %s", code, got)
	}
}

func TestWatchRefusesASecondFileWithTheSameName(t *testing.T) {
	dir := recordOne(t)
	file := filepath.Join(dir, "default.yaml")
	rep, reloads := startWatching(t, dir)

	copyFile := filepath.Join(dir, "copy.yaml")
	saveWithBody(t, file, copyFile, "default", "{\"copy\": true}\n")
	r := waitReload(t, reloads, "default")
	if r.err == nil || !strings.Contains(r.err.Error(), "also used by "+file) || !strings.Contains(r.err.Error(), copyFile) {
		t.Fatalf("duplicate name: got %v", r.err)
	}
	if code, got := askFor(t, rep, "default"); code != 200 || got != recordedFirst {
		t.Fatalf("the first file should keep serving: %d %q", code, got)
	}

	// Once the name is free, the file that wanted it is read again.
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	for range 2 { // the removal, then the copy taking the name
		if r := waitReload(t, reloads, "default"); r.err != nil {
			t.Fatalf("after removing the first file: %v", r.err)
		}
	}
	if code, got := askFor(t, rep, "default"); code != 200 || got != "{\"copy\": true}\n" {
		t.Fatalf("the copy should serve now: %d %q", code, got)
	}
}

func TestWatchNeedsReplayMode(t *testing.T) {
	srv, err := proxy.New(proxy.Config{Mode: proxy.ModeRecord, Dir: testutil.OutDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Watch(context.Background()); err == nil || !strings.Contains(err.Error(), "replay") {
		t.Fatalf("Watch in record mode: %v", err)
	}
}
