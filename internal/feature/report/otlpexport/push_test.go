package otlpexport_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	statuspb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/recorded"
	"github.com/adkproxy/adkproxy/internal/feature/report/otlpexport"
)

// receiver is a loopback OTLP/HTTP trace receiver: it decodes what it is
// sent with the OTLP types and answers with answer (nil: an empty
// ExportTraceServiceResponse).
type receiver struct {
	*httptest.Server
	got         []*coltracepb.ExportTraceServiceRequest
	paths       []string
	contentType string
}

func newReceiver(t *testing.T, answer func(w http.ResponseWriter)) *receiver {
	r := &receiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.paths = append(r.paths, req.Method+" "+req.URL.Path)
		r.contentType = req.Header.Get("Content-Type")
		var in coltracepb.ExportTraceServiceRequest
		if err := proto.Unmarshal(body, &in); err != nil {
			t.Errorf("the receiver cannot decode the request: %v", err)
		}
		r.got = append(r.got, &in)
		if answer != nil {
			answer(w)
			return
		}
		out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(out)
	}))
	t.Cleanup(r.Close)
	return r
}

func builtRun(t *testing.T) *coltracepb.ExportTraceServiceRequest {
	dir := recordRun(t)
	loaded, err := cassettes.LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return otlpexport.Build(recorded.Build(dir, loaded), otlpexport.Options{})
}

// TestPushToLoopbackReceiver: the receiver gets, at /v1/traces as
// protobuf, exactly the request built from the recording.
func TestPushToLoopbackReceiver(t *testing.T) {
	req := builtRun(t)
	r := newReceiver(t, nil)
	for _, endpoint := range []string{r.URL, r.URL + "/", r.URL + "/v1/traces"} {
		if err := otlpexport.Push(context.Background(), http.DefaultClient, endpoint, req); err != nil {
			t.Fatalf("%s: %v", endpoint, err)
		}
	}
	if len(r.got) != 3 || !proto.Equal(r.got[0], req) || r.contentType != "application/x-protobuf" {
		t.Fatalf("received %d requests (content type %q), the first equal to the export: %v", len(r.got), r.contentType, len(r.got) > 0 && proto.Equal(r.got[0], req))
	}
	for _, p := range r.paths {
		if p != "POST /v1/traces" {
			t.Errorf("sent to %s, want POST /v1/traces", p)
		}
	}
	spans := 0
	for _, ss := range r.got[0].ResourceSpans[0].ScopeSpans {
		spans += len(ss.Spans)
	}
	if spans != 16 {
		t.Errorf("the receiver got %d spans, want 16 (12 in the first trace, 4 in the second)", spans)
	}
}

// TestPushCollectorErrors: a 500 with a google.rpc.Status, a 400 with a
// text body and a 200 reporting rejected spans are errors naming the URL
// and the collector's message.
func TestPushCollectorErrors(t *testing.T) {
	req := builtRun(t)
	cases := []struct {
		name   string
		answer func(w http.ResponseWriter)
		want   []string
	}{
		{"status", func(w http.ResponseWriter) {
			body, _ := proto.Marshal(&statuspb.Status{Code: 13, Message: "storage is full"})
			w.Header().Set("Content-Type", "application/x-protobuf")
			w.WriteHeader(http.StatusInternalServerError)
			w.Write(body)
		}, []string{"500 Internal Server Error", "storage is full"}},
		{"text", func(w http.ResponseWriter) {
			http.Error(w, "unsupported content type", http.StatusUnsupportedMediaType)
		}, []string{"415 Unsupported Media Type", "unsupported content type"}},
		{"partial", func(w http.ResponseWriter) {
			body, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{PartialSuccess: &coltracepb.ExportTracePartialSuccess{RejectedSpans: 2, ErrorMessage: "spans too old"}})
			w.Header().Set("Content-Type", "application/x-protobuf")
			w.Write(body)
		}, []string{"rejected 2 span(s)", "spans too old"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newReceiver(t, c.answer)
			err := otlpexport.Push(context.Background(), http.DefaultClient, r.URL, req)
			if !errors.Is(err, otlpexport.ErrCollector) {
				t.Fatalf("err %v, want ErrCollector", err)
			}
			for _, want := range append(c.want, r.URL+"/v1/traces") {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("%q lacks %q", err, want)
				}
			}
		})
	}
	// Nobody listening: a transport error naming the URL.
	r := newReceiver(t, nil)
	r.Close()
	if err := otlpexport.Push(context.Background(), http.DefaultClient, r.URL, req); err == nil || !strings.Contains(err.Error(), r.URL+"/v1/traces") {
		t.Errorf("push to a closed port: %v", err)
	}
}

// TestPushCollectorTextLosesControlCharacters: the collector's message is
// server text shown on a terminal, so a hostile collector's escape
// sequences (a window title, an OSC 8 link, colours, a carriage return)
// lose their control characters, whether sent as text, as a
// google.rpc.Status or as a partial success's error message.
func TestPushCollectorTextLosesControlCharacters(t *testing.T) {
	req := builtRun(t)
	const hostile = "\x1b]0;PWNED\x07\x1b[31mdisk full\x1b[0m\r\x1b]8;;http://evil\x1b\\here\x1b]8;;\x1b\\"
	for name, answer := range map[string]func(w http.ResponseWriter){
		"text": func(w http.ResponseWriter) { http.Error(w, hostile, http.StatusInternalServerError) },
		"status": func(w http.ResponseWriter) {
			body, _ := proto.Marshal(&statuspb.Status{Code: 13, Message: hostile})
			w.Header().Set("Content-Type", "application/x-protobuf")
			w.WriteHeader(http.StatusInternalServerError)
			w.Write(body)
		},
		"partial": func(w http.ResponseWriter) {
			body, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{PartialSuccess: &coltracepb.ExportTracePartialSuccess{RejectedSpans: 1, ErrorMessage: hostile}})
			w.Header().Set("Content-Type", "application/x-protobuf")
			w.Write(body)
		},
	} {
		r := newReceiver(t, answer)
		err := otlpexport.Push(context.Background(), http.DefaultClient, r.URL, req)
		if err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Fatalf("%s: %v, want the collector's message", name, err)
		}
		if strings.ContainsAny(err.Error(), "\x1b\x07\r") {
			t.Errorf("%s: the message keeps control characters: %q", name, err)
		}
	}
}

// TestBatches: a request split under a size keeps every span in order,
// each under its own resource and scope, and every batch within the size
// unless it is one span larger than it; Push sends them all.
func TestBatches(t *testing.T) {
	req := builtRun(t)
	type placed struct {
		span            *tracepb.Span
		resource, scope string
	}
	flatten := func(reqs ...*coltracepb.ExportTraceServiceRequest) []placed {
		var out []placed
		for _, r := range reqs {
			for _, rs := range r.ResourceSpans {
				for _, ss := range rs.ScopeSpans {
					for _, s := range ss.Spans {
						out = append(out, placed{s, rs.Resource.String(), ss.Scope.GetName()})
					}
				}
			}
		}
		return out
	}
	all := flatten(req)
	if one := otlpexport.Batches(req, otlpexport.MaxBatchBytes); len(one) != 1 || !proto.Equal(one[0], req) {
		t.Fatalf("the run split into %d batches under %d bytes, or changed", len(one), otlpexport.MaxBatchBytes)
	}
	for _, max := range []int{1, 3000, 6000} {
		batches := otlpexport.Batches(req, max)
		got := flatten(batches...)
		if len(got) != len(all) || len(batches) < 2 {
			t.Fatalf("max %d: %d spans in %d batches, want %d in several", max, len(got), len(batches), len(all))
		}
		for i := range got {
			if got[i].span != all[i].span || got[i].resource != all[i].resource || got[i].scope != all[i].scope {
				t.Errorf("max %d: span %d moved or lost its resource or scope", max, i)
			}
		}
		for i, b := range batches {
			if n := proto.Size(b); n > max && len(flatten(b)) > 1 {
				t.Errorf("max %d: batch %d is %d bytes with %d spans", max, i, n, len(flatten(b)))
			}
		}
	}
	r := newReceiver(t, nil)
	if err := otlpexport.Push(context.Background(), http.DefaultClient, r.URL, req); err != nil || len(r.got) != 1 {
		t.Fatalf("push: %v, %d request(s)", err, len(r.got))
	}
}

// TestPushLargeRunInBatches: a run larger than MaxBatchBytes (three model
// calls each sent 2 MiB of history) goes in several requests, together
// the whole run; a collector refusing the second names the batch.
func TestPushLargeRunInBatches(t *testing.T) {
	history := strings.Repeat("long history ", 2<<20/13)
	var exchanges []*cassettes.Exchange
	for step := range 3 {
		exchanges = append(exchanges, &cassettes.Exchange{
			Request:  cassettes.Request{Method: "POST", Path: "/v1beta/models/m:generateContent", Body: []byte(`{"contents":[{"role":"user","parts":[{"text":"` + history + `"}]}]}`)},
			Response: cassettes.Response{Status: 200, Body: []byte(`{"candidates":[{"content":{"role":"model","parts":[{"text":"ok"}]}}]}`)},
			Place:    &cassettes.Place{Session: 1, Invocation: step + 1, Agent: "root", User: history},
		})
	}
	c := &cassettes.Cassette{Name: "long", Exchanges: exchanges}
	req := otlpexport.Build(recorded.Run{Cassettes: []recorded.Cassette{recorded.CassetteOf("long", "long.yaml", c)}}, otlpexport.Options{})
	r := newReceiver(t, nil)
	if err := otlpexport.Push(context.Background(), http.DefaultClient, r.URL, req); err != nil {
		t.Fatal(err)
	}
	received := 0
	for _, got := range r.got {
		n, _ := otlpexport.Count(got)
		received += n
	}
	spans, _ := otlpexport.Count(req)
	if len(r.got) < 2 || received != spans {
		t.Fatalf("%d request(s) with %d spans, want several with all %d", len(r.got), received, spans)
	}

	calls := 0
	refusing := newReceiver(t, func(w http.ResponseWriter) {
		calls++
		if calls == 2 {
			http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	err := otlpexport.Push(context.Background(), http.DefaultClient, refusing.URL, req)
	if err == nil || !strings.Contains(err.Error(), "batch 2 of ") || !strings.Contains(err.Error(), "request body too large") || calls != 2 {
		t.Errorf("err %v after %d request(s)", err, calls)
	}
}
