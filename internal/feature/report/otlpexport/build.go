// Building the traces: one per invocation, ADK's span tree over the
// recorded steps, timed from the recorded latencies.

package otlpexport

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/adkapi"
	"github.com/adkproxy/adkproxy/internal/base/pyjson"
	"github.com/adkproxy/adkproxy/internal/data/recorded"
	"github.com/adkproxy/adkproxy/internal/wire"
)

// ADK's instrumentation scope and the semantic conventions it follows;
// the forward proxy's HTTP spans have a scope of their own.
const (
	ScopeName     = "gcp.vertex.agent"
	SchemaURL     = "https://opentelemetry.io/schemas/1.36.0"
	HTTPScopeName = "adkproxy.forward_proxy"
	ServiceName   = "adkproxy"
)

// DefaultStart is when each cassette's first invocation starts unless
// Options.Start says otherwise: cassettes record how long calls took, not
// when, and a fixed start keeps the export reproducible.
var DefaultStart = time.Date(2000, time.January, 1, 0, 0, 0, 0, time.UTC)

// Options shape an export.
type Options struct {
	// Start is when each cassette's first invocation starts; zero means
	// DefaultStart.
	Start time.Time
}

// Build turns a run into one OTLP request: a resource per cassette
// (service.name "adkproxy", the cassette's name and file), ADK's spans in
// the gcp.vertex.agent scope, the tool exchanges' HTTP client spans in the
// adkproxy.forward_proxy scope. Each invocation is one trace; a cassette's
// invocations follow one another in time, session by session. Exporting
// the same cassettes twice gives the same request.
func Build(run recorded.Run, opts Options) *coltracepb.ExportTraceServiceRequest {
	start := opts.Start
	if start.IsZero() {
		start = DefaultStart
	}
	req := &coltracepb.ExportTraceServiceRequest{}
	for _, c := range run.Cassettes {
		adk := &tracepb.ScopeSpans{Scope: &commonpb.InstrumentationScope{Name: ScopeName}, SchemaUrl: SchemaURL}
		http := &tracepb.ScopeSpans{Scope: &commonpb.InstrumentationScope{Name: HTTPScopeName}, SchemaUrl: SchemaURL}
		at := start
		for _, s := range c.Sessions {
			for i := range s.Invocations {
				t := newTrace(c.Name, s.ID, &s.Invocations[i])
				at = t.lay(at)
				adk.Spans = append(adk.Spans, t.adk...)
				http.Spans = append(http.Spans, t.http...)
			}
		}
		if len(adk.Spans) == 0 {
			continue
		}
		rs := &tracepb.ResourceSpans{
			Resource: &resourcepb.Resource{Attributes: []*commonpb.KeyValue{
				str("service.name", ServiceName), str("adkproxy.cassette.name", c.Name), str("adkproxy.cassette.file", c.File),
			}},
			ScopeSpans: []*tracepb.ScopeSpans{adk},
			SchemaUrl:  SchemaURL,
		}
		if len(http.Spans) > 0 {
			rs.ScopeSpans = append(rs.ScopeSpans, http)
		}
		req.ResourceSpans = append(req.ResourceSpans, rs)
	}
	return req
}

// ConversationID is the gen_ai.conversation.id (and
// gcp.vertex.agent.session_id) of a recorded session: "<cassette>/<session>".
func ConversationID(cassette string, session int) string {
	return cassette + "/" + strconv.Itoa(session)
}

// InvocationID is the gcp.vertex.agent.invocation_id of an invocation: the
// id the client sent in X-Adkproxy-Invocation, else
// "<cassette>/<session>/<invocation>".
func InvocationID(cassette string, session int, inv *recorded.Invocation) string {
	if inv.Tag != "" {
		return inv.Tag
	}
	return ConversationID(cassette, session) + "/" + strconv.Itoa(inv.ID)
}

// trace is one invocation being laid out.
type trace struct {
	id           []byte
	inv          *recorded.Invocation
	conversation string
	invocation   string
	adk, http    []*tracepb.Span
}

func newTrace(cassette string, session int, inv *recorded.Invocation) *trace {
	seed := newTraceSeed(cassette, session, inv.ID)
	for _, s := range inv.Steps {
		seed.exchange(s.Exchange)
		for _, h := range s.HTTPCalls {
			seed.exchange(h.Exchange)
		}
	}
	return &trace{id: seed.traceID(), inv: inv, conversation: ConversationID(cassette, session),
		invocation: InvocationID(cassette, session, inv)}
}

// span adds a span at path in the tree under parent (nil for the root).
func (t *trace) span(path string, parent *tracepb.Span, name string, attrs ...*commonpb.KeyValue) *tracepb.Span {
	s := &tracepb.Span{TraceId: t.id, SpanId: spanID(t.id, path), Name: validUTF8(name), Kind: tracepb.Span_SPAN_KIND_INTERNAL, Attributes: attrs}
	if parent != nil {
		s.ParentSpanId = parent.SpanId
	}
	t.adk = append(t.adk, s)
	return s
}

// lay builds the invocation's spans from at and returns when it ended.
// Each step's model call takes its recorded latency; the tools its answer
// asked for then run together for as long as the step's HTTP calls took
// one after another (no time when they made none); the next step starts
// when they end. An agent's span covers its consecutive steps.
func (t *trace) lay(at time.Time) time.Time {
	root := t.span("invocation", nil, "invocation")
	setStart(root, at)
	var agent *tracepb.Span
	agents := 0
	results := t.inv.Results()
	for k := range t.inv.Steps {
		step := &t.inv.Steps[k]
		if agent == nil || t.inv.Steps[k-1].Agent != step.Agent {
			agent = t.span("agent/"+strconv.Itoa(agents), root, "invoke_agent "+step.Agent,
				str("gen_ai.operation.name", "invoke_agent"), str("gen_ai.agent.name", step.Agent),
				str("gen_ai.agent.description", ""), str("gen_ai.conversation.id", t.conversation))
			setStart(agent, at)
			agents++
		}
		at = t.step(k, step, agent, at, results)
		setEnd(agent, at)
	}
	setEnd(root, at)
	return at
}

// step lays out one model call, its tools and their HTTP calls.
func (t *trace) step(k int, step *recorded.Step, agent *tracepb.Span, at time.Time, results map[recorded.CallRef]cassettes.ToolResult) time.Time {
	path := "step/" + strconv.Itoa(k)
	x := step.Exchange
	model := wire.ModelOfPath(x.Request.Path)
	if model == "" {
		model = step.Model
	}
	event := eventID(t.id, path+"/response")
	call := t.span(path+"/call_llm", agent, "call_llm",
		str("gen_ai.system", ScopeName), str("gen_ai.request.model", model),
		str("gcp.vertex.agent.invocation_id", t.invocation), str("gcp.vertex.agent.session_id", t.conversation),
		str("gcp.vertex.agent.event_id", event))
	sent := step.Sent()
	call.Attributes = append(call.Attributes, requestConfig(sent)...)
	if s, ok := llmRequest(geminiShaped(x)); ok {
		call.Attributes = append(call.Attributes, str("gcp.vertex.agent.llm_request", s))
	}
	system := "gemini"
	if strings.Contains(x.Request.Path, "/projects/") {
		system = "vertex_ai"
	}
	gen := t.span(path+"/generate_content", call, "generate_content "+model,
		str("gen_ai.operation.name", "generate_content"), str("gen_ai.system", system), str("gen_ai.request.model", model),
		str("gen_ai.agent.name", step.Agent), str("gen_ai.conversation.id", t.conversation),
		str("gcp.vertex.agent.event_id", event), str("gcp.vertex.agent.invocation_id", t.invocation))
	if failed := stepError(step); failed != "" {
		for _, s := range []*tracepb.Span{call, gen} {
			s.Status = &tracepb.Status{Code: tracepb.Status_STATUS_CODE_ERROR, Message: failed}
			s.Attributes = append(s.Attributes, str("error.type", errorType(step)))
		}
	} else {
		if s, ok := llmResponse(geminiShaped(x)); ok {
			call.Attributes = append(call.Attributes, str("gcp.vertex.agent.llm_response", s))
		}
		outcome := responseAttributes(step)
		call.Attributes = append(call.Attributes, outcome...)
		gen.Attributes = append(gen.Attributes, outcome...)
	}
	setStart(call, at)
	setStart(gen, at)
	answered := at.Add(step.Latency)

	end := answered
	for j, h := range step.HTTPCalls {
		s := httpSpan(t, path+"/http/"+strconv.Itoa(j), gen, h)
		setStart(s, end)
		end = end.Add(h.Latency)
		setEnd(s, end)
	}
	descriptions := toolDescriptions(sent)
	for j, tc := range step.ToolCalls {
		tpath := path + "/tool/" + strconv.Itoa(j)
		callID := tc.ID
		if callID == "" {
			callID = "<not specified>"
		}
		args := "{}"
		if tc.Args != nil {
			args = pyjson.Dumps(tc.Args, false)
		}
		s := t.span(tpath, gen, "execute_tool "+tc.Name,
			str("gen_ai.operation.name", "execute_tool"), str("gen_ai.tool.name", tc.Name),
			str("gen_ai.tool.description", descriptions[tc.Name]), str("gen_ai.tool.call.id", callID),
			str("gcp.vertex.agent.tool_call_args", args), str("gcp.vertex.agent.event_id", eventID(t.id, tpath)),
			str("gcp.vertex.agent.llm_request", "{}"), str("gcp.vertex.agent.llm_response", "{}"))
		if answer, ok := t.inv.ConfirmationOf(k, j); ok {
			// The answer the client reported: approvals too, which the
			// model wire does not show.
			s.Attributes = append(s.Attributes, str("adkproxy.tool.confirmation", answer.Decision()))
			if answer.Payload != nil {
				s.Attributes = append(s.Attributes, str("adkproxy.tool.confirmation.payload", pyjson.Dumps(answer.Payload, false)))
			}
		}
		if r, ok := results[recorded.CallRef{Step: k, Call: j}]; ok {
			s.Attributes = append(s.Attributes, str("gcp.vertex.agent.tool_response", toolResponse(r.Response)))
			if _, reported := t.inv.ConfirmationOf(k, j); !reported && adkapi.IsRefusal(tc.Name, r.Response) {
				// ADK's own span shows only the refusal as the tool's response.
				s.Attributes = append(s.Attributes, str("adkproxy.tool.confirmation", "refused"))
			}
		}
		setStart(s, answered)
		setEnd(s, end)
	}
	setEnd(call, end)
	setEnd(gen, end)
	return end
}

// stepError says why a model call failed ("429 RESOURCE_EXHAUSTED", "the
// connection broke"), or "" when it answered.
func stepError(s *recorded.Step) string {
	switch {
	case s.Status != 200 && s.ErrorStatus != "":
		return fmt.Sprintf("%d %s", s.Status, s.ErrorStatus)
	case s.Status != 200:
		return strconv.Itoa(s.Status)
	case s.Reset:
		return "the connection broke during the response"
	}
	return ""
}

func errorType(s *recorded.Step) string {
	switch {
	case s.ErrorStatus != "":
		return s.ErrorStatus
	case s.Status != 200:
		return strconv.Itoa(s.Status)
	}
	return "reset"
}

// requestConfig is what call_llm reports of the generation config.
func requestConfig(sent recorded.Sent) []*commonpb.KeyValue {
	gc := sent.GenerationConfig
	var out []*commonpb.KeyValue
	if v, err := number(gc["topP"]).Float64(); err == nil {
		out = append(out, float("gen_ai.request.top_p", v))
	}
	if v, err := number(gc["maxOutputTokens"]).Int64(); err == nil {
		out = append(out, integer("gen_ai.request.max_tokens", v))
	}
	if tc, ok := gc["thinkingConfig"].(map[string]any); ok {
		if v, err := number(tc["thinkingBudget"]).Int64(); err == nil {
			out = append(out, integer("gen_ai.usage.experimental.reasoning_tokens_limit", v))
		}
	}
	return out
}

// number is a JSON number as decoded with UseNumber; anything else is
// one that does not parse.
func number(v any) json.Number {
	n, _ := v.(json.Number)
	return n
}

// responseAttributes are the finish reason and usage of an answer.
func responseAttributes(s *recorded.Step) []*commonpb.KeyValue {
	var out []*commonpb.KeyValue
	if s.FinishReason != "" {
		out = append(out, strs("gen_ai.response.finish_reasons", strings.ToLower(s.FinishReason)))
	}
	if u := s.Usage; u != nil {
		out = append(out, integer("gen_ai.usage.input_tokens", int64(u.Prompt)+int64(u.ToolUse)),
			integer("gen_ai.usage.output_tokens", int64(u.Candidates)+int64(u.Thoughts)))
		if u.Cached > 0 {
			out = append(out, integer("gen_ai.usage.cache_read.input_tokens", int64(u.Cached)))
		}
		if u.Thoughts > 0 {
			out = append(out, integer("gen_ai.usage.reasoning.output_tokens", int64(u.Thoughts)))
		}
	}
	return out
}

// toolDescriptions maps each function the step declared to its
// description.
func toolDescriptions(sent recorded.Sent) map[string]string {
	out := map[string]string{}
	functions, _ := wire.FunctionTools(sent.Tools)
	for _, f := range functions {
		decl, _ := f.Value.(map[string]any)
		if desc, _ := decl["description"].(string); f.Name != "" {
			out[f.Name] = desc
		}
	}
	return out
}

func setStart(s *tracepb.Span, t time.Time) { s.StartTimeUnixNano = uint64(t.UnixNano()) }
func setEnd(s *tracepb.Span, t time.Time)   { s.EndTimeUnixNano = uint64(t.UnixNano()) }

// Count tells how many spans and traces a request holds.
func Count(req *coltracepb.ExportTraceServiceRequest) (spans, traces int) {
	ids := map[string]bool{}
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				spans++
				ids[string(s.TraceId)] = true
			}
		}
	}
	return spans, len(ids)
}
