package proxy_test

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/proxyopt"
	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/matcher"
	"github.com/adkproxy/adkproxy/proxy"
)

// control sends one control request and returns its status and body.
func control(t *testing.T, method, url, token, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if method == http.MethodPut || method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// TestHealthProbesDuringStrictReplayDoNotFailTheRun: a container runtime
// probing health before, during and after a strict replay adds nothing to
// the report and cannot make the run fail.
func TestHealthProbesDuringStrictReplayDoNotFailTheRun(t *testing.T) {
	dir := recordAgent(t)
	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir})
	probe := func() {
		t.Helper()
		code, body := control(t, http.MethodGet, rep.URL+proxyopt.ControlHealth, "", "")
		var h struct{ Status, Mode, Cassette string }
		if err := json.Unmarshal([]byte(body), &h); err != nil || code != http.StatusOK {
			t.Fatalf("health: %d %s (%v)", code, body, err)
		}
		if h.Status != "ok" || h.Mode != "replay" || h.Cassette != cassettes.DefaultName {
			t.Errorf("health = %+v, want status ok, mode replay, cassette %q", h, cassettes.DefaultName)
		}
	}
	probe()
	if _, err := (weatherAgent{}).run(t, rep.URL); err != nil {
		t.Fatalf("replay of the recorded agent: %v", err)
	}
	probe()
	// Odd control requests are refused, and are not model traffic either.
	if code, body := control(t, http.MethodPost, rep.URL+proxyopt.ControlHealth, "", ""); code != http.StatusMethodNotAllowed || !strings.Contains(body, "use GET") {
		t.Errorf("POST health: %d %s, want 405 naming GET", code, body)
	}
	if code, body := control(t, http.MethodGet, rep.URL+proxy.ControlPrefix+"nope", "", ""); code != http.StatusNotFound || !strings.Contains(body, proxyopt.ControlCassette) {
		t.Errorf("GET an unknown control path: %d %s, want 404 listing the endpoints", code, body)
	}
	rep.stop(t)
	if err := rep.Failure(); err != nil {
		t.Errorf("health probes failed the strict replay: %v", err)
	}
	r := rep.Report()
	if len(r.Outcomes) != 2 || r.Counts[matcher.OutcomeMatched] != 2 {
		t.Errorf("report lists %d outcomes %v, want the agent's 2 matched requests only", len(r.Outcomes), r.Counts)
	}
	if st := rep.Stats(); st.Failed != 0 {
		t.Errorf("control requests counted as %d refused requests", st.Failed)
	}
}

// TestControlReportIsTheRunReportSoFar: GET /_adkproxy/report is what
// --report writes, valid against report.schema.json, while serving.
func TestControlReportIsTheRunReportSoFar(t *testing.T) {
	dir := recordAgent(t)
	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir})
	if _, err := (weatherAgent{tempC: 23}).run(t, rep.URL); err == nil {
		t.Fatal("a changed tool result replayed without error")
	}
	code, raw := control(t, http.MethodGet, rep.URL+proxyopt.ControlReport, "", "")
	if code != http.StatusOK {
		t.Fatalf("GET report: %d %s", code, raw)
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	schema, err := jsonschema.NewCompiler().Compile("report.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(doc); err != nil {
		t.Fatalf("GET %s does not match report.schema.json: %v\n%s", proxyopt.ControlReport, err, raw)
	}
	var got proxy.Report
	if err := json.Unmarshal([]byte(raw), &got); err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(rep.Report())
	again, _ := json.Marshal(got)
	if string(want) != string(again) {
		t.Errorf("GET report differs from Server.Report:\n got %s\nwant %s", again, want)
	}
	if got.Counts[matcher.OutcomeMatched] != 1 || got.Counts[matcher.OutcomeMismatched] != 1 {
		t.Errorf("report counts %v, want 1 matched and 1 mismatched", got.Counts)
	}
}

// TestControlCassetteSelectsTheCassettePerTest: a fixture switching the
// default cassette records each test into its own file and replays each
// from it, with clients that send no header at all.
func TestControlCassetteSelectsTheCassettePerTest(t *testing.T) {
	dir := testutil.OutDir(t)
	up := httptest.NewServer(&fakegemini.Handler{})
	defer up.Close()
	tests := map[string]weatherAgent{
		"suite/TestParis": {},
		"suite/TestTokyo": {question: "What is the weather in Tokyo?"},
	}
	use := func(base, name string) {
		t.Helper()
		code, body := control(t, http.MethodPut, base+proxyopt.ControlCassette, "", `{"name": "`+name+`"}`)
		if code != http.StatusOK || !strings.Contains(body, `"name": "`+name+`"`) {
			t.Fatalf("PUT cassette %s: %d %s", name, code, body)
		}
		if _, body := control(t, http.MethodGet, base+proxyopt.ControlCassette, "", ""); !strings.Contains(body, name) {
			t.Errorf("GET cassette after PUT %s: %s", name, body)
		}
	}

	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL)})
	for name, agent := range tests {
		use(rec.URL, name)
		if _, err := agent.run(t, rec.URL); err != nil {
			t.Fatal(err)
		}
	}
	rec.stop(t)
	for name := range tests {
		rel, _ := cassettes.FileName(name)
		if _, err := os.Stat(filepath.Join(dir, rel)); err != nil {
			t.Errorf("test %s was not recorded into its own cassette: %v", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, cassettes.DefaultName+cassettes.Extension)); err == nil {
		t.Error("something was recorded into the default cassette")
	}

	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir})
	for _, name := range []string{"suite/TestTokyo", "suite/TestParis"} { // another order: each test has its own
		use(rep.URL, name)
		if _, err := tests[name].run(t, rep.URL); err != nil {
			t.Errorf("replay of %s: %v", name, err)
		}
	}
	rep.stop(t)
	if err := rep.Failure(); err != nil {
		t.Errorf("per-test replay failed: %v\n%+v", err, rep.Report().Outcomes)
	}
}

// TestControlCassetteNamesAreCheckedAsHeaderNamesAre: a name refused in
// the X-Adkproxy-Cassette header is refused by PUT with the same reason,
// and the default stays as it was.
func TestControlCassetteNamesAreCheckedAsHeaderNamesAre(t *testing.T) {
	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: t.TempDir()})
	for _, name := range []string{"", "../escape", "/etc/passwd", "a//b", "suite/./x"} {
		_, nameErr := cassettes.FileName(name)
		header := body(t, post(t, rep.URL, generatePath, http.Header{proxy.HeaderCassette: {name}}, `{}`))
		nameJSON, _ := json.Marshal(name)
		code, put := control(t, http.MethodPut, rep.URL+proxyopt.ControlCassette, "", `{"name": `+string(nameJSON)+`}`)
		if code != http.StatusBadRequest {
			t.Errorf("PUT cassette %q: %d %s, want 400", name, code, put)
		}
		reason, _ := json.Marshal(nameErr.Error())
		reason = reason[1 : len(reason)-1]
		if !strings.Contains(put, string(reason)) || (name != "" && !strings.Contains(header, string(reason))) {
			t.Errorf("name %q: want the reason %s in both answers:\nPUT:    %s\nheader: %s", name, reason, put, header)
		}
	}
	for _, bad := range []string{`{}`, `{"name": 7}`, `{"nam": "x"}`, `{"name": "a"} {"name": "b"}`, `not json`} {
		if code, msg := control(t, http.MethodPut, rep.URL+proxyopt.ControlCassette, "", bad); code != http.StatusBadRequest || !strings.Contains(msg, `{\"name\": \"suite/TestX\"}`) {
			t.Errorf("PUT cassette %s: %d %s, want 400 showing the expected body", bad, code, msg)
		}
	}
	if got := rep.DefaultCassette(); got != cassettes.DefaultName {
		t.Errorf("refused names changed the default cassette to %q", got)
	}
}

// TestControlFlushWritesCassettesWhileServing: a long-lived sidecar writes
// its cassettes on request, and control traffic is never recorded.
func TestControlFlushWritesCassettesWhileServing(t *testing.T) {
	dir := testutil.OutDir(t)
	upstream := &fakegemini.Handler{}
	up := httptest.NewServer(upstream)
	defer up.Close()
	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL)})
	control(t, http.MethodGet, rec.URL+proxyopt.ControlHealth, "", "")
	if _, err := (weatherAgent{}).run(t, rec.URL); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, cassettes.DefaultName+cassettes.Extension)
	if _, err := os.Stat(file); err == nil {
		t.Fatalf("%s exists before the flush; the test proves nothing", file)
	}
	if code, body := control(t, http.MethodPost, rec.URL+proxyopt.ControlFlush, "", ""); code != http.StatusOK {
		t.Fatalf("POST flush: %d %s", code, body)
	}
	c, err := cassettes.Load(file)
	if err != nil {
		t.Fatalf("after POST flush: %v", err)
	}
	if len(c.Exchanges) != 2 {
		t.Errorf("flushed cassette holds %d exchanges, want the agent's 2", len(c.Exchanges))
	}
	for _, x := range c.Exchanges {
		if strings.HasPrefix(x.Request.Path, proxy.ControlPrefix) {
			t.Errorf("control request %s was recorded", x.Request.Path)
		}
	}
	for _, r := range upstream.Requests() {
		if strings.HasPrefix(r.Path, "/_adkproxy") {
			t.Errorf("control request %s reached the upstream", r.Path)
		}
	}
	rec.stop(t)
}

// TestControlRefusesOtherMachinesWithoutTheToken serves on a non-loopback
// address of this machine, so the peer really is not loopback.
func TestControlRefusesOtherMachinesWithoutTheToken(t *testing.T) {
	ip := testutil.NonLoopbackIP(t)
	const token = "control-token-for-the-test"
	serve := func(cfg proxy.Config) string {
		srv, err := proxy.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		hs := httptest.NewUnstartedServer(srv)
		ln, err := net.Listen("tcp", net.JoinHostPort(ip.String(), "0"))
		if err != nil {
			t.Fatal(err)
		}
		hs.Listener.Close()
		hs.Listener = ln
		hs.Start()
		t.Cleanup(hs.Close)
		return hs.URL
	}
	dir := t.TempDir()
	open := serve(withHints(proxy.Config{Mode: proxy.ModeReplay, Dir: dir}, proxy.Hints{Control: "start it with --control-token"}))
	guarded := serve(proxy.Config{Mode: proxy.ModeReplay, Dir: dir, ControlToken: token})
	loopback := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir, ControlToken: token})

	for _, c := range []struct {
		what, base, token string
		want              int
		says              string
	}{
		{"no token configured", open, "", http.StatusForbidden, "--control-token"},
		{"no token configured, one sent", open, token, http.StatusForbidden, "only loopback peers"},
		{"token configured, none sent", guarded, "", http.StatusUnauthorized, "Authorization: Bearer"},
		{"wrong token", guarded, token + "x", http.StatusUnauthorized, "not the control token"},
		{"right token", guarded, token, http.StatusOK, `"status": "ok"`},
		{"loopback peer, no token", loopback.URL, "", http.StatusOK, `"status": "ok"`},
		{"loopback peer, wrong token", loopback.URL, "nope", http.StatusUnauthorized, "not the control token"},
	} {
		code, body := control(t, http.MethodGet, c.base+proxyopt.ControlHealth, c.token, "")
		if code != c.want || !strings.Contains(body, c.says) {
			t.Errorf("%s: %d %s, want %d saying %q", c.what, code, body, c.want, c.says)
		}
	}
	// Model traffic from other machines is not the control API's business.
	if code, _ := control(t, http.MethodPost, open+generatePath, "", `{}`); code == http.StatusForbidden {
		t.Error("a model request from a non-loopback peer was refused like a control request")
	}
}
