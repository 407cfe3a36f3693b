// Splitting a request into batches a collector takes: OTLP/HTTP receivers
// cap a request's body (the OpenTelemetry Collector, and so Jaeger, at
// 20 MiB by default), and a long run's model requests, each carrying the
// whole conversation, add up to more.

package otlpexport

import (
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// MaxBatchBytes is the largest encoded request Push sends when a span
// fits: well under the usual 20 MiB cap on a receiver's request body.
const MaxBatchBytes = 4 << 20

// Batches splits req, in order, into requests of at most maxBytes encoded
// each (a span larger than that alone goes in one of its own), every
// span under its own resource and scope as in req.
func Batches(req *coltracepb.ExportTraceServiceRequest, maxBytes int) []*coltracepb.ExportTraceServiceRequest {
	var out []*coltracepb.ExportTraceServiceRequest
	var cur *coltracepb.ExportTraceServiceRequest
	size := 0
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				// A span's share: its bytes, tag and length prefix.
				n := proto.Size(s) + 8
				if cur != nil && size+n+wrapperSize(cur, rs, ss) > maxBytes {
					cur = nil
				}
				if cur == nil {
					cur = &coltracepb.ExportTraceServiceRequest{}
					out = append(out, cur)
					size = 0
				}
				size += n + wrapperSize(cur, rs, ss)
				last := lastScope(cur, rs, ss)
				last.Spans = append(last.Spans, s)
			}
		}
	}
	return out
}

// wrapperSize is what adding a span under rs and ss costs beyond the span:
// the resource and scope wrappers it starts when cur does not end with
// them (generous: tags and length prefixes that grow as spans are added).
func wrapperSize(cur *coltracepb.ExportTraceServiceRequest, rs *tracepb.ResourceSpans, ss *tracepb.ScopeSpans) int {
	scope := proto.Size(ss.Scope) + len(ss.SchemaUrl) + 32
	k := len(cur.ResourceSpans)
	if k == 0 || cur.ResourceSpans[k-1].Resource != rs.Resource {
		return proto.Size(rs.Resource) + len(rs.SchemaUrl) + 32 + scope
	}
	if r := cur.ResourceSpans[k-1]; len(r.ScopeSpans) > 0 && r.ScopeSpans[len(r.ScopeSpans)-1].Scope == ss.Scope {
		return 0
	}
	return scope
}

// lastScope is the scope spans of cur that a span of rs and ss goes in,
// added when cur does not end with them.
func lastScope(cur *coltracepb.ExportTraceServiceRequest, rs *tracepb.ResourceSpans, ss *tracepb.ScopeSpans) *tracepb.ScopeSpans {
	k := len(cur.ResourceSpans)
	if k == 0 || cur.ResourceSpans[k-1].Resource != rs.Resource {
		cur.ResourceSpans = append(cur.ResourceSpans, &tracepb.ResourceSpans{Resource: rs.Resource, SchemaUrl: rs.SchemaUrl})
		k++
	}
	r := cur.ResourceSpans[k-1]
	if j := len(r.ScopeSpans); j > 0 && r.ScopeSpans[j-1].Scope == ss.Scope {
		return r.ScopeSpans[j-1]
	}
	r.ScopeSpans = append(r.ScopeSpans, &tracepb.ScopeSpans{Scope: ss.Scope, SchemaUrl: ss.SchemaUrl})
	return r.ScopeSpans[len(r.ScopeSpans)-1]
}
