package otlpexport_test

import (
	"testing"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/recorded"
	"github.com/adkproxy/adkproxy/internal/feature/report/otlpexport"
)

// TestCollectorReadsTheExport: the OpenTelemetry Collector's own OTLP/JSON
// decoder (the one its OTLP/HTTP receiver uses for application/json)
// reads the export to the same spans the OTLP types do: the same hex ids,
// parents, kinds, times and attributes. A base64 id or an enum by name
// would read differently or fail here.
func TestCollectorReadsTheExport(t *testing.T) {
	dir := recordRun(t)
	loaded, err := cassettes.LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	req := otlpexport.Build(recorded.Build(dir, loaded), otlpexport.Options{})
	data, err := otlpexport.MarshalJSON(req)
	if err != nil {
		t.Fatal(err)
	}
	collector := ptraceotlp.NewExportRequest()
	if err := collector.UnmarshalJSON(data); err != nil {
		t.Fatalf("the collector cannot read the export: %v", err)
	}
	traces := collector.Traces()
	var want []string
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				want = append(want, string(s.TraceId)+string(s.SpanId)+string(s.ParentSpanId)+s.Name+s.Kind.String())
			}
		}
	}
	var got []string
	rss := traces.ResourceSpans()
	for i := 0; i < rss.Len(); i++ {
		sss := rss.At(i).ScopeSpans()
		for j := 0; j < sss.Len(); j++ {
			spans := sss.At(j).Spans()
			for k := 0; k < spans.Len(); k++ {
				s := spans.At(k)
				tid, sid, pid := s.TraceID(), s.SpanID(), s.ParentSpanID()
				parent := ""
				if !s.ParentSpanID().IsEmpty() {
					parent = string(pid[:])
				}
				got = append(got, string(tid[:])+string(sid[:])+parent+s.Name()+kindName(s.Kind()))
			}
		}
	}
	if len(got) != len(want) || len(got) == 0 {
		t.Fatalf("the collector read %d spans, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("span %d reads differently in the collector", i)
		}
	}
	// What the collector writes back is the same request: times and
	// attributes survive the round trip through its model.
	again, err := (&ptrace.JSONMarshaler{}).MarshalTraces(traces)
	if err != nil {
		t.Fatal(err)
	}
	back, err := otlpexport.UnmarshalJSON(again)
	if err != nil {
		t.Fatal(err)
	}
	for _, rs := range back.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				if proto.Equal(s.Status, &tracepb.Status{}) {
					s.Status = nil // the collector writes an unset status as {}
				}
			}
		}
	}
	if !proto.Equal(back, req) {
		t.Error("the export read by the collector and written back differs from it")
	}
}

func kindName(k ptrace.SpanKind) string {
	switch k {
	case ptrace.SpanKindInternal:
		return "SPAN_KIND_INTERNAL"
	case ptrace.SpanKindClient:
		return "SPAN_KIND_CLIENT"
	}
	return k.String()
}
