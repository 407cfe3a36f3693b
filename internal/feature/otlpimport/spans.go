// Reading ADK's span tree: one trace per invocation, its call_llm spans
// in order, each under the agent that made it.

package otlpimport

import (
	"encoding/hex"
	"fmt"
	"sort"
	"strings"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// ADK's attributes this import reads.
const (
	attrRequest   = "gcp.vertex.agent.llm_request"
	attrResponse  = "gcp.vertex.agent.llm_response"
	attrSession   = "gcp.vertex.agent.session_id"
	attrInvoc     = "gcp.vertex.agent.invocation_id"
	attrAgent     = "gen_ai.agent.name"
	attrConversat = "gen_ai.conversation.id"
)

// modelCall is one call_llm span: where it is (for messages) and the
// attributes it carries.
type modelCall struct {
	where    string // "resourceSpans[0].scopeSpans[0].spans[3] (call_llm)"
	agent    string
	start    uint64
	request  string
	response string
	failed   string
}

// invocation is one trace: its session and id, its model calls in order.
type invocation struct {
	trace   string
	session string
	id      string
	start   uint64
	calls   []modelCall
}

type located struct {
	span  *tracepb.Span
	where string
}

// invocations groups the spans by trace, in order of each trace's start.
func invocations(req *coltracepb.ExportTraceServiceRequest) []*invocation {
	byID := map[string]located{}
	byTrace := map[string][]located{}
	var traces []string
	for i, rs := range req.ResourceSpans {
		for j, ss := range rs.ScopeSpans {
			for k, s := range ss.Spans {
				l := located{s, fmt.Sprintf("resourceSpans[%d].scopeSpans[%d].spans[%d] (%s)", i, j, k, s.Name)}
				byID[string(s.TraceId)+string(s.SpanId)] = l
				t := string(s.TraceId)
				if _, seen := byTrace[t]; !seen {
					traces = append(traces, t)
				}
				byTrace[t] = append(byTrace[t], l)
			}
		}
	}
	var out []*invocation
	for _, t := range traces {
		inv := &invocation{trace: hex.EncodeToString([]byte(t)), start: ^uint64(0)}
		for _, l := range byTrace[t] {
			inv.start = min(inv.start, l.span.StartTimeUnixNano)
			if l.span.Name != "call_llm" {
				continue
			}
			c := modelCall{where: l.where, start: l.span.StartTimeUnixNano, agent: agentOf(l.span, byID),
				request: attr(l.span, attrRequest), response: attr(l.span, attrResponse)}
			if st := l.span.Status; st != nil && st.Code == tracepb.Status_STATUS_CODE_ERROR {
				c.failed = st.Message
			}
			inv.session = firstOf(inv.session, attr(l.span, attrSession), ancestorAttr(l.span, byID, attrConversat))
			inv.id = firstOf(inv.id, attr(l.span, attrInvoc))
			inv.calls = append(inv.calls, c)
		}
		if len(inv.calls) > 0 {
			sort.SliceStable(inv.calls, func(i, j int) bool { return inv.calls[i].start < inv.calls[j].start })
			out = append(out, inv)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].start < out[j].start })
	return out
}

// agentOf is the agent a call_llm span ran under: the nearest ancestor
// that names one (gen_ai.agent.name, or the span name "invoke_agent X" or
// "agent_run [X]" of older ADK releases).
func agentOf(s *tracepb.Span, byID map[string]located) string {
	for _, p := range ancestors(s, byID) {
		if a := attr(p, attrAgent); a != "" {
			return a
		}
		for _, prefix := range []string{"invoke_agent ", "agent_run "} {
			if name, ok := strings.CutPrefix(p.Name, prefix); ok {
				return strings.Trim(name, "[]")
			}
		}
	}
	return ""
}

func ancestorAttr(s *tracepb.Span, byID map[string]located, key string) string {
	for _, p := range ancestors(s, byID) {
		if v := attr(p, key); v != "" {
			return v
		}
	}
	return ""
}

// ancestors are s's parent, its parent's, …, nearest first; a cycle of
// parent ids (a broken export) ends the chain.
func ancestors(s *tracepb.Span, byID map[string]located) []*tracepb.Span {
	var out []*tracepb.Span
	seen := map[*tracepb.Span]bool{s: true}
	for p, ok := parent(s, byID); ok && !seen[p]; p, ok = parent(p, byID) {
		seen[p] = true
		out = append(out, p)
	}
	return out
}

func parent(s *tracepb.Span, byID map[string]located) (*tracepb.Span, bool) {
	if len(s.ParentSpanId) == 0 {
		return nil, false
	}
	l, ok := byID[string(s.TraceId)+string(s.ParentSpanId)]
	if !ok || l.span == s {
		return nil, false
	}
	return l.span, true
}

// attr is a string attribute's value, "" when absent or of another type.
func attr(s *tracepb.Span, key string) string {
	for _, kv := range s.Attributes {
		if kv.Key == key {
			if v, ok := kv.Value.GetValue().(*commonpb.AnyValue_StringValue); ok {
				return v.StringValue
			}
		}
	}
	return ""
}

func firstOf(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
