package proxy_test

import (
	"errors"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/matcher"
	"github.com/adkproxy/adkproxy/proxy"
)

// TestBeforeSaveErrorFailsTheRun: an exchange BeforeSave fails on is
// answered, not recorded, reported with the error, and fails the run;
// the other exchanges are kept.
func TestBeforeSaveErrorFailsTheRun(t *testing.T) {
	up, _ := countingUpstream()
	defer up.Close()
	dir := testutil.OutDir(t)
	broken := errors.New("cannot scrub this one")
	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL),
		BeforeSave: func(x *cassettes.Exchange) error {
			if strings.Contains(string(x.Request.Body), "secret") {
				return broken
			}
			return nil
		}})
	for _, b := range []string{`{"a":"secret"}`, `{"a":"plain"}`} {
		if resp := post(t, rec.URL, generatePath, nil, b); resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: status %d, want the answer passed on", b, resp.StatusCode)
		} else {
			body(t, resp)
		}
	}
	rec.stop(t)
	err := rec.Failure()
	if !errors.Is(err, proxy.ErrRunFailed) || !errors.Is(err, broken) || !strings.Contains(err.Error(), "BeforeSave failed on 1 exchange(s)") {
		t.Errorf("Failure() = %v, want the run failed by BeforeSave's error", err)
	}
	var msgs []string
	for _, o := range rec.Report().Outcomes {
		msgs = append(msgs, string(o.Outcome)+": "+o.Message)
	}
	if got := strings.Join(msgs, "|"); got != "forwarded: not recorded: BeforeSave: cannot scrub this one|recorded: " {
		t.Errorf("outcomes %q", got)
	}
	c, err := cassettes.Load(filepath.Join(dir, "default.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Exchanges) != 1 || string(c.Exchanges[0].Request.Body) != `{"a":"plain"}` {
		t.Errorf("cassette holds %d exchange(s), want only the plain one", len(c.Exchanges))
	}
}

// TestBeforeReplayEditsACopy: what BeforeReplay changes is served once;
// the recording itself is unchanged for the next request, and an error
// answers 500 naming the hook.
func TestBeforeReplayEditsACopy(t *testing.T) {
	up, _ := countingUpstream()
	defer up.Close()
	dir := record(t, up.URL, askHi)
	calls := 0
	rep := startProxy(t, proxy.Config{Dir: dir, AllowRepeats: true, BeforeReplay: func(x *cassettes.Exchange) error {
		calls++
		if calls == 3 {
			return errors.New("no third answer")
		}
		x.Response.Body = append(x.Response.Body[:0], "edited "...)
		x.Response.Header.Set("X-Edited", "yes")
		return nil
	}})
	for i := range 2 {
		resp := post(t, rep.URL, generatePath, nil, askHi)
		if got := body(t, resp); got != "edited " || resp.Header.Get("X-Edited") != "yes" {
			t.Fatalf("answer %d: %q (X-Edited %q), want the edited copy", i, got, resp.Header.Get("X-Edited"))
		}
	}
	resp := post(t, rep.URL, generatePath, nil, askHi)
	if got := body(t, resp); resp.StatusCode != http.StatusInternalServerError || !strings.Contains(got, "BeforeReplay: no third answer") {
		t.Errorf("hook error: %d %s", resp.StatusCode, got)
	}
	c, err := cassettes.Load(filepath.Join(dir, "default.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(c.Exchanges[0].Response.Body); !strings.Contains(got, `"call": 1`) {
		t.Errorf("the cassette changed: %q", got)
	}
}

// TestMatchUsesEachRecordingOnce: under Config.Match a recording answers
// once (unless AllowRepeats); a request Match pairs with nothing is
// unmatched and fails a strict run.
func TestMatchUsesEachRecordingOnce(t *testing.T) {
	up, _ := countingUpstream()
	defer up.Close()
	dir := record(t, up.URL, `{"q":1}`, `{"q":2}`)
	samePath := func(request, recorded *cassettes.Request) bool { return request.Path == recorded.Path }
	rep := startProxy(t, proxy.Config{Dir: dir, Match: samePath})
	var got []string
	for range 3 {
		resp := post(t, rep.URL, generatePath, nil, `{"q":"anything"}`)
		got = append(got, strings.Join(strings.Fields(body(t, resp)), ""))
	}
	if got[0] != `{"call":1}` || got[1] != `{"call":2}` || !strings.Contains(got[2], "all2recordedanswersConfig.Matchacceptsfor") {
		t.Errorf("answers %q, want the two recordings in file order, then used up", got)
	}
	if rep.Failure() == nil || rep.Stats().Unmatched != 1 {
		t.Errorf("stats %+v, failure %v", rep.Stats(), rep.Failure())
	}
	none := startProxy(t, proxy.Config{Dir: dir, Match: func(_, _ *cassettes.Request) bool { return false }})
	resp := post(t, none.URL, generatePath, nil, `{"q":1}`)
	if msg := body(t, resp); resp.StatusCode != http.StatusBadRequest || !strings.Contains(msg, "Config.Match accepts no recording") {
		t.Errorf("no match: %d %s", resp.StatusCode, msg)
	}
}

// TestPassthroughWhileRecording: a request Passthrough chooses is
// forwarded and reported as such, and its exchange is not in the cassette
// nor shown to BeforeSave; the hook reads the request's body.
func TestPassthroughWhileRecording(t *testing.T) {
	up, n := countingUpstream()
	defer up.Close()
	dir := testutil.OutDir(t)
	saved := 0
	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL),
		Passthrough: func(r *http.Request) bool {
			b, _ := io.ReadAll(r.Body)
			return strings.Contains(string(b), "health")
		},
		BeforeSave: func(*cassettes.Exchange) error { saved++; return nil }})
	body(t, post(t, rec.URL, generatePath, nil, `{"q":"health"}`))
	body(t, post(t, rec.URL, generatePath, nil, `{"q":"keep"}`))
	rec.stop(t)
	if n.Load() != 2 || saved != 1 || rec.Report().Counts[matcher.OutcomeForwarded] != 1 || rec.Report().Counts[matcher.OutcomeRecorded] != 1 {
		t.Errorf("upstream calls %d, BeforeSave calls %d, counts %v", n.Load(), saved, rec.Report().Counts)
	}
	c, err := cassettes.Load(filepath.Join(dir, "default.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Exchanges) != 1 || string(c.Exchanges[0].Request.Body) != `{"q":"keep"}` {
		t.Errorf("cassette holds %d exchange(s), want only the kept one", len(c.Exchanges))
	}
}
