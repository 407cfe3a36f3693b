package proxy_test

import (
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/proxy"
)

// A new episode recorded with new-episodes replaces the recording it
// supersedes at the same place (the same agent, history and step), so the
// next strict replay of the new behaviour uses every recording.
func TestNewEpisodesReplaceWhatTheySupersede(t *testing.T) {
	dir := recordAgent(t) // the tool said 18°C
	up := httptest.NewServer(&fakegemini.Handler{})
	defer up.Close()
	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecordNewEpisodes, Dir: dir, Upstream: mustURL(t, up.URL)})
	if _, err := (weatherAgent{tempC: 23}).run(t, rec.URL); err != nil {
		t.Fatal(err)
	}
	rec.stop(t)
	if st := rec.Stats(); st.Replayed != 1 || st.Recorded != 1 {
		t.Fatalf("stats %+v: want step 0 replayed and step 1 recorded", st)
	}
	c, err := cassettes.Load(filepath.Join(dir, "default.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Exchanges) != 2 || !strings.Contains(string(c.Exchanges[1].Request.Body), `"temp_c":23`) {
		t.Fatalf("cassette holds %d exchanges; want step 0 and the new step 1 only", len(c.Exchanges))
	}
	// The new step takes the old one's place, not an invocation of its own.
	if p := *c.Exchanges[1].Place; p.Session != 1 || p.Invocation != 1 || p.Step != 1 || p.User != "What is the weather in Paris?" {
		t.Errorf("the new step is placed at %+v, want session 1, invocation 1, step 1 as the one it replaced", p)
	}

	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir})
	if _, err := (weatherAgent{tempC: 23}).run(t, rep.URL); err != nil {
		t.Fatal(err)
	}
	rep.stop(t)
	if err := rep.Failure(); err != nil || rep.Stats().Unused != 0 {
		t.Fatalf("strict replay of the new behaviour: %v, stats %+v", err, rep.Stats())
	}
}
