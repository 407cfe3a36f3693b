package proxy_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/matcher"
	"github.com/adkproxy/adkproxy/proxy"
)

// lazyFolder is a replay folder: the recorded "default" cassette, a good
// neighbour "suite/other" and a neighbour that does not load.
func lazyFolder(t *testing.T) (dir, broken string) {
	t.Helper()
	dir = recordOne(t)
	saveWithBody(t, filepath.Join(dir, "default.yaml"), filepath.Join(dir, "suite", "other.yaml"), "suite/other", "{\"other\": true}\n")
	broken = filepath.Join(dir, "broken.yaml")
	if err := os.WriteFile(broken, []byte("name: broken\nsessions: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, broken
}

// TestLazyReplayIgnoresABrokenNeighbour: a run that asks only for its own
// cassette is not failed, nor slowed, by the others in the folder.
func TestLazyReplayIgnoresABrokenNeighbour(t *testing.T) {
	dir, _ := lazyFolder(t)
	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir})
	if code, got := askFor(t, rep, "default"); code != 200 || got != recordedFirst {
		t.Fatalf("own cassette: %d %q", code, got)
	}
	rep.stop(t)
	if err := rep.Err(); err != nil {
		t.Fatalf("Err() = %v; the broken cassette was never asked for", err)
	}
	r := rep.Report()
	if r.Counts[matcher.OutcomeUnused] != 0 {
		t.Fatalf("unused = %d; only the opened cassette counts, and its recording was used: %+v", r.Counts[matcher.OutcomeUnused], r.Outcomes)
	}
	// The listing used in messages still names every cassette on disk.
	if got := rep.Cassettes(); !slices.Equal(got, []string{"broken", "default", "suite/other"}) {
		t.Fatalf("Cassettes() = %v", got)
	}
}

// TestLazyReplayReportsTheBrokenCassetteAskedFor: the request gets the
// file:line reason and the run fails as a data error.
func TestLazyReplayReportsTheBrokenCassetteAskedFor(t *testing.T) {
	dir, broken := lazyFolder(t)
	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir})
	code, got := askFor(t, rep, "broken")
	if code != 500 || !strings.Contains(got, broken+":") {
		t.Fatalf("broken cassette: %d %s; want 500 naming %s:LINE", code, got, broken)
	}
	if err := rep.Err(); err == nil || !errors.Is(err, cassettes.ErrCorrupt) {
		t.Fatalf("Err() = %v, want the corrupt cassette", err)
	}
}

// TestCheckAllReadsEveryCassetteAtStart: CheckAll fails New on the broken
// neighbour, and counts a cassette no request opened as unused.
func TestCheckAllReadsEveryCassetteAtStart(t *testing.T) {
	dir, broken := lazyFolder(t)
	if _, err := proxy.New(proxy.Config{Mode: proxy.ModeReplay, Dir: dir, CheckAll: true}); err == nil || !strings.Contains(err.Error(), broken) {
		t.Fatalf("New with CheckAll = %v, want the broken file named", err)
	}
	if err := os.Remove(broken); err != nil {
		t.Fatal(err)
	}
	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir, CheckAll: true})
	if code, got := askFor(t, rep, "default"); code != 200 || got != recordedFirst {
		t.Fatalf("own cassette: %d %q", code, got)
	}
	rep.stop(t)
	if r := rep.Report(); r.Counts[matcher.OutcomeUnused] != 1 {
		t.Fatalf("unused = %d, want suite/other's one recording: %+v", r.Counts[matcher.OutcomeUnused], r.Outcomes)
	}
}

// TestLazyReplayFindsACassetteByItsDeclaredName: a cassette file moved by
// hand is still found under the name it declares, and a missing folder is
// refused when the server is made.
func TestLazyReplayFindsACassetteByItsDeclaredName(t *testing.T) {
	dir, broken := lazyFolder(t)
	os.Remove(broken)
	if err := os.Rename(filepath.Join(dir, "suite", "other.yaml"), filepath.Join(dir, "moved.yaml")); err != nil {
		t.Fatal(err)
	}
	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir})
	if code, got := askFor(t, rep, "suite/other"); code != 200 || got != "{\"other\": true}\n" {
		t.Fatalf("moved cassette: %d %q", code, got)
	}
	if code, got := askFor(t, rep, "nowhere"); code != 400 || !strings.Contains(got, "no such cassette") {
		t.Fatalf("missing cassette: %d %s", code, got)
	}
	if _, err := proxy.New(proxy.Config{Mode: proxy.ModeReplay, Dir: filepath.Join(dir, "absent")}); !errors.Is(err, cassettes.ErrNotFound) {
		t.Fatalf("New on a missing folder = %v, want ErrNotFound", err)
	}
}

// TestLazyReplayRefusesASpecialFileInTheFolder is issue 39 item 13: a
// folder holding only a cassette that is a link to /dev/zero is refused
// when the folder is listed (as ls does), naming the file, not served as
// a folder with nothing in it.
func TestLazyReplayRefusesASpecialFileInTheFolder(t *testing.T) {
	dir := t.TempDir()
	zero := filepath.Join(dir, "zero.yaml")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	_, err := proxy.New(proxy.Config{Mode: proxy.ModeReplay, Dir: dir})
	if err == nil || !errors.Is(err, cassettes.ErrCorrupt) || !strings.Contains(err.Error(), zero) || !strings.Contains(err.Error(), "device") {
		t.Fatalf("New: %v; want a data error naming %s as a device", err, zero)
	}
	if _, err := cassettes.LoadDir(dir); err == nil || !strings.Contains(err.Error(), zero) {
		t.Fatalf("LoadDir: %v", err)
	}
}
