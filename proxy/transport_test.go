package proxy_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/matcher"
	"github.com/adkproxy/adkproxy/proxy"
)

// The in-process transport records through the Server's handler into the
// cassette the request names, and replays from it with no upstream at all.
func TestTransportRecordsAndReplaysInProcess(t *testing.T) {
	dir := testutil.OutDir(t)
	up := httptest.NewServer(&fakegemini.Handler{})
	rec, err := proxy.New(proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL)})
	if err != nil {
		t.Fatal(err)
	}
	const path = "/v1beta/models/gemini-2.5-flash:generateContent"
	body := `{"contents": [{"role": "user", "parts": [{"text": "Hello there"}]}]}`
	do := func(srv *proxy.Server, body string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, "http://never-dialled.invalid"+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(proxy.HeaderCassette, "in/process")
		req.Header.Set(proxy.HeaderInvocation, "case/1/metric/1")
		resp, err := (&http.Client{Transport: srv.Transport()}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, string(b)
	}
	resp, recorded := do(rec, body)
	if resp.StatusCode != 200 || !strings.Contains(recorded, "Hello there") {
		t.Fatalf("record: %d %s", resp.StatusCode, recorded)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	up.Close()
	c, err := cassettes.Load(dir + "/in/process.yaml")
	if err != nil || len(c.Exchanges) != 1 || c.Exchanges[0].Place == nil || c.Exchanges[0].Place.Tag != "case/1/metric/1" {
		t.Fatalf("cassette: %v %+v", err, c)
	}

	rep, err := proxy.New(proxy.Config{Mode: proxy.ModeReplay, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	resp, replayed := do(rep, body)
	if resp.StatusCode != 200 || replayed != recorded || resp.ContentLength != int64(len(recorded)) {
		t.Errorf("replay: %d %q, want %q", resp.StatusCode, replayed, recorded)
	}
	resp, miss := do(rep, strings.Replace(body, "Hello there", "Hello again", 1))
	if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("X-Adkproxy-Error") != "FAILED_PRECONDITION" ||
		!strings.Contains(miss, "adkproxy: ") || !strings.Contains(miss, "contents[0].parts[0].text") {
		t.Errorf("miss: %d %s", resp.StatusCode, miss)
	}
}

// A recording that ended in a broken connection breaks the client's call
// the same way: an error, not a clean short answer.
func TestTransportReportsBrokenAnswers(t *testing.T) {
	dir := t.TempDir()
	const path = "/v1beta/models/m:generateContent"
	x := &cassettes.Exchange{
		Request:  cassettes.Request{Method: http.MethodPost, Path: path, Body: []byte(`{"contents": []}`)},
		Response: cassettes.Response{Status: 200, Body: []byte(`{"cand`), End: cassettes.EndReset},
	}
	if err := cassettes.Save(dir+"/default.yaml", &cassettes.Cassette{Name: "default", Exchanges: []*cassettes.Exchange{x}}, nil); err != nil {
		t.Fatal(err)
	}
	rep, err := proxy.New(proxy.Config{Mode: proxy.ModeReplay, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, "http://x.invalid"+path, strings.NewReader(`{"contents": []}`))
	_, err = rep.Transport().RoundTrip(req)
	if !errors.Is(err, proxy.ErrAborted) {
		t.Errorf("RoundTrip error %v, want ErrAborted", err)
	}
}

// A call whose prompt changed entirely (one user content, a new text) is
// still compared with the recording made under its X-Adkproxy-Invocation
// name: lenient replay serves that recording and reports the field that
// differs, strict replay refuses it with the same difference.
func TestTaggedCallIsComparedWithItsRecording(t *testing.T) {
	dir := testutil.OutDir(t)
	up := httptest.NewServer(&fakegemini.Handler{})
	defer up.Close()
	const path = "/v1beta/models/gemini-2.5-flash:generateContent"
	call := func(srv *proxy.Server, tag, text string) (int, string) {
		t.Helper()
		body := `{"contents": [{"role": "user", "parts": [{"text": "` + text + `"}]}]}`
		req, _ := http.NewRequest(http.MethodPost, "http://never-dialled.invalid"+path, strings.NewReader(body))
		req.Header.Set(proxy.HeaderCassette, "sim")
		req.Header.Set(proxy.HeaderInvocation, tag)
		resp, err := (&http.Client{Transport: srv.Transport()}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, string(b)
	}
	rec, err := proxy.New(proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL)})
	if err != nil {
		t.Fatal(err)
	}
	_, first := call(rec, "s/2", "agent said: sunny in Paris")
	_, second := call(rec, "s/3", "agent said: rainy in Rome")
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"lenient", "strict"} {
		rep, err := proxy.New(proxy.Config{Mode: proxy.ModeReplay, Lenient: mode == "lenient", Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		status, got := call(rep, "s/2", "agent said: cloudy in Paris")
		misses := rep.Misses()
		if len(misses) != 1 || misses[0].Outcome != matcher.OutcomeMismatched || len(misses[0].Diffs) == 0 ||
			misses[0].Diffs[0].Path != "contents[0].parts[0].text" {
			t.Fatalf("%s: misses %+v", mode, misses)
		}
		if mode == "lenient" && (status != 200 || got != first) {
			t.Errorf("lenient: %d %s, want the recording of s/2 %s", status, got, first)
		}
		if mode == "strict" && (status != http.StatusBadRequest || !strings.Contains(got, "contents[0].parts[0].text")) {
			t.Errorf("strict: %d %s", status, got)
		}
		if status, got := call(rep, "s/3", "agent said: rainy in Rome"); status != 200 || got != second {
			t.Errorf("%s: s/3 %d %s", mode, status, got)
		}
	}
}

// An upstream that never ends its answer (a hostile --judge-base-url) is
// broken off at MaxBody with an error wrapping ErrAborted: the in-process
// transport buffers an answer, and used to buffer this one until the
// process ran out of memory.
func TestTransportBreaksOffAnEndlessAnswer(t *testing.T) {
	const maxBody = 64 << 10
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"candidates": [{"content": {"parts": [{"text": "`))
		chunk := []byte(strings.Repeat("x", 4096))
		for sent := 0; sent < 256*maxBody; sent += len(chunk) { // endless, as far as the cap is concerned
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer up.Close()
	rec, err := proxy.New(proxy.Config{Mode: proxy.ModeRecord, Dir: t.TempDir(), Upstream: mustURL(t, up.URL), MaxBody: maxBody})
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	req, _ := http.NewRequest(http.MethodPost, "http://never-dialled.invalid/v1beta/models/m:generateContent", strings.NewReader(`{"contents": []}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := rec.Transport().RoundTrip(req)
	if resp != nil {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("RoundTrip gave %d with %d bytes (err %v), want the answer broken off at %d bytes", resp.StatusCode, len(b), err, maxBody)
	}
	if !errors.Is(err, proxy.ErrAborted) || !strings.Contains(err.Error(), "over 65536 bytes (--max-body)") {
		t.Fatalf("RoundTrip error %v, want ErrAborted naming the size and --max-body", err)
	}
}
