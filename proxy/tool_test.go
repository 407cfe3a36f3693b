package proxy_test

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/matcher"
	"github.com/adkproxy/adkproxy/proxy"
)

// toolGet sends a GET through client and returns status and body.
func toolGet(t *testing.T, client *http.Client, url string, header http.Header) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	for k, vs := range header {
		req.Header[k] = vs
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// TestForwardProxyToolTraffic: a tool's HTTPS call (intercepted with a leaf
// from the local CA, sent by --connect-to to a host trusted by
// --upstream-ca) and a plain-HTTP absolute-form call are recorded as tool
// exchanges, their credentials scrubbed; replay answers both from the
// cassette with the same bytes, though the credentials now differ, and
// opens no connection to either host.
func TestForwardProxyToolTraffic(t *testing.T) {
	dir := testutil.OutDir(t)
	local, public := newCA(t), newCA(t)
	secure := testutil.StartCounting(t, weather, public.Leaf)
	plain := testutil.StartCounting(t, weather, nil)
	routes := []proxy.ConnectTo{
		{From: "weather.example.test:443", To: secure.Addr()},
		{From: "plain.example.test:80", To: plain.Addr()},
	}
	secureURL := "https://weather.example.test/v1/current?city=Paris&token=" + testutil.SecretToolQuery
	const plainURL = "http://plain.example.test/v1/current?city=Oslo"
	creds := http.Header{"Cookie": {testutil.SecretToolCookie}, "X-Api-Key": {testutil.SecretToolHeader}, "Authorization": {"Bearer " + testutil.SecretBearer}}
	wants := map[string]string{
		secureURL: `{"host":"weather.example.test","city":"Paris","temp_c":18}`,
		plainURL:  `{"host":"plain.example.test","city":"Oslo","temp_c":18}`,
	}

	rec, recHTTP := serveForward(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, ConnectTo: routes, UpstreamRoots: poolOf(public),
		Forward: &proxy.ForwardProxy{Leaf: local.Leaf}, Redactor: cassettes.NewRedactor()})
	client := proxiedClient(recHTTP.URL, poolOf(local))
	for _, u := range []string{secureURL, plainURL} {
		if code, body := toolGet(t, client, u, creds); code != 200 || body != wants[u] {
			t.Errorf("GET %s while recording: %d %s, want 200 %s", u, code, body, wants[u])
		}
	}
	recHTTP.Close()
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if st := rec.Stats(); st.Recorded != 2 {
		t.Errorf("recorded %d exchanges, want the 2 tool calls", st.Recorded)
	}
	for _, secret := range []string{testutil.SecretToolQuery, testutil.SecretToolCookie, testutil.SecretToolHeader, testutil.SecretBearer} {
		if n := testutil.CountInDir(t, dir, secret); n != 0 {
			t.Errorf("a tool credential reached the cassette folder %d time(s)", n)
		}
	}
	c, err := cassettes.Load(filepath.Join(dir, "default.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Exchanges) != 2 || c.Exchanges[0].Request.Host != "weather.example.test" || c.Exchanges[0].Request.Query != "city=Paris" ||
		c.Exchanges[1].Request.Scheme != "http" || c.Exchanges[1].Request.Host != "plain.example.test" {
		data, _ := os.ReadFile(filepath.Join(dir, "default.yaml"))
		t.Fatalf("cassette holds the wrong tool exchanges:\n%s", data)
	}

	before, plainBefore := secure.Conns(), plain.Conns()
	rep, repHTTP := serveForward(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir, Forward: &proxy.ForwardProxy{Leaf: local.Leaf}})
	client = proxiedClient(repHTTP.URL, poolOf(local))
	other := http.Header{"Cookie": {"session=another"}, "X-Api-Key": {"another-key-123456"}}
	replayURL := strings.Replace(secureURL, testutil.SecretToolQuery, "another-token-99", 1)
	for u, want := range map[string]string{replayURL: wants[secureURL], plainURL: wants[plainURL]} {
		if code, body := toolGet(t, client, u, other); code != 200 || body != want {
			t.Errorf("GET %s in replay: %d %s, want the recording 200 %s", u, code, body, want)
		}
	}
	repHTTP.Close()
	if err := rep.Close(); err != nil {
		t.Fatal(err)
	}
	if st := rep.Stats(); st.Replayed != 2 || st.Unmatched+st.Mismatched+st.Unused != 0 || rep.Failure() != nil {
		t.Errorf("replay stats %+v (failure %v), want 2 replayed and nothing else", st, rep.Failure())
	}
	if n, m := secure.Conns()-before, plain.Conns()-plainBefore; n+m != 0 {
		t.Errorf("replay opened %d connection(s) to the HTTPS tool host and %d to the HTTP one, want none", n, m)
	}
}

// recordWeather records one call to the weather tool for Paris and returns
// the cassette folder, the local CA's pool and a replay config for it.
func recordWeather(t *testing.T) (string, proxy.Config, *http.Client) {
	t.Helper()
	dir := testutil.OutDir(t)
	local, public := newCA(t), newCA(t)
	up := testutil.StartCounting(t, weather, public.Leaf)
	routes := []proxy.ConnectTo{{From: "weather.example.test:443", To: up.Addr()}}
	rec, recHTTP := serveForward(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, ConnectTo: routes, UpstreamRoots: poolOf(public), Forward: &proxy.ForwardProxy{Leaf: local.Leaf}})
	if code, _ := toolGet(t, proxiedClient(recHTTP.URL, poolOf(local)), "https://weather.example.test/v1/current?city=Paris&units=metric", nil); code != 200 {
		t.Fatalf("recording: %d", code)
	}
	recHTTP.Close()
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	cfg := proxy.Config{Mode: proxy.ModeReplay, Dir: dir, Forward: &proxy.ForwardProxy{Leaf: local.Leaf}}
	return dir, cfg, proxiedClient("", poolOf(local))
}

func replayOne(t *testing.T, cfg proxy.Config, client *http.Client, url string) (*proxy.Server, int, string) {
	t.Helper()
	rep, hs := serveForward(t, cfg)
	client.Transport.(*http.Transport).Proxy = http.ProxyURL(mustURL(t, hs.URL))
	code, body := toolGet(t, client, url, nil)
	hs.Close()
	if err := rep.Close(); err != nil {
		t.Fatal(err)
	}
	return rep, code, body
}

// TestToolRequestChangedFailsStrictReplay: one query parameter changed is
// named in the error, the report and the run's failure; lenient replay
// serves the recording and reports the same difference.
func TestToolRequestChangedFailsStrictReplay(t *testing.T) {
	_, cfg, client := recordWeather(t)
	const changed = "https://weather.example.test/v1/current?city=Lyon&units=metric"
	const want = `query.city: recorded "Paris", got "Lyon"`
	rep, code, body := replayOne(t, cfg, client, changed)
	var e struct {
		Error struct{ Message string }
	}
	json.Unmarshal([]byte(body), &e)
	if code != http.StatusBadRequest || !strings.Contains(e.Error.Message, want) {
		t.Errorf("strict replay of a changed tool request: %d %s, want 400 naming %s", code, body, want)
	}
	if rep.Failure() == nil || rep.Stats().Mismatched != 1 {
		t.Errorf("strict run did not fail on the changed tool request: %+v", rep.Stats())
	}
	misses := rep.Misses()
	if len(misses) != 1 || misses[0].Host != "weather.example.test" || len(misses[0].Diffs) != 1 || misses[0].Diffs[0].String() != want {
		out, _ := json.Marshal(misses)
		t.Errorf("report misses %s, want one naming the host and %s", out, want)
	}

	cfg.Lenient = true
	rep, code, body = replayOne(t, cfg, client, changed)
	if code != 200 || !strings.Contains(body, `"city":"Paris"`) || rep.Failure() != nil || rep.Stats().Mismatched != 1 {
		t.Errorf("lenient replay: %d %s, stats %+v, failure %v; want the recording served and the mismatch counted", code, body, rep.Stats(), rep.Failure())
	}
}

// TestUnrecordedToolHostFailsReplay: a host the cassette holds nothing for
// gets a 502 naming the host and the cassette, and fails a strict run.
func TestUnrecordedToolHostFailsReplay(t *testing.T) {
	dir, cfg, client := recordWeather(t)
	rep, code, body := replayOne(t, cfg, client, "https://news.example.test/v1/top")
	if code != http.StatusBadGateway || !strings.Contains(body, "news.example.test") || !strings.Contains(body, `cassette \"default\"`) || !strings.Contains(body, dir) {
		t.Errorf("unrecorded host in replay: %d %s, want 502 naming news.example.test, the cassette and %s", code, body, dir)
	}
	if rep.Failure() == nil || rep.Stats().Unmatched != 1 {
		t.Errorf("strict run did not fail on the unrecorded host: %+v", rep.Stats())
	}
	var unused []string
	for _, o := range rep.Report().Outcomes {
		if o.Outcome == matcher.OutcomeUnused {
			unused = append(unused, o.Message)
		}
	}
	if len(unused) != 1 || !strings.Contains(unused[0], "tool request GET weather.example.test/v1/current?city=Paris&units=metric was never requested") {
		t.Errorf("unused recordings %q, want the Paris tool call named", unused)
	}
}
