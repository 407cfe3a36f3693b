package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/feature/report/otlpexport"
	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/scoring"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	statuspb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/protobuf/proto"
)

// Tests of the export command (named exportcmd_test.go because export_test.go
// is Go's convention for test-only exports of a package).

// exportedSet is the part of an exported eval set the tests look at.
type exportedSet struct {
	EvalCases []struct {
		EvalID string `json:"eval_id"`
	} `json:"eval_cases"`
}

func TestExportTheDemo(t *testing.T) {
	t.Parallel()
	_, loaded, err := cassettes.LoadPath(weatherCassette)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer // what the eval set says: scoring/weather_example_test.go
	if err := scoring.WriteEvalSet(&want, "cassettes", scoring.SessionsOf(loaded)); err != nil {
		t.Fatal(err)
	}
	// Named after the cassette folder.
	r := adkproxy(t, nil, "export", "--cassettes", weatherCassette, "--format", "evalset")
	if r.code != 0 || r.stderr != "" || r.stdout != want.String() {
		t.Fatalf("exit %d\nstderr:\n%s\nstdout:\n%s\nwant:\n%s", r.code, r.stderr, r.stdout, want.String())
	}
	// The demo's eval set id, from --out or given.
	out := filepath.Join(t.TempDir(), "golden.evalset.json")
	r = adkproxy(t, nil, "export", "--cassettes", weatherCassette, "--out", out)
	data, _ := os.ReadFile(out)
	if r.code != 0 || r.stdout != "" || !strings.Contains(r.stderr, `wrote eval set "golden" to `+out+": 1 eval case(s), 2 invocation(s)") ||
		!strings.Contains(string(data), `"eval_set_id": "golden"`) {
		t.Errorf("--out: exit %d, stderr %q", r.code, r.stderr)
	}
	r = adkproxy(t, nil, "export", "--cassettes", weatherCassette, "--eval-set-id", "demo_v2")
	if r.code != 0 || !strings.Contains(r.stdout, `"eval_set_id": "demo_v2"`) {
		t.Errorf("--eval-set-id: exit %d\n%s", r.code, r.stdout)
	}
}

// A golden run becomes an eval set, and scoring the same cassettes against
// it passes every case with ADK's default criteria: export and score agree
// on names (a cassette with several sessions gives "<cassette>/<session>")
// and on every field they compare.
func TestExportThenScoreRoundTrip(t *testing.T) {
	t.Parallel()
	dir := testutil.OutDir(t)
	data, err := os.ReadFile(filepath.Join(weatherCassette, "default.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "default.yaml"), data, 0o644)
	// Two more sessions, in one cassette, recorded from the fake upstream.
	up := httptest.NewServer(&fakegemini.Handler{})
	defer up.Close()
	for _, q := range []string{"Tell me a joke.", "How are you today?"} {
		rec := adkproxy(t, []string{"QUESTION=" + q},
			append([]string{"record", "--cassettes", dir, "--cassette", "chat", "--mode", "new-episodes", "--upstream", up.URL}, self("ask")...)...)
		if rec.code != 0 {
			t.Fatalf("record: exit %d\n%s", rec.code, rec.stderr)
		}
	}

	golden := filepath.Join(t.TempDir(), "golden.evalset.json")
	r := adkproxy(t, nil, "export", "--cassettes", dir, "--format", "evalset", "--out", golden)
	if r.code != 0 {
		t.Fatalf("export: exit %d\n%s", r.code, r.stderr)
	}
	first, _ := os.ReadFile(golden)
	var set exportedSet
	if err := json.Unmarshal(first, &set); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range set.EvalCases {
		ids = append(ids, c.EvalID)
	}
	if !reflect.DeepEqual(ids, []string{"chat/1", "chat/2", "default"}) {
		t.Fatalf("eval ids %v", ids)
	}
	// Exporting again gives the same bytes (no timestamps, no call ids).
	r = adkproxy(t, nil, "export", "--cassettes", dir, "--eval-set-id", "golden")
	if r.code != 0 || r.stdout != string(first) {
		t.Errorf("second export differs: exit %d\n%s", r.code, r.stdout)
	}

	r = adkproxy(t, nil, "score", "--cassettes", dir, "--expected", golden)
	if r.code != 0 || r.stderr != "" || !strings.Contains(r.stdout, "\nPASSED: 3 of 3 cases passed; 6 of 6 criteria passed\n") {
		t.Fatalf("score: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	r = adkproxy(t, nil, "score", "--cassettes", dir, "--expected", golden, "--format", "json")
	var res struct {
		Cases []struct {
			EvalID  string `json:"eval_id"`
			Status  int    `json:"final_eval_status"`
			Overall []struct {
				Metric string   `json:"metric_name"`
				Score  *float64 `json:"score"`
				Status int      `json:"eval_status"`
			} `json:"overall_eval_metric_results"`
		} `json:"eval_case_results"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || r.code != 0 || len(res.Cases) != 3 {
		t.Fatalf("json: exit %d, %v\n%s", r.code, err, r.stdout)
	}
	for _, c := range res.Cases {
		if c.Status != 1 || len(c.Overall) != 2 {
			t.Errorf("%s: %+v", c.EvalID, c)
		}
		for _, m := range c.Overall {
			if m.Status != 1 || m.Score == nil || *m.Score != 1 {
				t.Errorf("%s %s: %+v", c.EvalID, m.Metric, m)
			}
		}
	}
	// The cassette folder itself also serves as the expectation (golden run).
	r = adkproxy(t, nil, "score", "--cassettes", dir, "--expected", dir)
	if r.code != 0 || !strings.Contains(r.stdout, "\nPASSED: 3 of 3 cases passed") {
		t.Errorf("golden folder: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

func TestExportExitStatuses(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	aFile := filepath.Join(tmp, "file")
	os.WriteFile(aFile, []byte("x"), 0o644)
	empty := filepath.Join(tmp, "empty")
	os.MkdirAll(empty, 0o755)
	for _, tc := range []struct {
		code int
		args []string
		in   string
	}{
		{exitUsage, []string{"export"}, "--cassettes PATH is required"},
		{exitUsage, []string{"export", "--cassettes", weatherCassette, "--format", "csv"}, `--format "csv": want evalset`},
		{exitUsage, []string{"export", "--cassettes", weatherCassette, "out.json"}, "name different cassettes"},
		{exitDataErr, []string{"export", "--cassettes", filepath.Join(tmp, "missing")}, "does not exist"},
		{exitDataErr, []string{"export", "--cassettes", empty}, "no recorded session in"},
		{exitCantWrite, []string{"export", "--cassettes", weatherCassette, "--out", filepath.Join(aFile, "x.evalset.json")}, "--out:"},
	} {
		r := adkproxy(t, nil, tc.args...)
		if r.code != tc.code || !strings.HasPrefix(r.stderr, "adkproxy: ") || !strings.Contains(r.stderr, tc.in) || strings.Count(r.stderr, "\n") > 1 {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, r.code, r.stderr, tc.code, tc.in)
		}
	}
}

func TestExportDefaultID(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ dir, out, want string }{
		{"examples/weather/cassettes", "", "cassettes"},
		{"testdata/cassettes/", "", "cassettes"},
		{"x", "evals/home.evalset.json", "home"},
		{"x", "home.json", "home"},
		{"x", "my-set v2.evalset.json", "my_set_v2"},
		{"x", ".evalset.json", "_evalset"},
		{"/", "", "adkproxy"},
	} {
		if got := exportDefaultID(tc.dir, tc.out); got != tc.want {
			t.Errorf("exportDefaultID(%q, %q) = %q, want %q", tc.dir, tc.out, got, tc.want)
		}
	}
}

// recordToolRun records the weather agent, its get_weather tool calling
// the weather API through the forward proxy, and returns the folder.
func recordToolRun(t *testing.T) string {
	dir := testutil.OutDir(t)
	public := newTestCA(t)
	model := testutil.StartCounting(t, &fakegemini.Handler{}, public.Leaf)
	weather := testutil.StartCounting(t, weatherAPI, public.Leaf)
	rec := adkproxy(t, []string{"ADKPROXY_CA_DIR=" + t.TempDir(), "WEATHER_URL=https://weather.example.test/v1/current",
		"WEATHER_KEY=" + testutil.SecretToolHeader, "WEATHER_TOKEN=" + testutil.SecretToolQuery, "GOOGLE_API_KEY=" + testutil.SecretAPIKey},
		append([]string{"record", "--cassettes", dir,
			"--connect-to", "generativelanguage.googleapis.com:443=" + model.Addr(),
			"--connect-to", "weather.example.test:443=" + weather.Addr(),
			"--upstream-ca", public.CertPath}, self("weather-agent")...)...)
	if rec.code != 0 {
		t.Fatalf("record: exit %d\n%s", rec.code, rec.stderr)
	}
	return dir
}

// traceReceiver is a loopback OTLP/HTTP receiver decoding requests with
// the OTLP types; status other than 200 answers with a google.rpc.Status.
func traceReceiver(t *testing.T, status int, message string) (*httptest.Server, func() []*coltracepb.ExportTraceServiceRequest) {
	// The handler runs on the server's goroutines while the test reads what
	// it got between runs of the binary: the mutex orders the two.
	var mu sync.Mutex
	var got []*coltracepb.ExportTraceServiceRequest
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req coltracepb.ExportTraceServiceRequest
		if r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" || proto.Unmarshal(body, &req) != nil {
			t.Errorf("receiver: %s %s (%s) does not decode", r.Method, r.URL.Path, r.Header.Get("Content-Type"))
		}
		mu.Lock()
		got = append(got, &req)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
		if status != http.StatusOK {
			w.WriteHeader(status)
			out, _ := proto.Marshal(&statuspb.Status{Code: 14, Message: message})
			w.Write(out)
			return
		}
		out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Write(out)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []*coltracepb.ExportTraceServiceRequest {
		mu.Lock()
		defer mu.Unlock()
		return append([]*coltracepb.ExportTraceServiceRequest(nil), got...)
	}
}

func spansOf(req *coltracepb.ExportTraceServiceRequest) []*tracepb.Span {
	var out []*tracepb.Span
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			out = append(out, ss.Spans...)
		}
	}
	return out
}

// TestExportOTLPOfAToolRun: a run recorded by the binary through the
// forward proxy exports, by the binary, as OTLP/JSON that the OTLP types
// read back (the tool's HTTP call a client span under its step, no
// credential in it), the same bytes twice; --otlp-endpoint sends the same
// request to a loopback receiver.
func TestExportOTLPOfAToolRun(t *testing.T) {
	t.Parallel()
	dir := recordToolRun(t)
	r := adkproxy(t, nil, "export", "--format", "otlp-json", dir)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	exported, err := otlpexport.UnmarshalJSON([]byte(r.stdout))
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*tracepb.Span{}
	for _, s := range spansOf(exported) {
		byName[s.Name] = s
	}
	get, gen, tool := byName["GET"], byName["generate_content gemini-2.5-flash"], byName["execute_tool get_weather"]
	if get == nil || tool == nil || gen == nil || len(spansOf(exported)) != 8 {
		t.Fatalf("spans %v", byName)
	}
	var url string
	for _, kv := range get.Attributes {
		if kv.Key == "url.full" {
			url = kv.Value.GetStringValue()
		}
	}
	if get.Kind != tracepb.Span_SPAN_KIND_CLIENT || string(get.ParentSpanId) != string(byName["execute_tool get_weather"].ParentSpanId) ||
		!strings.HasPrefix(url, "https://weather.example.test/v1/current?city=Paris") {
		t.Errorf("HTTP span %v", get)
	}
	for _, secret := range testutil.Secrets() {
		if strings.Contains(r.stdout, secret) {
			t.Errorf("a credential is in the export")
		}
	}
	if again := adkproxy(t, nil, "export", "--format", "otlp-json", dir); again.stdout != r.stdout {
		t.Error("a second export differs")
	}

	receiver, got := traceReceiver(t, http.StatusOK, "")
	out := filepath.Join(t.TempDir(), "traces.json")
	push := adkproxy(t, []string{"ADKPROXY_OTLP_ENDPOINT=" + receiver.URL}, "export", "--out", out, dir)
	if push.code != 0 || push.stdout != "" || !strings.Contains(push.stderr, "sent 1 trace(s), 8 span(s) to "+receiver.URL+"/v1/traces") {
		t.Fatalf("push: exit %d\nstdout %s\nstderr %s", push.code, push.stdout, push.stderr)
	}
	if len(got()) != 1 || !proto.Equal(got()[0], exported) {
		t.Errorf("the receiver got %d request(s), not the exported one", len(got()))
	}
	if written, _ := os.ReadFile(out); string(written) != r.stdout {
		t.Errorf("--out holds another export than stdout did")
	}
}

// TestExportOTLPErrors: a collector answering 500 exits 69 naming the
// endpoint and its message; an unreadable cassette exits 65 naming the
// file; --otlp-endpoint with the evalset format and a bad --trace-start
// are usage errors.
func TestExportOTLPErrors(t *testing.T) {
	t.Parallel()
	receiver, got := traceReceiver(t, http.StatusInternalServerError, "the span store is full")
	r := adkproxy(t, nil, "export", "--otlp-endpoint", receiver.URL, weatherCassette)
	if r.code != 69 || !strings.Contains(r.stderr, receiver.URL+"/v1/traces answered 500 Internal Server Error: the span store is full") || len(got()) != 1 {
		t.Errorf("collector 500: exit %d, %d request(s)\n%s", r.code, len(got()), r.stderr)
	}

	dir := t.TempDir()
	bad := filepath.Join(dir, "broken.yaml")
	os.WriteFile(bad, []byte("version: 2\nname: broken\nsessions: [\n"), 0o644)
	if r := adkproxy(t, nil, "export", "--format", "otlp-json", dir); r.code != 65 || !strings.Contains(r.stderr, "broken.yaml") || r.stdout != "" {
		t.Errorf("unreadable cassette: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}

	for _, args := range [][]string{
		{"--format", "evalset", "--otlp-endpoint", receiver.URL},
		{"--format", "otlp-json", "--trace-start", "yesterday"},
		{"--otlp-endpoint", "localhost:4318"},
	} {
		if r := adkproxy(t, nil, append(append([]string{"export"}, args...), weatherCassette)...); r.code != 64 {
			t.Errorf("%v: exit %d, want 64\n%s", args, r.code, r.stderr)
		}
	}
}

// TestExportOTLPTraceStart: --trace-start moves the run to that time.
func TestExportOTLPTraceStart(t *testing.T) {
	t.Parallel()
	r := adkproxy(t, nil, "export", "--format", "otlp-json", "--trace-start", "2026-07-01T12:00:00Z", weatherCassette)
	req, err := otlpexport.UnmarshalJSON([]byte(r.stdout))
	if r.code != 0 || err != nil {
		t.Fatalf("exit %d, %v\n%s", r.code, err, r.stderr)
	}
	if first := spansOf(req)[0]; first.Name != "invocation" || first.StartTimeUnixNano != 1782907200000000000 {
		t.Errorf("first span %s starts at %d", first.Name, first.StartTimeUnixNano)
	}
}

// A collector that answers 307 to another host:port does not get the
// traces sent there: the push is refused naming both, exit 69, unless
// --allow-redirect names that origin.
func TestExportOTLPRefusesRedirectToAnotherOrigin(t *testing.T) {
	t.Parallel()
	other, got := traceReceiver(t, http.StatusOK, "")
	redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer redirecting.Close()
	r := adkproxy(t, nil, "export", "--otlp-endpoint", redirecting.URL, weatherCassette)
	if r.code != 69 || !strings.Contains(r.stderr, "refused the redirect (HTTP 307)") || !strings.Contains(r.stderr, other.URL+"/v1/traces") || strings.Contains(r.stderr, "adkproxy: sent") {
		t.Errorf("exit %d, want 69 naming the refused redirect\n%s", r.code, r.stderr)
	}
	if len(got()) != 0 {
		t.Fatalf("the other origin got %d push(es)", len(got()))
	}
	r = adkproxy(t, nil, "export", "--otlp-endpoint", redirecting.URL, "--allow-redirect", strings.TrimPrefix(other.URL, "http://"), weatherCassette)
	if r.code != 0 || len(got()) != 1 {
		t.Errorf("with --allow-redirect: exit %d, %d push(es)\n%s", r.code, len(got()), r.stderr)
	}
}
