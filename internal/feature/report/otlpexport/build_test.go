package otlpexport_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/recorded"
	"github.com/adkproxy/adkproxy/internal/feature/report/otlpexport"
)

// exportOf loads the cassettes in dir, exports them from start, and reads
// the OTLP/JSON back with the OTLP types.
func exportOf(t *testing.T, dir string, start time.Time) ([]byte, []*tracepb.Span, *tracepb.ResourceSpans) {
	t.Helper()
	loaded, err := cassettes.LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	data, err := otlpexport.MarshalJSON(otlpexport.Build(recorded.Build(dir, loaded), otlpexport.Options{Start: start}))
	if err != nil {
		t.Fatal(err)
	}
	req, err := otlpexport.UnmarshalJSON(data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if len(req.ResourceSpans) != 1 {
		t.Fatalf("%d resources, want the one cassette's", len(req.ResourceSpans))
	}
	var spans []*tracepb.Span
	for _, ss := range req.ResourceSpans[0].ScopeSpans {
		spans = append(spans, ss.Spans...)
	}
	return data, spans, req.ResourceSpans[0]
}

func attr(s *tracepb.Span, key string) *commonpb.AnyValue {
	for _, kv := range s.Attributes {
		if kv.Key == key {
			return kv.Value
		}
	}
	return nil
}

func attrString(s *tracepb.Span, key string) string { return attr(s, key).GetStringValue() }

// tree renders the spans of one trace as "name(kind)" lines indented by
// depth, children in start order then as built.
func tree(spans []*tracepb.Span, parent []byte, depth int) string {
	var b strings.Builder
	for _, s := range spans {
		if bytes.Equal(s.ParentSpanId, parent) {
			kind := ""
			if s.Kind == tracepb.Span_SPAN_KIND_CLIENT {
				kind = " (client)"
			}
			b.WriteString(strings.Repeat("  ", depth) + s.Name + kind + "\n")
			b.WriteString(tree(spans, s.SpanId, depth+1))
		}
	}
	return b.String()
}

func byName(t *testing.T, spans []*tracepb.Span, name string) *tracepb.Span {
	t.Helper()
	for _, s := range spans {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no span %q", name)
	return nil
}

func duration(s *tracepb.Span) time.Duration {
	return time.Duration(s.EndTimeUnixNano - s.StartTimeUnixNano)
}

// TestExportRecordedMultiAgentRun: a run recorded through the proxy (a
// transfer, a function tool whose HTTP call went through the forward
// proxy, a streamed answer, then a second turn) exports as one trace per
// invocation in ADK's tree, parsed back with the OTLP types: names, parent
// links, attributes, and times laid out from the recorded latencies.
func TestExportRecordedMultiAgentRun(t *testing.T) {
	dir := recordRun(t)
	start := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	data, spans, resource := exportOf(t, dir, start)

	traces := map[string][]*tracepb.Span{}
	var order []string
	for _, s := range spans {
		id := hex.EncodeToString(s.TraceId)
		if traces[id] == nil {
			order = append(order, id)
		}
		traces[id] = append(traces[id], s)
	}
	if len(order) != 2 {
		t.Fatalf("%d traces, want one per invocation (2)", len(order))
	}
	first, second := traces[order[0]], traces[order[1]]
	want := `invocation
  invoke_agent coordinator
    call_llm
      generate_content gemini-2.5-flash
        execute_tool transfer_to_agent
  invoke_agent weather_agent
    call_llm
      generate_content gemini-2.5-flash
        execute_tool get_weather
        GET (client)
    call_llm
      generate_content gemini-2.5-flash
`
	if got := tree(first, nil, 0); got != want {
		t.Errorf("first trace:\n%s\nwant\n%s", got, want)
	}
	if got := tree(second, nil, 0); got != "invocation\n  invoke_agent coordinator\n    call_llm\n      generate_content gemini-2.5-flash\n" {
		t.Errorf("second trace:\n%s", got)
	}

	// Resource and scopes.
	if got := resourceAttr(resource, "service.name"); got != "adkproxy" {
		t.Errorf("service.name %q", got)
	}
	if got := resourceAttr(resource, "adkproxy.cassette.name"); got != "default" {
		t.Errorf("adkproxy.cassette.name %q", got)
	}
	if s := resource.ScopeSpans; len(s) != 2 || s[0].Scope.Name != "gcp.vertex.agent" || s[1].Scope.Name != "adkproxy.forward_proxy" ||
		len(s[1].Spans) != 1 || s[0].SchemaUrl != "https://opentelemetry.io/schemas/1.36.0" {
		t.Errorf("scopes %v", s)
	}

	// Attributes, as ADK sets them.
	for _, tr := range [][]*tracepb.Span{first, second} {
		for _, s := range tr {
			if strings.HasPrefix(s.Name, "invoke_agent ") {
				if attrString(s, "gen_ai.conversation.id") != "default/1" || attrString(s, "gen_ai.operation.name") != "invoke_agent" ||
					attrString(s, "gen_ai.agent.name") != strings.TrimPrefix(s.Name, "invoke_agent ") || attr(s, "gen_ai.agent.description") == nil {
					t.Errorf("%s attributes %v", s.Name, s.Attributes)
				}
			}
		}
	}
	var calls, gens []*tracepb.Span
	for _, s := range first {
		switch {
		case s.Name == "call_llm":
			calls = append(calls, s)
		case strings.HasPrefix(s.Name, "generate_content "):
			gens = append(gens, s)
		}
	}
	coord := calls[0]
	for key, want := range map[string]string{"gen_ai.system": "gcp.vertex.agent", "gen_ai.request.model": "gemini-2.5-flash",
		"gcp.vertex.agent.invocation_id": "default/1/1", "gcp.vertex.agent.session_id": "default/1"} {
		if got := attrString(coord, key); got != want {
			t.Errorf("call_llm %s = %q, want %q", key, got, want)
		}
	}
	if attr(coord, "gen_ai.request.top_p").GetDoubleValue() != 0.9 || attr(coord, "gen_ai.request.max_tokens").GetIntValue() != 256 {
		t.Errorf("call_llm request config attributes %v", coord.Attributes)
	}
	if got := attr(coord, "gen_ai.response.finish_reasons").GetArrayValue().GetValues(); len(got) != 1 || got[0].GetStringValue() != "stop" {
		t.Errorf("finish reasons %v", got)
	}
	if attr(coord, "gen_ai.usage.input_tokens").GetIntValue() != 4 || attr(coord, "gen_ai.usage.output_tokens").GetIntValue() != 1 {
		t.Errorf("usage %v", coord.Attributes)
	}
	var llmRequest struct {
		Model    string         `json:"model"`
		Config   map[string]any `json:"config"`
		Contents []struct {
			Role  string           `json:"role"`
			Parts []map[string]any `json:"parts"`
		} `json:"contents"`
	}
	raw := attrString(coord, "gcp.vertex.agent.llm_request")
	if err := json.Unmarshal([]byte(raw), &llmRequest); err != nil {
		t.Fatalf("llm_request %q: %v", raw, err)
	}
	tools, _ := json.Marshal(llmRequest.Config["tools"])
	if llmRequest.Model != "gemini-2.5-flash" || llmRequest.Config["top_p"] != 0.9 || llmRequest.Config["max_output_tokens"] != 256.0 ||
		llmRequest.Config["system_instruction"] == nil || !strings.Contains(string(tools), `"function_declarations"`) ||
		!strings.Contains(string(tools), `"agent_name"`) || len(llmRequest.Contents) != 1 || llmRequest.Contents[0].Parts[0]["text"] != "Ask weather_agent about Paris" {
		t.Errorf("llm_request %s", raw)
	}
	if !strings.HasPrefix(raw, `{"model": "gemini-2.5-flash", "config": {`) {
		t.Errorf("llm_request is not written as ADK's json.dumps: %s", raw)
	}
	streamed := calls[2]
	var llmResponse map[string]any
	if err := json.Unmarshal([]byte(attrString(streamed, "gcp.vertex.agent.llm_response")), &llmResponse); err != nil {
		t.Fatal(err)
	}
	content, _ := json.Marshal(llmResponse["content"])
	if string(content) != `{"parts":[{"text":"It is 18°C in Paris, clear."}],"role":"model"}` || llmResponse["finish_reason"] != "STOP" ||
		llmResponse["usage_metadata"] == nil || llmResponse["model_version"] != "gemini-2.5-flash" {
		t.Errorf("llm_response of the streamed answer %v (content %s)", llmResponse, content)
	}
	for i, gen := range gens {
		if attrString(gen, "gen_ai.operation.name") != "generate_content" || attrString(gen, "gcp.vertex.agent.event_id") != attrString(calls[i], "gcp.vertex.agent.event_id") ||
			attrString(gen, "gen_ai.conversation.id") != "default/1" || attrString(gen, "gen_ai.system") != "gemini" {
			t.Errorf("generate_content %d attributes %v", i, gen.Attributes)
		}
	}
	if gens[0].Attributes == nil || attrString(gens[0], "gen_ai.agent.name") != "coordinator" || attrString(gens[1], "gen_ai.agent.name") != "weather_agent" {
		t.Errorf("generate_content agent names")
	}
	tool := byName(t, first, "execute_tool get_weather")
	for key, want := range map[string]string{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather",
		"gen_ai.tool.description": "Current weather in a city", "gen_ai.tool.call.id": "<not specified>",
		"gcp.vertex.agent.tool_call_args": `{"city": "Paris"}`, "gcp.vertex.agent.tool_response": `{"city": "Paris", "sky": "clear", "temp_c": 18}`,
		"gcp.vertex.agent.llm_request": "{}", "gcp.vertex.agent.llm_response": "{}"} {
		if got := attrString(tool, key); got != want {
			t.Errorf("execute_tool %s = %q, want %q", key, got, want)
		}
	}
	if id := attrString(tool, "gcp.vertex.agent.event_id"); len(id) != 36 || id == attrString(calls[1], "gcp.vertex.agent.event_id") {
		t.Errorf("execute_tool event id %q", id)
	}
	if transfer := byName(t, first, "execute_tool transfer_to_agent"); attrString(transfer, "gcp.vertex.agent.tool_call_args") != `{"agent_name": "weather_agent"}` {
		t.Errorf("transfer attributes %v", transfer.Attributes)
	}
	get := byName(t, first, "GET")
	if get.Kind != tracepb.Span_SPAN_KIND_CLIENT || !bytes.Equal(get.ParentSpanId, gens[1].SpanId) ||
		attrString(get, "url.full") != "http://weather.example.test/v1/current?city=Paris" || attrString(get, "http.request.method") != "GET" ||
		attrString(get, "server.address") != "weather.example.test" || attr(get, "server.port").GetIntValue() != 80 ||
		attr(get, "http.response.status_code").GetIntValue() != 200 || get.Status != nil {
		t.Errorf("HTTP span %v", get)
	}

	// Times: the recorded latencies, one after another from start.
	loaded, err := cassettes.Load(filepath.Join(dir, "default.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var model, tools2 []time.Duration
	for _, x := range loaded.Exchanges {
		if x.IsTool() {
			tools2 = append(tools2, x.Response.Latency)
		} else {
			model = append(model, x.Response.Latency)
		}
	}
	root := first[0]
	if root.Name != "invocation" || root.StartTimeUnixNano != uint64(start.UnixNano()) {
		t.Errorf("the first invocation starts at %d, want %d", root.StartTimeUnixNano, start.UnixNano())
	}
	if got := duration(get); got != tools2[0] {
		t.Errorf("HTTP span lasts %v, want the recorded %v", got, tools2[0])
	}
	if tool.StartTimeUnixNano != calls[1].StartTimeUnixNano+uint64(model[1]) || duration(tool) != tools2[0] || get.StartTimeUnixNano != tool.StartTimeUnixNano {
		t.Errorf("execute_tool runs from %d for %v, want from the answer at %d for the HTTP call's %v",
			tool.StartTimeUnixNano, duration(tool), calls[1].StartTimeUnixNano+uint64(model[1]), tools2[0])
	}
	for i, c := range calls {
		want := model[i]
		if i == 1 {
			want += tools2[0]
		}
		if duration(c) != want || duration(gens[i]) != want || gens[i].StartTimeUnixNano != c.StartTimeUnixNano {
			t.Errorf("call_llm %d lasts %v (generate_content %v), want %v", i, duration(c), duration(gens[i]), want)
		}
		if i > 0 && c.StartTimeUnixNano != calls[i-1].EndTimeUnixNano {
			t.Errorf("call_llm %d starts at %d, not when step %d ended (%d)", i, c.StartTimeUnixNano, i-1, calls[i-1].EndTimeUnixNano)
		}
	}
	total := model[0] + model[1] + tools2[0] + model[2]
	if duration(root) != total || second[0].StartTimeUnixNano != root.EndTimeUnixNano || duration(second[0]) != model[3] {
		t.Errorf("invocations: first lasts %v (want %v), second starts at %d (first ends %d) and lasts %v (want %v)",
			duration(root), total, second[0].StartTimeUnixNano, root.EndTimeUnixNano, duration(second[0]), model[3])
	}
	for _, tr := range [][]*tracepb.Span{first, second} {
		for _, s := range tr {
			for _, p := range tr {
				if bytes.Equal(s.ParentSpanId, p.SpanId) && (s.StartTimeUnixNano < p.StartTimeUnixNano || s.EndTimeUnixNano > p.EndTimeUnixNano) {
					t.Errorf("%s is not within its parent %s", s.Name, p.Name)
				}
			}
		}
	}

	// The OTLP/JSON form: hex ids, enums as numbers, 64-bit times as strings.
	for _, want := range []string{`"traceId": "` + order[0] + `"`, `"kind": 3`, `"kind": 1`, `"startTimeUnixNano": "` + itoa(start.UnixNano()) + `"`} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("the OTLP/JSON lacks %s", want)
		}
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

func resourceAttr(r *tracepb.ResourceSpans, key string) string {
	for _, kv := range r.Resource.Attributes {
		if kv.Key == key {
			return kv.Value.GetStringValue()
		}
	}
	return ""
}

// TestExportIsReproducible: the same cassettes export to the same bytes;
// another start moves the times and keeps the ids; another recording of
// the same conversation (different latencies) gets other trace ids.
func TestExportIsReproducible(t *testing.T) {
	dir := recordRun(t)
	a, spansA, _ := exportOf(t, dir, time.Time{})
	b, _, _ := exportOf(t, dir, time.Time{})
	if !bytes.Equal(a, b) {
		t.Fatal("two exports of the same cassettes differ")
	}
	if spansA[0].StartTimeUnixNano != uint64(otlpexport.DefaultStart.UnixNano()) {
		t.Errorf("without a start the run starts at %d, want DefaultStart", spansA[0].StartTimeUnixNano)
	}
	_, spansC, _ := exportOf(t, dir, otlpexport.DefaultStart.Add(time.Hour))
	seen := map[string]bool{}
	for i, s := range spansA {
		c := spansC[i]
		if !bytes.Equal(s.SpanId, c.SpanId) || !bytes.Equal(s.TraceId, c.TraceId) || c.StartTimeUnixNano-s.StartTimeUnixNano != uint64(time.Hour) {
			t.Errorf("span %s: another start changed its ids or not its time by an hour", s.Name)
		}
		id := hex.EncodeToString(s.TraceId) + hex.EncodeToString(s.SpanId)
		if seen[id] {
			t.Errorf("span id of %s repeats", s.Name)
		}
		seen[id] = true
	}
	_, spansD, _ := exportOf(t, recordRun(t), time.Time{})
	if bytes.Equal(spansA[0].TraceId, spansD[0].TraceId) {
		t.Error("another recording got the same trace id")
	}
	if !reflect.DeepEqual(names(spansA), names(spansD)) {
		t.Errorf("another recording of the same run has another tree: %v vs %v", names(spansA), names(spansD))
	}
}

func names(spans []*tracepb.Span) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name)
	}
	return out
}
