package otlpimport

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/base/textfmt"
)

// spanAV writes a span whose attributes are given as OTLP/JSON AnyValues.
func spanAV(trace, id, parent, name string, start int, attrs map[string]string) string {
	var kvs []string
	for k, v := range attrs {
		kvs = append(kvs, fmt.Sprintf(`{"key":%q,"value":%s}`, k, v))
	}
	p := ""
	if parent != "" {
		p = fmt.Sprintf(`"parentSpanId":%q,`, parent)
	}
	return fmt.Sprintf(`{"traceId":%q,"spanId":%q,%s"name":%q,"startTimeUnixNano":"%d","attributes":[%s]}`,
		trace, id, p, name, start, strings.Join(kvs, ","))
}

func sv(s string) string { return `{"stringValue":` + quote(s) + `}` }

// evalSetOf reads the eval set an import wrote.
func evalSetOf(t *testing.T, path string) (set struct {
	EvalCases []struct {
		EvalID       string `json:"eval_id"`
		Conversation []struct {
			UserContent struct {
				Parts []struct{ Text string } `json:"parts"`
			} `json:"user_content"`
			FinalResponse *struct {
				Parts []struct{ Text string } `json:"parts"`
			} `json:"final_response"`
			IntermediateData struct {
				ToolUses      []map[string]any `json:"tool_uses"`
				ToolResponses []map[string]any `json:"tool_responses"`
			} `json:"intermediate_data"`
		} `json:"conversation"`
	} `json:"eval_cases"`
}) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &set); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return set
}

func writeExport(t *testing.T, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "prod.otlp.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A trace none of whose model calls carries both bodies still makes the
// case: the user text from the first request, the tool call and result
// from execute_tool, the answer from the last response. No cassette is
// written, and each span says what it lacks.
func TestCaseFromPartialSpans(t *testing.T) {
	file := writeExport(t, export(
		spanAV(traceA, "0000000000000001", "", "invocation", 1, nil),
		spanAV(traceA, "0000000000000002", "0000000000000001", "invoke_agent helper", 2, map[string]string{attrAgent: sv("helper"), attrConversat: sv(uuid1)}),
		spanAV(traceA, "0000000000000003", "0000000000000002", "call_llm", 3, map[string]string{attrRequest: sv(request("Where is my parcel? I am bob@example.com"))}),
		spanAV(traceA, "0000000000000004", "0000000000000003", "execute_tool track", 4, map[string]string{attrToolName: sv("track"),
			attrToolCallID: sv("c1"), attrToolArgs: sv(`{"parcel": "P-1"}`), attrToolResp: sv(`{"status": "shipped", "to": "bob@example.com"}`),
			attrRequest: sv("{}"), attrResponse: sv("{}")}),
		spanAV(traceA, "0000000000000005", "0000000000000002", "call_llm", 5, map[string]string{attrResponse: sv(response("It shipped."))}),
	))
	out := filepath.Join(t.TempDir(), "case")
	res, err := Import(file, Options{Out: out})
	if err != nil {
		t.Fatal(err)
	}
	if res.Cassette != "" || res.Calls != 0 || res.Invocations != 1 {
		t.Errorf("result %+v", res)
	}
	if _, err := os.Stat(filepath.Join(out, "prod.yaml")); err == nil {
		t.Error("a cassette without a model call was written")
	}
	var missing []string
	for _, m := range res.Missing {
		missing = append(missing, m.String())
	}
	if len(missing) != 2 || !strings.Contains(missing[0], "spans[2] (call_llm): no gcp.vertex.agent.llm_response; ADK writes them only when it captures message content") ||
		!strings.Contains(missing[1], "spans[4] (call_llm): no gcp.vertex.agent.llm_request;") {
		t.Errorf("missing %q", missing)
	}
	set := evalSetOf(t, res.EvalSet)
	if len(set.EvalCases) != 1 || len(set.EvalCases[0].Conversation) != 1 {
		t.Fatalf("eval set %+v", set)
	}
	inv := set.EvalCases[0].Conversation[0]
	if got := inv.UserContent.Parts[0].Text; got != "Where is my parcel? I am <EMAIL_1>" {
		t.Errorf("user text %q", got)
	}
	if inv.FinalResponse == nil || inv.FinalResponse.Parts[0].Text != "It shipped." {
		t.Errorf("final response %+v", inv.FinalResponse)
	}
	uses, _ := textfmt.CompactJSON(inv.IntermediateData.ToolUses)
	resps, _ := textfmt.CompactJSON(inv.IntermediateData.ToolResponses)
	if string(uses) != `[{"args":{"parcel":"P-1"},"name":"track"}]` ||
		string(resps) != `[{"name":"track","response":{"status":"shipped","to":"<EMAIL_1>"}}]` {
		t.Errorf("tool uses %s, responses %s", uses, resps)
	}
}

// ADK for Python 1.18 without content capture sets the JSON attributes of
// call_llm and execute_tool to a dict, which OpenTelemetry drops: the
// spans keep the tool's name and call id only. The case holds the tool
// trajectory by name, and every field it lacks is listed.
func TestCaseWithoutContentCapture(t *testing.T) {
	file := writeExport(t, export(
		spanAV(traceA, "0000000000000001", "", "invocation", 1, nil),
		spanAV(traceA, "0000000000000002", "0000000000000001", "invoke_agent helper", 2, map[string]string{attrAgent: sv("helper"), attrConversat: sv(uuid1)}),
		spanAV(traceA, "0000000000000003", "0000000000000002", "call_llm", 3, map[string]string{attrSession: sv(uuid1), attrModel: sv("gemini-2.5-flash")}),
		spanAV(traceA, "0000000000000004", "0000000000000003", "execute_tool get_weather", 4, map[string]string{attrToolName: sv("get_weather"),
			attrToolCallID: sv("adk-1"), attrRequest: sv("{}"), attrResponse: sv("{}")}),
		spanAV(traceA, "0000000000000005", "0000000000000002", "call_llm", 5, map[string]string{attrSession: sv(uuid1)}),
	))
	res, err := Import(file, Options{Out: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for _, m := range res.Missing {
		missing = append(missing, m.String())
	}
	all := strings.Join(missing, "\n")
	for _, want := range []string{
		"spans[2] (call_llm): no gcp.vertex.agent.llm_request and gcp.vertex.agent.llm_response; ADK writes them only when it captures message content",
		"spans[2] (call_llm): no gcp.vertex.agent.llm_request; no span of the trace carries the user's text",
		"spans[3] (execute_tool get_weather): no gcp.vertex.agent.tool_call_args and gcp.vertex.agent.tool_response; the eval case's tool_uses[0] (get_weather) has no args, and its tool_responses has no result of get_weather",
		"spans[4] (call_llm): no gcp.vertex.agent.llm_response; it is the trace's last model call",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("missing lacks %q:\n%s", want, all)
		}
	}
	set := evalSetOf(t, res.EvalSet)
	inv := set.EvalCases[0].Conversation[0]
	if len(inv.IntermediateData.ToolUses) != 1 || inv.IntermediateData.ToolUses[0]["name"] != "get_weather" || inv.FinalResponse != nil {
		t.Errorf("invocation %+v", inv)
	}
	// Newer ADK writes "{}" instead: read the same way.
	file = writeExport(t, export(
		spanAV(traceA, "0000000000000003", "", "call_llm", 3, map[string]string{attrRequest: sv("{}"), attrResponse: sv("{}")}),
		spanAV(traceA, "0000000000000004", "0000000000000003", "execute_tool get_weather", 4, map[string]string{attrToolName: sv("get_weather"),
			attrToolArgs: sv("{}"), attrToolResp: sv("{}")}),
	))
	res, err = Import(file, Options{Out: t.TempDir()})
	if err != nil || !strings.Contains(fmt.Sprint(res.Missing), "has no args") {
		t.Errorf("%v %v", err, res)
	}
}

// Every OTLP value type an attribute can have is read or refused, the
// error naming the span and the attribute.
func TestAttributeValueTypes(t *testing.T) {
	kv := `{"kvlistValue":{"values":[{"key":"city","value":{"stringValue":"Lisbon"}},{"key":"days","value":{"intValue":"3"}},` +
		`{"key":"metric","value":{"boolValue":true}},{"key":"t","value":{"doubleValue":1.5}},{"key":"tags","value":{"arrayValue":{"values":[{"stringValue":"a"}]}}}]}}`
	for _, tc := range []struct {
		key, value, want, err string
	}{
		{attrSession, `{"intValue":"42"}`, "", ""},
		{attrSession, `{"doubleValue":1.5}`, "", "spans[1] (execute_tool t): attribute gcp.vertex.agent.session_id is a doubleValue; want a string"},
		{attrSession, `{"boolValue":true}`, "", "attribute gcp.vertex.agent.session_id is a boolValue"},
		{attrSession, `{"arrayValue":{"values":[]}}`, "", "attribute gcp.vertex.agent.session_id is an arrayValue"},
		{attrSession, `{"kvlistValue":{"values":[]}}`, "", "attribute gcp.vertex.agent.session_id is a kvlistValue"},
		{attrToolName, `{"bytesValue":"AAEC"}`, "", "attribute gen_ai.tool.name is a bytesValue"},
		{attrToolArgs, kv, `{"city":"Lisbon","days":3,"metric":true,"t":1.5,"tags":["a"]}`, ""},
		{attrToolArgs, sv(`{"city": "Lisbon"}`), `{"city":"Lisbon"}`, ""},
		{attrToolArgs, `{"arrayValue":{"values":[{"stringValue":"a"}]}}`, "", "attribute gcp.vertex.agent.tool_call_args is not a JSON object"},
		{attrToolArgs, `{"bytesValue":"AAEC"}`, "", "attribute gcp.vertex.agent.tool_call_args is a bytesValue (3 bytes)"},
		{attrToolArgs, `{"kvlistValue":{"values":[{"key":"blob","value":{"bytesValue":"AAEC"}}]}}`, "", "gcp.vertex.agent.tool_call_args.blob is a bytesValue"},
		{attrToolArgs, sv(`{"city": `), "", "gcp.vertex.agent.tool_call_args is not JSON text"},
		{attrToolArgsOT, kv, `{"city":"Lisbon","days":3,"metric":true,"t":1.5,"tags":["a"]}`, ""},
		{attrToolResp, `{"intValue":"7"}`, "", ""},
		{attrToolResp, `{"doubleValue":0.5}`, "", ""},
		{attrToolResp, sv("<not specified>"), "", ""},    // ADK Go, no result
		{attrToolResp, sv("<not serializable>"), "", ""}, // ADK, a result it could not dump
		{attrToolArgs, sv("<not serializable>"), "", ""},
	} {
		attrs := map[string]string{attrToolName: sv("t"), tc.key: tc.value}
		if tc.key == attrToolName {
			attrs = map[string]string{tc.key: tc.value}
		}
		data := export(
			spanAV(traceA, "0000000000000003", "", "call_llm", 3, map[string]string{attrRequest: sv(request("q")), attrResponse: sv(response("a"))}),
			spanAV(traceA, "0000000000000004", "0000000000000003", "execute_tool t", 4, attrs),
		)
		r, _ := newRedactor(nil)
		_, res, err := Convert("f.json", data, "f", r)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), "f.json: ") || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s %s: err %v, want %q", tc.key, tc.value, err, tc.err)
			}
		case err != nil:
			t.Errorf("%s %s: %v", tc.key, tc.value, err)
		case tc.want != "":
			got, _ := json.Marshal(res.evalSessions[0].Invocations[0].ToolCalls[0].Args)
			if string(got) != tc.want {
				t.Errorf("%s %s: args %s, want %s", tc.key, tc.value, got, tc.want)
			}
		}
	}
	// A result that is not an object is wrapped as ADK wraps it.
	data := export(spanAV(traceA, "0000000000000003", "", "call_llm", 3, map[string]string{attrRequest: sv(request("q")), attrResponse: sv(response("a"))}),
		spanAV(traceA, "0000000000000004", "0000000000000003", "execute_tool t", 4, map[string]string{attrToolName: sv("t"), attrToolResp: `{"intValue":"7"}`}))
	r, _ := newRedactor(nil)
	_, res, err := Convert("f.json", data, "f", r)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := json.Marshal(res.evalSessions[0].Invocations[0].ToolResults); string(got) != `[{"name":"t","response":{"result":7}}]` {
		t.Errorf("results %s", got)
	}
	// ADK's "<not specified>" result, bare (ADK Go) or wrapped (ADK
	// Python), is a result the span lacks.
	for _, v := range []string{sv("<not specified>"), sv(`{"result": "<not specified>"}`)} {
		data := export(spanAV(traceA, "0000000000000003", "", "call_llm", 3, map[string]string{attrRequest: sv(request("q")), attrResponse: sv(response("a"))}),
			spanAV(traceA, "0000000000000004", "0000000000000003", "execute_tool t", 4, map[string]string{attrToolName: sv("t"), attrToolResp: v}))
		_, res, err := Convert("f.json", data, "f", r)
		if err != nil || len(res.evalSessions[0].Invocations[0].ToolResults) != 0 || !strings.Contains(fmt.Sprint(res.Missing), "gcp.vertex.agent.tool_response; ") {
			t.Errorf("%s: %v %+v", v, err, res.Missing)
		}
	}
}

// An export with spans but none of ADK's is an error saying so.
func TestNoADKSpans(t *testing.T) {
	r, _ := newRedactor(nil)
	_, _, err := Convert("f.json", export(spanAV(traceA, "0000000000000001", "", "GET", 1, map[string]string{"http.request.method": sv("GET")})), "f", r)
	if err == nil || !strings.Contains(err.Error(), "f.json: no ADK span (invocation, invoke_agent, call_llm, execute_tool)") {
		t.Errorf("err %v", err)
	}
	_, _, err = Convert("f.json", export(spanAV(traceA, "0000000000000001", "", "invocation", 1, nil)), "f", r)
	if err == nil || !strings.Contains(err.Error(), "f.json: no call_llm or execute_tool span") {
		t.Errorf("err %v", err)
	}
}

// Sessions are grouped by their ids as read; an id that does not look
// machine-made is written as a placeholder, unless KeepIDs.
func TestIDs(t *testing.T) {
	traceC := "2102030405060708090a0b0c0d0e0f10"
	call := func(trace, session, invocation string, start int) string {
		return span(trace, fmt.Sprintf("%016x", start), "", "call_llm", start, map[string]string{attrRequest: request("q"), attrResponse: response("a"),
			attrSession: session, attrInvoc: invocation})
	}
	data := export(call(traceA, "alice", "turn-1-alice", 1), call(traceB, uuid1, "e-"+uuid1, 2), call(traceC, "alice", "turn-2-alice", 3))
	r, _ := newRedactor(nil)
	cas, res, err := Convert("f.json", data, "f", r)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(res.SessionIDs); got != "[{1 <SESSION_ID_1>} {2 "+uuid1+"}]" {
		t.Errorf("session ids %s", got)
	}
	var tags []string
	for _, x := range cas.Exchanges {
		tags = append(tags, fmt.Sprintf("%d/%d %s", x.Place.Session, x.Place.Invocation, x.Place.Tag))
	}
	if got := strings.Join(tags, ", "); got != "1/1 <INVOCATION_ID_1>, 2/1 e-"+uuid1+", 1/2 <INVOCATION_ID_2>" {
		t.Errorf("tags %s", got)
	}
	if res.Replacements[0].Kind != "session_id" || res.Replacements[0].Masked != "*****" && !strings.HasPrefix(res.Replacements[0].Masked, "a") {
		t.Errorf("replacements %+v", res.Replacements)
	}
	r, _ = newRedactor(nil)
	r.keepIDs = true
	cas, res, _ = Convert("f.json", data, "f", r)
	if cas.Exchanges[0].Place.Tag != "turn-1-alice" || res.SessionIDs[0].ID != "alice" || len(res.Replacements) != 0 {
		t.Errorf("kept: %+v %+v", cas.Exchanges[0].Place, res)
	}
}

// The forward proxy's HTTP spans carry no bodies: each is listed as not
// imported, and the case is made from ADK's spans.
func TestForwardProxySpansListed(t *testing.T) {
	adk := span(traceA, "0000000000000003", "", "call_llm", 3, map[string]string{attrRequest: request("q"), attrResponse: response("a")})
	http := spanAV(traceA, "0000000000000009", "0000000000000003", "GET", 4, map[string]string{"http.request.method": sv("GET"), "url.full": sv("https://api.example.com/v1?u=1")})
	data := []byte(`{"resourceSpans":[{"scopeSpans":[{"scope":{"name":"gcp.vertex.agent"},"spans":[` + adk + `]},{"scope":{"name":"adkproxy.forward_proxy"},"spans":[` + http + `]}]}]}`)
	r, _ := newRedactor(nil)
	cas, res, err := Convert("f.json", data, "f", r)
	if err != nil {
		t.Fatal(err)
	}
	if len(cas.Exchanges) != 1 || len(res.Missing) != 1 ||
		!strings.Contains(res.Missing[0].String(), "f.json: resourceSpans[0].scopeSpans[1].spans[0] (GET): a tool's HTTP exchange") {
		t.Errorf("%d exchanges, missing %q", len(cas.Exchanges), res.Missing)
	}
	if strings.Contains(fmt.Sprint(res.Missing), "api.example.com") {
		t.Error("the URL, which may hold personal data, is repeated")
	}
}

// An invocation whose spans carry nothing to score is still one of the
// case's, so the case has as many invocations as the conversation had.
func TestEmptyInvocationKept(t *testing.T) {
	data := export(
		span(traceA, "0000000000000003", "", "call_llm", 3, map[string]string{attrSession: uuid1}),
		span(traceB, "0000000000000004", "", "call_llm", 4, map[string]string{attrRequest: request("q"), attrResponse: response("a"), attrSession: uuid1}),
	)
	r, _ := newRedactor(nil)
	_, res, err := Convert("f.json", data, "f", r)
	if err != nil {
		t.Fatal(err)
	}
	if res.Invocations != 2 || len(res.evalSessions) != 1 || res.evalSessions[0].Invocations[0].UserText != "" ||
		res.evalSessions[0].Invocations[1].FinalResponse != "a" {
		t.Errorf("%+v", res.evalSessions)
	}
}

// ADK Go (and ADK's newer OpenTelemetry conventions) writes no call_llm:
// generate_content spans carry the GenAI messages when content is
// captured, execute_tool the OpenTelemetry tool attributes. The case is
// made from them; the model calls cannot be rebuilt and are listed.
func TestADKGoSpans(t *testing.T) {
	in := `[{"role":"user","parts":[{"type":"text","content":"hello, I am bob@example.com"}]}]`
	out1 := `[{"role":"assistant","finish_reason":"tool_call","parts":[{"type":"tool_call","name":"some_tool","arguments":{"arg1":"val1"}}]}]`
	out2 := `[{"role":"assistant","finish_reason":"stop","parts":[{"type":"text","content":"text response"}]}]`
	root := spanAV(traceA, "0000000000000001", "", "invoke_workflow root", 1, map[string]string{attrConversat: sv(uuid1)})
	agent := spanAV(traceA, "0000000000000002", "0000000000000001", "invoke_agent root", 2, map[string]string{attrAgent: sv("root"), attrConversat: sv(uuid1)})
	file := writeExport(t, export(root, agent,
		spanAV(traceA, "0000000000000003", "0000000000000002", "generate_content mock", 3, map[string]string{attrInputMsgs: sv(in), attrOutputMsgs: sv(out1)}),
		spanAV(traceA, "0000000000000004", "0000000000000002", "execute_tool some_tool", 4, map[string]string{attrToolName: sv("some_tool"), attrToolCallID: sv("c1"),
			attrToolArgsOT: sv(`{"arg1":"val1"}`), attrToolRespOT: sv(`{"result":"processed val1"}`)}),
		spanAV(traceA, "0000000000000005", "0000000000000002", "generate_content mock", 5, map[string]string{attrInputMsgs: sv(in), attrOutputMsgs: sv(out2)}),
	))
	res, err := Import(file, Options{Out: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	set := evalSetOf(t, res.EvalSet)
	inv := set.EvalCases[0].Conversation[0]
	uses, _ := textfmt.CompactJSON(inv.IntermediateData.ToolUses)
	if res.Cassette != "" || inv.UserContent.Parts[0].Text != "hello, I am <EMAIL_1>" || inv.FinalResponse == nil ||
		inv.FinalResponse.Parts[0].Text != "text response" || string(uses) != `[{"args":{"arg1":"val1"},"name":"some_tool"}]` {
		t.Errorf("result %+v, invocation %+v", res, inv)
	}
	if len(res.Missing) != 2 || !strings.Contains(res.Missing[0].String(), "spans[2] (generate_content mock): a generate_content span without a call_llm") {
		t.Errorf("missing %q", res.Missing)
	}
	// Without content: the tool by name, and what each span lacks.
	file = writeExport(t, export(root, agent,
		spanAV(traceA, "0000000000000003", "0000000000000002", "generate_content mock", 3, nil),
		spanAV(traceA, "0000000000000004", "0000000000000002", "execute_tool some_tool", 4, map[string]string{attrToolName: sv("some_tool"), attrToolCallID: sv("c1")}),
		spanAV(traceA, "0000000000000005", "0000000000000002", "generate_content mock", 5, nil),
	))
	res, err = Import(file, Options{Out: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	all := fmt.Sprint(res.Missing)
	for _, want := range []string{"spans[2] (generate_content mock): no gen_ai.input.messages and gen_ai.output.messages;",
		"spans[2] (generate_content mock): no gen_ai.input.messages; no span of the trace carries the user's text",
		"spans[4] (generate_content mock): no gen_ai.output.messages; it is the trace's last model call",
		"spans[3] (execute_tool some_tool): no gcp.vertex.agent.tool_call_args and gcp.vertex.agent.tool_response"} {
		if !strings.Contains(all, want) {
			t.Errorf("missing lacks %q:\n%s", want, all)
		}
	}
}
