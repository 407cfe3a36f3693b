package proxy_test

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/proxy"
)

const generatePath = "/v1beta/models/gemini-2.5-flash:generateContent"

// countingUpstream answers each call with its sequence number, so replay
// order is visible.
func countingUpstream() (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		fmt.Fprintf(w, "{\n  \"call\": %d\n}\n", n.Add(1))
	})), &n
}

func body(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// record sends the requests through a recording proxy and returns the dir.
func record(t *testing.T, upstream string, requests ...string) string {
	t.Helper()
	dir := testutil.OutDir(t)
	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, upstream)})
	for _, r := range requests {
		body(t, post(t, rec.URL, generatePath, nil, r))
	}
	rec.stop(t)
	return dir
}

func TestIdenticalRequestsReplayInRecordedOrder(t *testing.T) {
	up, _ := countingUpstream()
	defer up.Close()
	same := `{"contents":[{"role":"user","parts":[{"text":"poll"}]}]}`
	dir := record(t, up.URL, same, same, same)
	up.Close()

	const hint = "ask for repeats"
	rep := startProxy(t, withHints(proxy.Config{Mode: proxy.ModeReplay, Dir: dir}, proxy.Hints{UsedUp: hint}))
	for i := 1; i <= 3; i++ {
		if got, want := body(t, post(t, rep.URL, generatePath, nil, same)), fmt.Sprintf("{\n  \"call\": %d\n}\n", i); got != want {
			t.Fatalf("replay %d: got %q, want %q", i, got, want)
		}
	}
	resp := post(t, rep.URL, generatePath, nil, same)
	msg := body(t, resp)
	if resp.StatusCode != 400 || !strings.Contains(msg, "all 3 recorded answers") || !strings.Contains(msg, "were already used; "+hint) {
		t.Fatalf("fourth identical request: %d %s", resp.StatusCode, msg)
	}

	repeats := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir, AllowRepeats: true})
	for i, want := range []int{1, 2, 3, 3, 3} {
		if got := body(t, post(t, repeats.URL, generatePath, nil, same)); got != fmt.Sprintf("{\n  \"call\": %d\n}\n", want) {
			t.Fatalf("with --allow-repeats, request %d got %q, want call %d", i+1, got, want)
		}
	}
}

// TestMatchingIgnoresKeyOrderAndNumberSpelling: a body that differs only in
// JSON formatting (another SDK) still matches; headers never matter.
func TestMatchingIgnoresKeyOrderAndNumberSpelling(t *testing.T) {
	up, _ := countingUpstream()
	defer up.Close()
	dir := record(t, up.URL, `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"generationConfig":{"temperature":1.0,"topK":40}}`)
	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir})
	other := "{ \"generationConfig\": {\"topK\": 4e1, \"temperature\": 1}, \"contents\": [{\"parts\": [{\"text\": \"hi\"}], \"role\": \"user\"}] }"
	resp := post(t, rep.URL, generatePath, http.Header{"User-Agent": {"another-sdk/9"}, "X-Goog-Api-Client": {"gl-python/3.13"}}, other)
	if resp.StatusCode != 200 {
		t.Fatalf("reformatted body did not match: %d %s", resp.StatusCode, body(t, resp))
	}
	resp.Body.Close()
}

// TestUnmatchedRequestGetsGeminiErrorWithDiff: the 400 body has Gemini's
// error shape and says which cassette and which field differs.
func TestUnmatchedRequestGetsGeminiErrorWithDiff(t *testing.T) {
	up, _ := countingUpstream()
	defer up.Close()
	recorded := `{"contents":[{"role":"user","parts":[{"text":"weather?"}]},{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}}}]},{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"temp_c":15}}}]}]}`
	dir := record(t, up.URL, recorded)
	const hint = "Accept it with the lenient switch."
	rep := startProxy(t, withHints(proxy.Config{Mode: proxy.ModeReplay, Dir: dir}, proxy.Hints{Mismatch: hint}))
	changed := strings.Replace(recorded, `"temp_c":15`, `"temp_c":23`, 1)
	resp := post(t, rep.URL, generatePath, nil, changed)
	if resp.StatusCode != 400 || resp.Header.Get("Content-Type") != "application/json; charset=UTF-8" {
		t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var e struct {
		Error struct {
			Code    int    `json:"code"`
			Status  string `json:"status"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(body(t, resp)), &e); err != nil {
		t.Fatal(err)
	}
	if e.Error.Code != 400 || e.Error.Status != "FAILED_PRECONDITION" || !strings.HasPrefix(e.Error.Message, "adkproxy: ") {
		t.Fatalf("error body %+v", e.Error)
	}
	for _, want := range []string{`cassette "default", session 1, invocation 1 ("weather?"), step 0, agent gemini-2.5-flash`, // its only recorded step
		"contents[2].parts[get_weather].functionResponse.response.temp_c: recorded 15, got 23\n" + hint} {
		if !strings.Contains(e.Error.Message, want) {
			t.Errorf("message lacks %q:\n%s", want, e.Error.Message)
		}
	}
	if st := rep.Stats(); st.Mismatched != 1 || st.Unmatched != 0 || len(rep.Misses()) != 1 {
		t.Fatalf("stats %+v, misses %d", st, len(rep.Misses()))
	}
}

// TestReplayNeverDialsUpstream: replay has no upstream client at all; even
// a configured upstream sees no connection, hit or miss.
func TestReplayNeverDialsUpstream(t *testing.T) {
	up, _ := countingUpstream()
	dir := record(t, up.URL, `{"a":1}`)
	up.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var dials atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			dials.Add(1)
			c.Close()
		}
	}()
	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir, Upstream: mustURL(t, "http://"+ln.Addr().String())})
	body(t, post(t, rep.URL, generatePath, nil, `{"a":1}`))
	body(t, post(t, rep.URL, generatePath, nil, `{"a":2}`))
	body(t, post(t, rep.URL, "/v1beta/models", nil, ``))
	if rep.Stats().Replayed != 1 || rep.Stats().Unmatched != 2 {
		t.Fatalf("stats %+v", rep.Stats())
	}
	// Confirm the counter works, so zero means zero.
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	// The probe is accepted on another goroutine: wait for it, boundedly.
	deadline := time.After(10 * time.Second)
	for dials.Load() == 0 {
		select {
		case <-deadline:
			t.Fatal("the probe connection was not counted within 10s: the counter is broken, so it cannot show that replay dialed nothing")
		case <-time.After(time.Millisecond):
		}
	}
	if n := dials.Load(); n != 1 {
		t.Fatalf("upstream saw %d connections from replay, want 0 (plus our own probe)", n-1)
	}
}

// TestReplayHoldsNoUpstreamTransport: a replay server keeps no upstream
// client, even one given in its Config, so it has no way to dial; a record
// server keeps the one it is given.
func TestReplayHoldsNoUpstreamTransport(t *testing.T) {
	given := &http.Transport{}
	dir := testutil.OutDir(t)
	rep, err := proxy.New(proxy.Config{Mode: proxy.ModeReplay, Dir: dir, Transport: given})
	if err != nil {
		t.Fatal(err)
	}
	if tr := proxy.UpstreamTransport(rep); tr != nil {
		t.Fatalf("replay server holds an upstream transport %T", tr)
	}
	rec, err := proxy.New(proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Transport: given})
	if err != nil {
		t.Fatal(err)
	}
	if tr := proxy.UpstreamTransport(rec); tr != given {
		t.Fatalf("record server holds %T, not the transport it was given", tr)
	}
}

func TestRedactValuesNeverReachDiskAndStillReplay(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		w.Header().Set("X-Goog-Upload-Url", "https://upload.example/x?key="+testutil.SecretQueryKey)
		fmt.Fprintf(w, "{\n  \"echo\": %q\n}\n", b) // the answer repeats the secret
	}))
	defer up.Close()
	dir := testutil.OutDir(t)
	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL),
		Redactor: cassettes.NewRedactor(testutil.SecretRedactArg)})
	request := `{"contents":[{"role":"user","parts":[{"text":"my id is ` + testutil.SecretRedactArg + `"}]}]}`
	hdr := http.Header{"X-Goog-Api-Key": {testutil.SecretAPIKey}, "Authorization": {"Bearer " + testutil.SecretBearer}}
	got := body(t, post(t, rec.URL, generatePath+"?key="+testutil.SecretQueryKey+"&alt=json", hdr, request))
	if !strings.Contains(got, testutil.SecretRedactArg) {
		t.Fatalf("the live answer must be unredacted, got %s", got)
	}
	rec.stop(t)
	for _, s := range []string{testutil.SecretRedactArg, testutil.SecretAPIKey, testutil.SecretBearer, testutil.SecretQueryKey} {
		if n := testutil.CountInDir(t, dir, s); n != 0 {
			t.Errorf("secret %d chars long appears %d times on disk", len(s), n)
		}
	}
	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir, Redactor: cassettes.NewRedactor(testutil.SecretRedactArg)})
	resp := post(t, rep.URL, generatePath+"?alt=json", nil, request)
	if resp.StatusCode != 200 {
		t.Fatalf("redacted request did not replay: %s", body(t, resp))
	}
	if b := body(t, resp); !strings.Contains(b, cassettes.Placeholder) {
		t.Fatalf("replayed answer %q should carry the placeholder", b)
	}
}

func TestCassetteChosenPerRequest(t *testing.T) {
	up, _ := countingUpstream()
	defer up.Close()
	dir := testutil.OutDir(t)
	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL)})
	body(t, post(t, rec.URL, generatePath, http.Header{"X-Adkproxy-Cassette": {"suite/first test"}}, `{"n":1}`))
	body(t, post(t, rec.URL, generatePath, http.Header{"Test-Name": {"TestSecond"}}, `{"n":2}`))
	for _, bad := range []string{"../escape", "/abs", "a//b"} {
		resp := post(t, rec.URL, generatePath, http.Header{"X-Adkproxy-Cassette": {bad}}, `{}`)
		if msg := body(t, resp); resp.StatusCode != 400 || !strings.Contains(msg, "INVALID_ARGUMENT") {
			t.Errorf("cassette name %q: %d %s", bad, resp.StatusCode, msg)
		}
	}
	rec.stop(t)
	matches, _ := filepath.Glob(filepath.Join(dir, "suite", "first_test-*.yaml"))
	if len(matches) != 1 {
		t.Fatalf("want suite/first_test-<hash>.yaml, found %v", matches)
	}
	c, err := cassettes.Load(matches[0])
	if err != nil || c.Name != "suite/first test" {
		t.Fatalf("cassette name %q, err %v", c.Name, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "TestSecond.yaml")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "default.yaml")); err == nil {
		t.Fatal("no request used the default cassette, yet it was written")
	}

	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir})
	// Each cassette only answers its own requests.
	if resp := post(t, rep.URL, generatePath, http.Header{"X-Adkproxy-Cassette": {"TestSecond"}}, `{"n":1}`); resp.StatusCode != 400 {
		t.Fatalf("request from another cassette matched: %s", body(t, resp))
	}
	if resp := post(t, rep.URL, generatePath, http.Header{"X-Adkproxy-Cassette": {"suite/first test"}}, `{"n":1}`); resp.StatusCode != 200 {
		t.Fatalf("request did not match its cassette: %s", body(t, resp))
	}
	resp := post(t, rep.URL, generatePath, http.Header{"X-Adkproxy-Cassette": {"never-recorded"}}, `{"n":1}`)
	if msg := body(t, resp); resp.StatusCode != 400 || !strings.Contains(msg, "no such cassette") {
		t.Fatalf("unknown cassette: %d %s", resp.StatusCode, msg)
	}
}

func TestGzipResponsesAreStoredDecoded(t *testing.T) {
	const plain = "{\n  \"text\": \"compressed answer\"\n}\n"
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			io.WriteString(w, plain)
			return
		}
		w.Header().Set("Content-Encoding", "gzip")
		gz := gzip.NewWriter(w)
		io.WriteString(gz, plain)
		gz.Close()
	}))
	defer up.Close()
	dir := record(t, up.URL, `{"q":1}`)
	data, _ := os.ReadFile(filepath.Join(dir, "default.yaml"))
	if !strings.Contains(string(data), "compressed answer") || strings.Contains(string(data), "Content-Encoding") {
		t.Fatalf("cassette should hold the decoded body and no Content-Encoding:\n%s", data)
	}
	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir})
	if got := body(t, post(t, rep.URL, generatePath, nil, `{"q":1}`)); got != plain {
		t.Fatalf("replayed %q", got)
	}
}

func TestOversizedRequestGets413(t *testing.T) {
	rep := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: testutil.OutDir(t), Upstream: mustURL(t, "http://127.0.0.1:1"), MaxBody: 1024})
	resp := post(t, rep.URL, generatePath, nil, `{"x":"`+strings.Repeat("a", 2048)+`"}`)
	// Without hints the library's message names no flag of any program.
	if msg := body(t, resp); resp.StatusCode != 413 || !strings.Contains(msg, "larger than 1024 bytes") || strings.Contains(msg, "--") {
		t.Fatalf("%d %s", resp.StatusCode, msg)
	}
}

func TestUnreachableUpstreamIs502AndNotRecorded(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	dir := testutil.OutDir(t)
	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, "http://"+addr)})
	resp := post(t, rec.URL, generatePath, nil, `{}`)
	if msg := body(t, resp); resp.StatusCode != 502 || !strings.Contains(msg, `"UNAVAILABLE"`) {
		t.Fatalf("%d %s", resp.StatusCode, msg)
	}
	rec.stop(t)
	if _, err := os.Stat(filepath.Join(dir, "default.yaml")); err == nil {
		t.Fatal("a failed forward was recorded")
	}
}

func TestUpstreamErrorsAreRecordedAndReplayed(t *testing.T) {
	for _, code := range []int{429, 500, 503} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			errBody := fmt.Sprintf("{\n  \"error\": {\n    \"code\": %d,\n    \"message\": \"try later\",\n    \"status\": \"X\"\n  }\n}\n", code)
			up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json; charset=UTF-8")
				w.Header().Set("Retry-After", "7")
				w.WriteHeader(code)
				io.WriteString(w, errBody)
			}))
			defer up.Close()
			dir := record(t, up.URL, `{"q":1}`)
			rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir})
			resp := post(t, rep.URL, generatePath, nil, `{"q":1}`)
			if got := body(t, resp); resp.StatusCode != code || got != errBody || resp.Header.Get("Retry-After") != "7" {
				t.Fatalf("replayed %d %q (Retry-After %q)", resp.StatusCode, got, resp.Header.Get("Retry-After"))
			}
		})
	}
}
