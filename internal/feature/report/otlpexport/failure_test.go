package otlpexport_test

import (
	"testing"
	"time"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/recorded"
	"github.com/adkproxy/adkproxy/internal/feature/report/otlpexport"
)

// TestExportFailures: a model call that got 429 and the retry that
// answered are two call_llm spans, the first with status ERROR, its
// error.type and no response attributes; a tool's HTTP call answered 503
// is an ERROR client span, a byte that is not UTF-8 in its query a
// replacement character (OTLP strings are UTF-8); a Vertex AI path is
// gen_ai.system vertex_ai.
func TestExportFailures(t *testing.T) {
	place := func(step int) *cassettes.Place {
		return &cassettes.Place{Session: 1, Invocation: 1, Step: step, Agent: "root", User: "weather in Paris?"}
	}
	const path = "/v1beta1/projects/p/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent"
	request := cassettes.Request{Method: "POST", Path: path, Body: []byte(`{"contents":[{"role":"user","parts":[{"text":"weather in Paris?"}]}],"tools":[{"functionDeclarations":[{"name":"get_weather"}]}]}`)}
	c := &cassettes.Cassette{Name: "failing", Exchanges: []*cassettes.Exchange{
		{Request: request, Place: place(0), Response: cassettes.Response{Status: 429, Latency: 3 * time.Millisecond,
			Body: []byte(`{"error":{"code":429,"message":"Quota exceeded","status":"RESOURCE_EXHAUSTED"}}`)}},
		{Request: request, Place: place(0), Response: cassettes.Response{Status: 200, Latency: 5 * time.Millisecond,
			Body: []byte(`{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"id":"c1","name":"get_weather","args":{"city":"Paris"}}}]},"finishReason":"STOP"}]}`)}},
		{Request: cassettes.Request{Scheme: "https", Host: "weather.example.com:8443", Method: "GET", Path: "/v1/current", Query: "city=Paris&note=\xff"},
			Place: place(0), Response: cassettes.Response{Status: 503, Latency: 2 * time.Millisecond, Body: []byte("down")}},
	}}
	run := recorded.Run{Cassettes: []recorded.Cassette{recorded.CassetteOf("failing", "failing.yaml", c)}}
	data, err := otlpexport.MarshalJSON(otlpexport.Build(run, otlpexport.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	req, err := otlpexport.UnmarshalJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	var calls, gens []*tracepb.Span
	var get, tool *tracepb.Span
	for _, ss := range req.ResourceSpans[0].ScopeSpans {
		for _, s := range ss.Spans {
			switch s.Name {
			case "call_llm":
				calls = append(calls, s)
			case "generate_content gemini-2.5-flash":
				gens = append(gens, s)
			case "GET":
				get = s
			case "execute_tool get_weather":
				tool = s
			}
		}
	}
	if len(calls) != 2 || len(gens) != 2 || get == nil || tool == nil {
		t.Fatalf("spans: %d call_llm, %d generate_content, GET %v, tool %v", len(calls), len(gens), get != nil, tool != nil)
	}
	failed := calls[0]
	if failed.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR || failed.Status.GetMessage() != "429 RESOURCE_EXHAUSTED" ||
		attrString(failed, "error.type") != "RESOURCE_EXHAUSTED" || attr(failed, "gcp.vertex.agent.llm_response") != nil ||
		attr(failed, "gen_ai.usage.input_tokens") != nil || gens[0].Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR {
		t.Errorf("the failed call: %v", failed)
	}
	if calls[1].Status != nil || attr(calls[1], "gcp.vertex.agent.llm_response") == nil || duration(failed) != 3*time.Millisecond ||
		calls[1].StartTimeUnixNano != failed.EndTimeUnixNano {
		t.Errorf("the retry: %v", calls[1])
	}
	if attrString(gens[1], "gen_ai.system") != "vertex_ai" || attrString(tool, "gen_ai.tool.call.id") != "c1" {
		t.Errorf("vertex_ai system or call id: %v %v", gens[1].Attributes, tool.Attributes)
	}
	if get.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR || attrString(get, "error.type") != "503" ||
		attrString(get, "server.address") != "weather.example.com" || attr(get, "server.port").GetIntValue() != 8443 ||
		attrString(get, "url.full") != "https://weather.example.com:8443/v1/current?city=Paris&note=\uFFFD" || duration(get) != 2*time.Millisecond {
		t.Errorf("the failed HTTP call: %v", get)
	}
}
