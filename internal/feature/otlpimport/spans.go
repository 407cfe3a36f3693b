// Reading ADK's span tree: one trace per invocation, its call_llm and
// execute_tool spans in order, each under the agent that ran it, and the
// attribute values this import reads, each of a type it knows or an error
// naming the span and the attribute.

package otlpimport

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/adkproxy/adkproxy/internal/feature/report/otlpexport"
)

// ADK's attributes this import reads.
const (
	attrRequest    = "gcp.vertex.agent.llm_request"
	attrResponse   = "gcp.vertex.agent.llm_response"
	attrSession    = "gcp.vertex.agent.session_id"
	attrInvoc      = "gcp.vertex.agent.invocation_id"
	attrAgent      = "gen_ai.agent.name"
	attrConversat  = "gen_ai.conversation.id"
	attrModel      = "gen_ai.request.model"
	attrToolName   = "gen_ai.tool.name"
	attrToolCallID = "gen_ai.tool.call.id"
	attrToolArgs   = "gcp.vertex.agent.tool_call_args"
	attrToolResp   = "gcp.vertex.agent.tool_response"
	// The OpenTelemetry GenAI names newer ADK releases use for the same.
	attrToolArgsOT = "gen_ai.tool.call.arguments"
	attrToolRespOT = "gen_ai.tool.call.result"
	attrInputMsgs  = "gen_ai.input.messages"
	attrOutputMsgs = "gen_ai.output.messages"
)

// textAttrs hold an id or a name: a string (an integer is read as its
// digits). The others this import reads hold JSON (see jsonAttr).
var textAttrs = []string{attrSession, attrInvoc, attrAgent, attrConversat, attrModel, attrToolName, attrToolCallID}

// notSpecified is the tool call id ADK writes when it has none.
const notSpecified = "<not specified>"

// modelCall is one call_llm span: where it is (for messages) and the
// attributes it carries; request and response are nil when the span has
// none (or ADK's "{}").
type modelCall struct {
	where    string // "resourceSpans[0].scopeSpans[0].spans[3] (call_llm)"
	agent    string
	model    string
	start    uint64
	request  map[string]any
	response map[string]any
	failed   string
	// gen marks a generate_content span read in place of a call_llm
	// (ADK Go, ADK's newer conventions): it may carry the OpenTelemetry
	// GenAI messages, never a request body to rebuild.
	gen           bool
	input, output []any
}

// answered tells whether the span carries the model's answer.
func (c *modelCall) answered() bool {
	if c.gen {
		return c.output != nil
	}
	return c.response != nil
}

// toolRun is one execute_tool span. args and response are nil when the
// span does not carry them (ADK without content capture).
type toolRun struct {
	where, agent, name, id string
	start                  uint64
	args, response         map[string]any
	argsKey, responseKey   string // the attribute each was read from
	failed                 string
}

// invocation is one trace: its session and id, its model calls and tool
// runs in order, and where its forward-proxy HTTP spans are.
type invocation struct {
	trace   string
	session string
	id      string
	start   uint64
	calls   []modelCall
	gens    []modelCall // generate_content spans, used when there is no call_llm
	tools   []toolRun
	http    []string
}

type located struct {
	span  *tracepb.Span
	where string
	scope string
}

// isADK tells the spans of ADK's tree by name.
func isADK(name string) bool {
	for _, p := range []string{"invocation", "invoke_agent", "agent_run", "call_llm", "execute_tool", "invoke_workflow"} {
		if name == p || strings.HasPrefix(name, p+" ") {
			return true
		}
	}
	return false
}

// invocations groups the spans by trace, in order of each trace's start.
// found is false when the export holds no ADK span at all.
func invocations(req *coltracepb.ExportTraceServiceRequest) (out []*invocation, found bool, err error) {
	byID := map[string]located{}
	byTrace := map[string][]located{}
	var traces []string
	for i, rs := range req.ResourceSpans {
		for j, ss := range rs.ScopeSpans {
			for k, s := range ss.Spans {
				l := located{s, fmt.Sprintf("resourceSpans[%d].scopeSpans[%d].spans[%d] (%s)", i, j, k, s.Name), ss.GetScope().GetName()}
				if err := checkTextAttrs(l); err != nil {
					return nil, false, err
				}
				found = found || isADK(s.Name)
				byID[string(s.TraceId)+string(s.SpanId)] = l
				t := string(s.TraceId)
				if _, seen := byTrace[t]; !seen {
					traces = append(traces, t)
				}
				byTrace[t] = append(byTrace[t], l)
			}
		}
	}
	for _, t := range traces {
		inv := &invocation{trace: hex.EncodeToString([]byte(t)), start: ^uint64(0)}
		conversation := ""
		for _, l := range byTrace[t] {
			s := l.span
			inv.start = min(inv.start, s.StartTimeUnixNano)
			inv.session = firstOf(inv.session, attr(s, attrSession))
			conversation = firstOf(conversation, attr(s, attrConversat))
			inv.id = firstOf(inv.id, attr(s, attrInvoc))
			failed := ""
			if st := s.Status; st != nil && st.Code == tracepb.Status_STATUS_CODE_ERROR {
				failed = firstOf(st.Message, "error status")
			}
			switch {
			case s.Name == "call_llm":
				c := modelCall{where: l.where, start: s.StartTimeUnixNano, agent: agentOf(s, byID), model: attr(s, attrModel), failed: failed}
				if c.request, _, err = jsonAttr(l, attrRequest, true); err != nil {
					return nil, false, err
				}
				if c.response, _, err = jsonAttr(l, attrResponse, true); err != nil {
					return nil, false, err
				}
				if len(c.request) == 0 {
					c.request = nil
				}
				if len(c.response) == 0 {
					c.response = nil
				}
				inv.calls = append(inv.calls, c)
			case strings.HasPrefix(s.Name, "generate_content"):
				g := modelCall{where: l.where, start: s.StartTimeUnixNano, agent: agentOf(s, byID), model: attr(s, attrModel), failed: failed, gen: true}
				if g.input, err = messagesAttr(l, attrInputMsgs); err != nil {
					return nil, false, err
				}
				if g.output, err = messagesAttr(l, attrOutputMsgs); err != nil {
					return nil, false, err
				}
				inv.gens = append(inv.gens, g)
			case strings.HasPrefix(s.Name, "execute_tool") && s.Name != "execute_tool (merged)" && attr(s, attrToolName) != "(merged tools)":
				// The merged span repeats the calls its siblings carry one by one.
				r := toolRun{where: l.where, start: s.StartTimeUnixNano, agent: agentOf(s, byID), failed: failed,
					name: firstOf(attr(s, attrToolName), strings.TrimPrefix(s.Name, "execute_tool ")), id: attr(s, attrToolCallID)}
				if r.id == notSpecified {
					r.id = ""
				}
				for _, k := range []string{attrToolArgs, attrToolArgsOT, attrToolResp, attrToolRespOT} {
					v, ok, err := jsonAttr(l, k, k == attrToolArgs || k == attrToolArgsOT)
					switch {
					case err != nil:
						return nil, false, err
					case !ok:
					case (k == attrToolArgs || k == attrToolArgsOT) && r.args == nil:
						r.args, r.argsKey = v, k
					case (k == attrToolResp || k == attrToolRespOT) && r.response == nil:
						r.response, r.responseKey = v, k
					}
				}
				inv.tools = append(inv.tools, r)
			case l.scope == otlpexport.HTTPScopeName:
				inv.http = append(inv.http, l.where)
			}
		}
		inv.session = firstOf(inv.session, conversation)
		if len(inv.calls) == 0 {
			inv.calls = inv.gens // ADK Go, and ADK's newer conventions, have no call_llm
		}
		if len(inv.calls) == 0 && len(inv.tools) == 0 {
			continue
		}
		inv.forgetUncaptured()
		sort.SliceStable(inv.calls, func(i, j int) bool { return inv.calls[i].start < inv.calls[j].start })
		sort.SliceStable(inv.tools, func(i, j int) bool { return inv.tools[i].start < inv.tools[j].start })
		out = append(out, inv)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].start < out[j].start })
	return out, found, nil
}

// forgetUncaptured drops the "{}" tool arguments and results of a trace
// whose model calls carry no request body: newer ADK releases write "{}"
// in place of each JSON attribute when they do not capture message
// content, so there "{}" says nothing. Where the content was captured,
// "{}" is a tool called without arguments.
func (inv *invocation) forgetUncaptured() {
	for _, c := range inv.calls {
		if c.request != nil {
			return
		}
	}
	for i := range inv.tools {
		t := &inv.tools[i]
		if len(t.args) == 0 {
			t.args, t.argsKey = nil, ""
		}
		if len(t.response) == 0 {
			t.response, t.responseKey = nil, ""
		}
	}
}

// agentOf is the agent a span ran under: the nearest ancestor that names
// one (gen_ai.agent.name, or the span name "invoke_agent X" or "agent_run
// [X]" of older ADK releases).
func agentOf(s *tracepb.Span, byID map[string]located) string {
	for _, p := range ancestors(s, byID) {
		if strings.HasPrefix(p.Name, "execute_tool") {
			continue // a tool span names its tool, not an agent
		}
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

// checkTextAttrs holds the ids and names this import reads to strings
// (an integer is read as its digits), so that a value of another type is
// an error naming the span and the attribute rather than one silently
// dropped.
func checkTextAttrs(l located) error {
	for _, kv := range l.span.Attributes {
		if !contains(textAttrs, kv.Key) {
			continue
		}
		switch kv.GetValue().GetValue().(type) {
		case nil, *commonpb.AnyValue_StringValue, *commonpb.AnyValue_IntValue:
			continue
		}
		return fmt.Errorf("%s: attribute %s is %s; want a string (ADK writes ids and names as strings)", l.where, kv.Key, typeName(kv.Value))
	}
	return nil
}

// typeName is the OTLP/JSON name of a value's type.
func typeName(v *commonpb.AnyValue) string {
	switch v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return "a stringValue"
	case *commonpb.AnyValue_IntValue:
		return "an intValue"
	case *commonpb.AnyValue_DoubleValue:
		return "a doubleValue"
	case *commonpb.AnyValue_BoolValue:
		return "a boolValue"
	case *commonpb.AnyValue_ArrayValue:
		return "an arrayValue"
	case *commonpb.AnyValue_KvlistValue:
		return "a kvlistValue"
	case *commonpb.AnyValue_BytesValue:
		return "a bytesValue"
	}
	return "an empty value"
}

// notSerializable is what ADK writes for a value it could not dump;
// notSpecified (above) for a tool result it did not get.
const notSerializable = "<not serializable>"

// jsonOf is a JSON-bearing value as decoded JSON (numbers as
// json.Number): at the top, the JSON text of a string; an OTLP value read
// as the JSON it stands for (kvlist an object, array an array, int and
// double numbers, bool; a string inside them a JSON string). A bytesValue
// is refused: ADK writes JSON as text. path names the value in errors.
func jsonOf(v *commonpb.AnyValue, path string, top bool) (any, error) {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		if !top {
			return x.StringValue, nil
		}
		d := json.NewDecoder(strings.NewReader(x.StringValue))
		d.UseNumber()
		var out any
		if err := d.Decode(&out); err != nil {
			return nil, fmt.Errorf("%s is not JSON text: %v", path, err)
		}
		if _, err := d.Token(); err == nil {
			return nil, fmt.Errorf("%s is not JSON text: more after the first value", path)
		}
		return out, nil
	case *commonpb.AnyValue_IntValue:
		return json.Number(strconv.FormatInt(x.IntValue, 10)), nil
	case *commonpb.AnyValue_DoubleValue:
		return json.Number(strconv.FormatFloat(x.DoubleValue, 'g', -1, 64)), nil
	case *commonpb.AnyValue_BoolValue:
		return x.BoolValue, nil
	case *commonpb.AnyValue_ArrayValue:
		out := make([]any, 0, len(x.ArrayValue.GetValues()))
		for i, e := range x.ArrayValue.GetValues() {
			j, err := jsonOf(e, fmt.Sprintf("%s[%d]", path, i), false)
			if err != nil {
				return nil, err
			}
			out = append(out, j)
		}
		return out, nil
	case *commonpb.AnyValue_KvlistValue:
		out := map[string]any{}
		for _, kv := range x.KvlistValue.GetValues() {
			j, err := jsonOf(kv.GetValue(), path+"."+kv.Key, false)
			if err != nil {
				return nil, err
			}
			out[kv.Key] = j
		}
		return out, nil
	case *commonpb.AnyValue_BytesValue:
		return nil, fmt.Errorf("%s is a bytesValue (%d bytes); want JSON text in a stringValue, or a kvlistValue", path, len(x.BytesValue))
	case nil:
		return nil, nil // an empty value inside a list: JSON null
	}
	return nil, fmt.Errorf("%s: a value of unknown type", path)
}

// jsonAttr reads a JSON-bearing attribute of s. ok is false when s does
// not carry it, or carries ADK's "<not serializable>". When object is
// set the value must be a JSON object; otherwise one that is not is
// wrapped as {"result": value}, as ADK wraps a tool's result that is not a
// dict.
func jsonAttr(l located, key string, object bool) (map[string]any, bool, error) {
	for _, kv := range l.span.Attributes {
		if kv.Key != key || kv.GetValue().GetValue() == nil {
			continue
		}
		if sv, ok := kv.Value.GetValue().(*commonpb.AnyValue_StringValue); ok && (sv.StringValue == notSerializable || sv.StringValue == notSpecified) {
			return nil, false, nil // ADK Go writes these as they are
		}
		v, err := jsonOf(kv.Value, key, true)
		if err != nil {
			return nil, false, fmt.Errorf("%s: attribute %v", l.where, err)
		}
		m, isObject := v.(map[string]any)
		if len(m) == 1 && (m["result"] == notSpecified || m["result"] == notSerializable) {
			return nil, false, nil // ADK Python wraps them as a tool's result
		}
		switch {
		case isObject:
			return m, true, nil
		case object:
			return nil, false, fmt.Errorf("%s: attribute %s is not a JSON object", l.where, key)
		}
		return map[string]any{"result": v}, true, nil
	}
	return nil, false, nil
}

// messagesAttr reads gen_ai.input.messages or gen_ai.output.messages: a
// JSON array, as text or as an OTLP array; nil when absent or empty.
func messagesAttr(l located, key string) ([]any, error) {
	for _, kv := range l.span.Attributes {
		if kv.Key != key || kv.GetValue().GetValue() == nil {
			continue
		}
		v, err := jsonOf(kv.Value, key, true)
		if err != nil {
			return nil, fmt.Errorf("%s: attribute %v", l.where, err)
		}
		list, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("%s: attribute %s is not a JSON array of messages", l.where, key)
		}
		if len(list) == 0 {
			return nil, nil
		}
		return list, nil
	}
	return nil, nil
}

// attr is an id's or a name's value: a string, or an integer's digits;
// "" when absent.
func attr(s *tracepb.Span, key string) string {
	for _, kv := range s.Attributes {
		if kv.Key != key {
			continue
		}
		switch v := kv.GetValue().GetValue().(type) {
		case *commonpb.AnyValue_StringValue:
			return v.StringValue
		case *commonpb.AnyValue_IntValue:
			return strconv.FormatInt(v.IntValue, 10)
		}
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func firstOf(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
