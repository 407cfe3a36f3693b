package proxy_test

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/proxy"
)

// TestConfigRefusesContradictions: a mode that does not exist, and every
// setting the mode would ignore, is refused by New with an error naming
// the Config field, so no Config means something it does not do.
func TestConfigRefusesContradictions(t *testing.T) {
	dir := testutil.OutDir(t)
	for _, c := range []struct {
		cfg  proxy.Config
		want string
	}{
		{proxy.Config{Mode: "rewind", Dir: dir}, `proxy: Config.Mode "rewind": unknown mode (want replay, record, record-once, record-new-episodes, record-refresh or passthrough)`},
		{proxy.Config{Mode: "Replay", Dir: dir}, `Config.Mode "Replay": unknown mode`},
		{proxy.Config{Mode: proxy.ModeRecordOnce, Lenient: true, Dir: dir}, "Config.Lenient is for ModeReplay; Mode record-once"},
		{proxy.Config{Mode: proxy.ModeRecord, Lenient: true, Dir: dir}, "Config.Lenient is for ModeReplay; Mode record"},
		{proxy.Config{Mode: proxy.ModePassthrough, AllowRepeats: true}, "Config.AllowRepeats applies to recordings being replayed; Mode passthrough replays none"},
		{proxy.Config{Mode: proxy.ModeRecord, ConformanceKeys: true, Dir: dir}, "Config.ConformanceKeys applies"},
		{proxy.Config{Mode: proxy.ModeRecord, ReplayTiming: true, Dir: dir}, "Config.ReplayTiming applies"},
		{proxy.Config{Mode: proxy.ModePassthrough, Match: anyRecording}, "Config.Match applies"},
		{proxy.Config{Dir: dir, ConformanceKeys: true, Match: anyRecording}, "Config.Match and Config.ConformanceKeys both say how to match"},
	} {
		_, err := proxy.New(c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%+v) = %v, want an error containing %q", c.cfg, err, c.want)
		}
		if strings.Contains(c.want, "unknown mode") && !errors.Is(err, proxy.ErrUnknownMode) {
			t.Errorf("New(%+v) = %v, want it to wrap ErrUnknownMode", c.cfg, err)
		}
	}
	// What replays in the record modes may be set there.
	for _, m := range []proxy.Mode{proxy.ModeRecordOnce, proxy.ModeRecordNewEpisodes} {
		if _, err := proxy.New(proxy.Config{Mode: m, Dir: dir, AllowRepeats: true, ReplayTiming: true, ConformanceKeys: true}); err != nil {
			t.Errorf("%s with replay settings: %v", m, err)
		}
	}
}

func anyRecording(_, _ *cassettes.Request) bool { return true }

// TestRecordNeedsDir: the modes that write cassettes refuse an empty Dir,
// naming the field, rather than write into the working folder; passthrough
// writes nothing and needs none.
func TestRecordNeedsDir(t *testing.T) {
	for _, m := range []proxy.Mode{proxy.ModeRecord, proxy.ModeRecordOnce, proxy.ModeRecordNewEpisodes} {
		_, err := proxy.New(proxy.Config{Mode: m})
		if err == nil || !strings.Contains(err.Error(), "Config.Dir is empty") {
			t.Errorf("New(Mode %s, no Dir) = %v, want a refusal naming Config.Dir", m, err)
		}
	}
	if _, err := proxy.New(proxy.Config{Mode: proxy.ModePassthrough}); err != nil {
		t.Errorf("passthrough without Dir: %v", err)
	}
}

// TestZeroConfigReplaysTestdataCassettes: the zero Config is a strict
// replay of ./testdata/cassettes, answering from the cassette there.
func TestZeroConfigReplaysTestdataCassettes(t *testing.T) {
	up, _ := countingUpstream()
	defer up.Close()
	work := t.TempDir()
	if err := os.CopyFS(filepath.Join(work, "testdata", "cassettes"), os.DirFS(record(t, up.URL, askHi))); err != nil {
		t.Fatal(err)
	}
	t.Chdir(work)
	rep := startProxy(t, proxy.Config{})
	resp := post(t, rep.URL, generatePath, nil, askHi)
	got := body(t, resp)
	if resp.StatusCode != http.StatusOK || rep.Stats().Replayed != 1 {
		t.Fatalf("zero Config: %d %s, stats %+v; want the recording in testdata/cassettes served", resp.StatusCode, got, rep.Stats())
	}
	if r := rep.Report(); r.Mode != "replay" {
		t.Errorf("report mode %q, want replay", r.Mode)
	}
	// A strict replay: a changed request fails.
	resp = post(t, rep.URL, generatePath, nil, `{"contents":[{"parts":[{"text":"bye"}]}]}`)
	body(t, resp)
	if resp.StatusCode != http.StatusBadRequest || rep.Failure() == nil {
		t.Errorf("zero Config served a changed request: %d", resp.StatusCode)
	}
	// Without the folder, New names it.
	t.Chdir(t.TempDir())
	if _, err := proxy.New(proxy.Config{}); err == nil || !strings.Contains(err.Error(), filepath.Join("testdata", "cassettes")) || !errors.Is(err, cassettes.ErrNotFound) {
		t.Errorf("zero Config without testdata/cassettes: %v", err)
	}
}
