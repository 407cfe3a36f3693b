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
	statuspb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/otlpexport"
	"github.com/adkproxy/adkproxy/runview"
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
	return otlpexport.Build(runview.Build(dir, loaded), otlpexport.Options{})
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
