package proxy_test

import (
	"errors"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/proxy"
)

// TestModeNamesParseOrNameTheChoices: each mode type has one parser, whose
// error wraps ErrUnknownMode and lists the names it accepts; New refuses
// the same names with the same error.
func TestModeNamesParseOrNameTheChoices(t *testing.T) {
	if m, err := proxy.ParseRecordMode("new-episodes"); m != proxy.RecordNewEpisodes || err != nil {
		t.Fatalf("ParseRecordMode(new-episodes) = %q, %v", m, err)
	}
	if m, err := proxy.ParseReplayMode("lenient"); m != proxy.ReplayLenient || err != nil {
		t.Fatalf("ParseReplayMode(lenient) = %q, %v", m, err)
	}
	if m, err := proxy.ParseMode("replay"); m != proxy.ModeReplay || err != nil {
		t.Fatalf("ParseMode(replay) = %q, %v", m, err)
	}
	for _, c := range []struct {
		err  error
		want string
	}{
		{second(proxy.ParseRecordMode("sloppy")), `record mode "sloppy": unknown mode (want overwrite, once, new-episodes or passthrough)`},
		{second(proxy.ParseReplayMode("")), `replay mode "": unknown mode (want strict or lenient)`},
		{second(proxy.ParseMode("Replay")), `mode "Replay": unknown mode (want record or replay)`},
	} {
		if !errors.Is(c.err, proxy.ErrUnknownMode) || c.err.Error() != c.want {
			t.Errorf("got %v, want %s", c.err, c.want)
		}
	}
	dir := testutil.OutDir(t)
	for _, cfg := range []proxy.Config{
		{Mode: "rewind", Dir: dir},
		{Mode: proxy.ModeRecord, RecordMode: "always", Dir: dir},
		{Mode: proxy.ModeReplay, ReplayMode: "loose", Dir: dir},
	} {
		if _, err := proxy.New(cfg); !errors.Is(err, proxy.ErrUnknownMode) {
			t.Errorf("New(%+v): %v, want ErrUnknownMode", cfg, err)
		}
	}
}

func second[T any](_ T, err error) error { return err }
