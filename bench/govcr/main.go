// Command govcr serves the benchmark exchange from a go-vcr v4 cassette: a
// net/http handler hands each request to a go-vcr recorder in
// ModeReplayOnly (latency simulation skipped, interactions replayable, a
// JSON body matcher) and copies the recorded response back. go-vcr is an
// in-process library, so this is the cost of its lookup behind the same
// HTTP server as the static target: an in-process reference, not a proxy.
//
//	govcr -write CASSETTE     # record the exchange into CASSETTE.yaml with go-vcr itself
//	govcr -cassette CASSETTE -addr-file FILE
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"log"
	"net/http"
	"os"
	"strconv"
	"sync"

	"github.com/adkproxy/adkproxy/bench/harness"
	"github.com/adkproxy/adkproxy/internal/testing/workload"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/recorder"
)

// origin is the made-up upstream the cassette's URLs name.
const origin = "http://gemini.bench.invalid"

func main() {
	write := flag.String("write", "", "record the benchmark exchange into `CASSETTE`.yaml and exit")
	name := flag.String("cassette", "", "replay `CASSETTE`.yaml")
	listen := flag.String("listen", "127.0.0.1:0", "loopback `ADDR` to listen on")
	addrFile := flag.String("addr-file", "", "write the address listened on to `FILE`")
	flag.Parse()
	if *write != "" {
		if err := writeCassette(*write); err != nil {
			log.Fatal(err)
		}
		return
	}
	if *name == "" {
		log.Fatal("-cassette or -write is required")
	}
	rec, err := recorder.New(*name,
		recorder.WithMode(recorder.ModeReplayOnly),
		recorder.WithSkipRequestLatency(true),
		recorder.WithReplayableInteractions(true),
		recorder.WithMatcher(newJSONMatcher().match),
	)
	if err != nil {
		log.Fatal(err)
	}
	if err := harness.ServeLoopback(*listen, *addrFile, handler(rec)); err != nil {
		log.Fatal(err)
	}
}

// handler forwards every request to the recorder, as a test's HTTP client
// with the recorder as its transport would.
func handler(rec *recorder.Recorder) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		out, err := http.NewRequestWithContext(r.Context(), r.Method, origin+r.URL.RequestURI(), bytes.NewReader(body))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		out.Header = r.Header.Clone()
		resp, err := rec.RoundTrip(out)
		if errors.Is(err, cassette.ErrInteractionNotFound) {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		defer resp.Body.Close()
		h := w.Header()
		for k, v := range resp.Header {
			h[k] = v
		}
		h["Date"] = nil
		if resp.ContentLength >= 0 {
			h.Set("Content-Length", strconv.FormatInt(resp.ContentLength, 10))
		}
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
	})
}

// jsonMatcher matches method, URL and the body compared as parsed JSON
// (object keys in any order). Recorded bodies are parsed once.
type jsonMatcher struct {
	recorded sync.Map // recorded body -> canonical form
}

func newJSONMatcher() *jsonMatcher { return &jsonMatcher{} }

func canonicalJSON(b []byte) (string, bool) {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return "", false
	}
	out, err := json.Marshal(v) // map keys come out sorted
	if err != nil {
		return "", false
	}
	return string(out), true
}

func (m *jsonMatcher) match(r *http.Request, i cassette.Request) bool {
	if r.Method != i.Method || r.URL.String() != i.URL {
		return false
	}
	var body []byte
	if r.Body != nil {
		var err error
		if body, err = io.ReadAll(r.Body); err != nil {
			return false
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	want, ok := m.recorded.Load(i.Body)
	if !ok {
		c, isJSON := canonicalJSON([]byte(i.Body))
		if !isJSON {
			c = "raw:" + i.Body
		}
		want, _ = m.recorded.LoadOrStore(i.Body, c)
	}
	got, isJSON := canonicalJSON(body)
	if !isJSON {
		got = "raw:" + string(body)
	}
	return got == want.(string)
}

// fakeUpstream answers the two benchmark calls, for go-vcr to record.
type fakeUpstream struct{}

func (fakeUpstream) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	body, ctype := workload.JSONResponse(), workload.JSONContentType
	if r.URL.RequestURI() == workload.SSEPath {
		body, ctype = workload.SSEBody(), workload.SSEContentType
	}
	return &http.Response{
		Status: "200 OK", StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {ctype}},
		ContentLength: int64(len(body)),
		Body:          io.NopCloser(bytes.NewReader(body)),
		Request:       r,
	}, nil
}

// writeCassette records the JSON and the SSE call through go-vcr in
// ModeRecordOnly, so the cassette is in go-vcr's own format.
func writeCassette(name string) error {
	os.Remove(name + ".yaml")
	rec, err := recorder.New(name,
		recorder.WithMode(recorder.ModeRecordOnly),
		recorder.WithRealTransport(fakeUpstream{}),
		recorder.WithSkipRequestLatency(true),
	)
	if err != nil {
		return err
	}
	client := rec.GetDefaultClient()
	for _, path := range []string{workload.JSONPath, workload.SSEPath} {
		req, err := http.NewRequest(http.MethodPost, origin+path, bytes.NewReader(workload.Request()))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	return rec.Stop()
}
