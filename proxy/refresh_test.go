package proxy_test

import (
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/proxy"
)

// TestRefreshReRecordsASessionFromItsFirstChange: a conversation of two
// invocations in one session and a second session are recorded; the
// refresh run changes the first session's first tool result and stops
// after that invocation, and leaves the second session as it was. The
// first session keeps its first step, has its second re-recorded, and
// loses the invocation the agent no longer made; the second session is
// replayed and kept untouched. New episodes, by contrast, keeps the stale
// invocation.
func TestRefreshReRecordsASessionFromItsFirstChange(t *testing.T) {
	up := httptest.NewServer(&fakegemini.Handler{})
	defer up.Close()
	paris := weatherAgent{}
	tokyo := weatherAgent{question: "What is the weather in Tokyo?", tempC: 24}
	record := func(mode proxy.Mode, dir string, parisTemp int, followUp bool) proxy.Stats {
		rec := startProxy(t, proxy.Config{Mode: mode, Dir: dir, Upstream: mustURL(t, up.URL)})
		a := paris
		a.tempC = parisTemp
		_, history, err := a.converse(t, rec.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		if followUp {
			if _, _, err := (weatherAgent{question: "What is the weather in Lyon?", tempC: 16}).converse(t, rec.URL, history); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := tokyo.run(t, rec.URL); err != nil {
			t.Fatal(err)
		}
		rec.stop(t)
		return rec.Stats()
	}
	for _, c := range []struct {
		mode      proxy.Mode
		exchanges int
	}{{proxy.ModeRecordRefresh, 4}, {proxy.ModeRecordNewEpisodes, 6}} {
		t.Run(string(c.mode), func(t *testing.T) {
			dir := testutil.OutDir(t)
			record(proxy.ModeRecord, dir, 18, true)
			before, err := cassettes.Load(filepath.Join(dir, "default.yaml"))
			if err != nil || len(before.Exchanges) != 6 {
				t.Fatalf("recorded %v, %d exchanges; want 6", err, len(before.Exchanges))
			}
			if st := record(c.mode, dir, 23, false); st.Replayed != 3 || st.Recorded != 1 {
				t.Fatalf("stats %+v: want session 1 step 0 and session 2 replayed, session 1 step 1 recorded", st)
			}
			after, err := cassettes.Load(filepath.Join(dir, "default.yaml"))
			if err != nil || len(after.Exchanges) != c.exchanges {
				t.Fatalf("the cassette holds %v, %d exchanges; want %d", err, len(after.Exchanges), c.exchanges)
			}
			var lyon, newTemp bool
			for _, x := range after.Exchanges {
				lyon = lyon || strings.Contains(x.Place.User, "Lyon")
				newTemp = newTemp || strings.Contains(string(x.Request.Body), `"temp_c":23`)
			}
			if !newTemp || lyon != (c.mode == proxy.ModeRecordNewEpisodes) {
				t.Errorf("the re-recorded step is there: %v; the invocation no longer made is there: %v", newTemp, lyon)
			}
			if c.mode != proxy.ModeRecordRefresh {
				return
			}
			rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir})
			a := paris
			a.tempC = 23
			if _, err := a.run(t, rep.URL); err != nil {
				t.Fatal(err)
			}
			if _, err := tokyo.run(t, rep.URL); err != nil {
				t.Fatal(err)
			}
			rep.stop(t)
			if err := rep.Failure(); err != nil || rep.Stats().Unused != 0 {
				t.Fatalf("strict replay of the refreshed cassette: %v, stats %+v", err, rep.Stats())
			}
		})
	}
}
