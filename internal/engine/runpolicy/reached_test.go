package runpolicy_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/engine/fake"
	"github.com/adkproxy/adkproxy/internal/engine/runpolicy"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/proxy"
)

// serve starts cfg's proxy on loopback; send posts one model call to it,
// and finish closes it, so its report is the finished run's.
type served struct {
	srv *proxy.Server
	hs  *httptest.Server
}

func serve(t *testing.T, cfg proxy.Config) *served {
	t.Helper()
	srv, err := proxy.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return &served{srv, hs}
}

func (s *served) send(t *testing.T, cassette string) {
	t.Helper()
	req, _ := http.NewRequest("POST", s.hs.URL+"/v1beta/models/gemini-2.5-flash:generateContent",
		strings.NewReader(`{"contents":[{"role":"user","parts":[{"text":"Weather in Paris?"}]}]}`))
	req.Header.Set("x-goog-api-key", testutil.SecretAPIKey)
	req.Header.Set("X-Adkproxy-Cassette", cassette)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}

func (s *served) finish(t *testing.T) *proxy.Server {
	t.Helper()
	s.hs.Close()
	if err := s.srv.Close(); err != nil {
		t.Fatal(err)
	}
	return s.srv
}

// recorded records one model call into cassette "a" of a new folder.
func recorded(t *testing.T) string {
	t.Helper()
	script, err := fake.ParseScript("upstream.yaml", []byte("turns:\n  - model:\n      - text: Sunny.\n"))
	if err != nil {
		t.Fatal(err)
	}
	up := httptest.NewServer(fake.New(script))
	t.Cleanup(up.Close)
	u, _ := url.Parse(up.URL)
	dir := t.TempDir()
	rec := serve(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: u, DefaultCassette: "a"})
	rec.send(t, "a")
	if got := runpolicy.NothingReached(rec.finish(t), runpolicy.Scope{Dir: dir, Recording: true}); got != runpolicy.Reached {
		t.Fatalf("a recording run a request reached: %v", got)
	}
	return dir
}

// TestNothingReached: the one rule the CLI (a whole folder) and
// adkproxytest (one test's cassette) apply to a finished run.
func TestNothingReached(t *testing.T) {
	t.Parallel()
	dir := recorded(t)
	replay := func(lenient bool) *served {
		return serve(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir, DefaultCassette: "a", Lenient: lenient})
	}
	folder, one := runpolicy.Scope{Dir: dir, Strict: true}, runpolicy.Scope{Dir: dir, Cassette: "a", Strict: true}

	idle := replay(false).finish(t)
	for _, s := range []runpolicy.Scope{folder, one} {
		if got := runpolicy.NothingReached(idle, s); got != runpolicy.NothingReplayed {
			t.Errorf("strict replay of %q no request reached: %v, want NothingReplayed", s.Cassette, got)
		}
	}
	lenient := runpolicy.Scope{Dir: dir, Strict: false}
	if got := runpolicy.NothingReached(replay(true).finish(t), lenient); got != runpolicy.Reached {
		t.Errorf("lenient replay no request reached: %v, want Reached (it accepts anything)", got)
	}
	missing := runpolicy.Scope{Dir: dir, Cassette: "never-recorded", Strict: true}
	if got := runpolicy.NothingReached(idle, missing); got != runpolicy.Reached {
		t.Errorf("a cassette that does not exist: %v, want Reached (nothing to reach)", got)
	}

	other := replay(false)
	other.send(t, "b") // unmatched: no recording in b
	otherSrv := other.finish(t)
	if got := runpolicy.NothingReached(otherSrv, folder); got != runpolicy.Reached {
		t.Errorf("the folder, a request reached another cassette: %v, want Reached", got)
	}
	if got := runpolicy.NothingReached(otherSrv, one); got != runpolicy.NothingReplayed {
		t.Errorf("cassette a, only another one reached: %v, want NothingReplayed", got)
	}

	hit := replay(false)
	hit.send(t, "a")
	if got := runpolicy.NothingReached(hit.finish(t), one); got != runpolicy.Reached {
		t.Errorf("cassette a reached: %v, want Reached", got)
	}

	faulted := serve(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir, DefaultCassette: "a", Faults: []string{"call 1: 503"}})
	faulted.send(t, "a")
	faultedSrv := faulted.finish(t)
	for _, s := range []runpolicy.Scope{folder, one} {
		if got := runpolicy.NothingReached(faultedSrv, s); got != runpolicy.Reached {
			t.Errorf("%q, the one request answered with a fault: %v, want Reached", s.Cassette, got)
		}
	}

	empty := serve(t, proxy.Config{Mode: proxy.ModeRecord, Dir: t.TempDir(), DefaultCassette: "a"}).finish(t)
	if got := runpolicy.NothingReached(empty, runpolicy.Scope{Recording: true}); got != runpolicy.NothingRecorded {
		t.Errorf("a recording run no request reached: %v, want NothingRecorded", got)
	}
}
