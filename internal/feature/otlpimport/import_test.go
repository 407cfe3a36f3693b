package otlpimport

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

func TestMain(m *testing.M) { testutil.Main(m) }

// span writes one span of an OTLP/JSON export.
func span(trace, id, parent, name string, start int, attrs map[string]string) string {
	var kvs []string
	for k, v := range attrs {
		s, _ := json.Marshal(v)
		kvs = append(kvs, fmt.Sprintf(`{"key":%q,"value":{"stringValue":%s}}`, k, s))
	}
	p := ""
	if parent != "" {
		p = fmt.Sprintf(`"parentSpanId":%q,`, parent)
	}
	return fmt.Sprintf(`{"traceId":%q,"spanId":%q,%s"name":%q,"startTimeUnixNano":"%d","attributes":[%s]}`,
		trace, id, p, name, start, strings.Join(kvs, ","))
}

func export(spans ...string) []byte {
	return []byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[` + strings.Join(spans, ",") + `]}]}]}`)
}

const (
	uuid1  = "6f1c2a9e-8b3d-4e5f-9a0b-1c2d3e4f5a6b"
	traceA = "0102030405060708090a0b0c0d0e0f10"
	traceB = "1102030405060708090a0b0c0d0e0f10"
)

func request(text string) string {
	return `{"model": "gemini-2.5-flash", "config": {}, "contents": [{"role": "user", "parts": [{"text": ` + quote(text) + `}]}]}`
}

func response(text string) string {
	return `{"content":{"role":"model","parts":[{"text":` + quote(text) + `}]},"finish_reason":"STOP"}`
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// The same value gets the same placeholder everywhere, another value of
// the kind the next number, and a user pattern its own kind.
func TestPlaceholdersAreStable(t *testing.T) {
	data := export(
		span(traceA, "0000000000000001", "", "invocation", 1, nil),
		span(traceA, "0000000000000002", "0000000000000001", "invoke_agent helper", 2, map[string]string{"gen_ai.agent.name": "helper"}),
		span(traceA, "0000000000000003", "0000000000000002", "call_llm", 3, map[string]string{
			attrRequest: request("I am bob@example.com, order ORD-12345"), attrResponse: response("Hi bob@example.com, and cc amy@example.org"),
			attrSession: uuid1}),
	)
	r, _ := newRedactor([]string{`ORD-\d+`})
	cas, res, err := Convert("f.json", data, "f", r)
	if err != nil {
		t.Fatal(err)
	}
	req, resp := string(cas.Exchanges[0].Request.Body), string(cas.Exchanges[0].Response.Body)
	if !strings.Contains(req, "I am <EMAIL_1>, order <REDACTED_1>") || !strings.Contains(resp, "Hi <EMAIL_1>, and cc <EMAIL_2>") {
		t.Errorf("request %s\nresponse %s", req, resp)
	}
	if strings.Contains(req+resp, "example.") || strings.Contains(req, "ORD-") {
		t.Errorf("a value survived: %s %s", req, resp)
	}
	if p := cas.Exchanges[0].Place; p.Agent != "helper" || p.User != "I am <EMAIL_1>, order <REDACTED_1>" {
		t.Errorf("place %+v", p)
	}
	if len(res.Replacements) != 3 || res.Replacements[0].Count != 2 || strings.Contains(res.Replacements[0].Masked, "bob@") {
		t.Errorf("replacements %+v", res.Replacements)
	}
}

// A call_llm span without bodies (ADK with content capture off) is named
// as missing; the others still make the case, one invocation per trace.
func TestMissingBodiesAreListed(t *testing.T) {
	data := export(
		span(traceA, "0000000000000003", "", "call_llm", 3, map[string]string{attrRequest: request("first"), attrResponse: response("one"), attrSession: "s1"}),
		span(traceB, "0000000000000004", "", "call_llm", 5, map[string]string{attrRequest: "{}", attrResponse: "{}", attrSession: "s1"}),
		span(traceB, "0000000000000005", "", "call_llm", 4, map[string]string{attrRequest: request("second"), attrSession: "s1"}),
	)
	r, _ := newRedactor(nil)
	cas, res, err := Convert("f.json", data, "f", r)
	if err != nil {
		t.Fatal(err)
	}
	if len(cas.Exchanges) != 1 || len(res.Missing) != 3 {
		t.Fatalf("exchanges %d, missing %q", len(cas.Exchanges), res.Missing)
	}
	if m := res.Missing[0].String(); !strings.Contains(m, "spans[2] (call_llm): no gcp.vertex.agent.llm_response;") {
		t.Errorf("missing %q", m)
	}
	if m := res.Missing[1].String(); !strings.Contains(m, "no gcp.vertex.agent.llm_request and gcp.vertex.agent.llm_response") {
		t.Errorf("missing %q", m)
	}
	if m := res.Missing[2].String(); !strings.Contains(m, "spans[1] (call_llm): no gcp.vertex.agent.llm_response; it is the trace's last model call: the eval case's invocation has no final response") {
		t.Errorf("missing %q", m)
	}
	// The second trace still makes an invocation of the eval set, from its
	// user's text.
	if res.Invocations != 2 || res.evalSessions[0].Invocations[1].UserText != "second" {
		t.Errorf("invocations %d %+v", res.Invocations, res.evalSessions)
	}
	// Nothing to make a case from at all is an error naming the spans.
	_, _, err = Convert("f.json", export(span(traceB, "0000000000000004", "", "call_llm", 5, nil)), "f", r)
	if err == nil || !strings.Contains(err.Error(), "f.json: nothing to make a case from") ||
		!strings.Contains(err.Error(), "spans[0] (call_llm): no gcp.vertex.agent.llm_request and gcp.vertex.agent.llm_response") {
		t.Errorf("err %v", err)
	}
}

// A collector's file exporter writes one request a line: every line is
// read, and a bad one is named.
func TestRequestPerLine(t *testing.T) {
	one := export(span(traceA, "0000000000000003", "", "call_llm", 3, map[string]string{attrRequest: request("q1"), attrResponse: response("a1"), attrSession: "s"}))
	two := export(span(traceB, "0000000000000004", "", "call_llm", 4, map[string]string{attrRequest: request("q2"), attrResponse: response("a2"), attrSession: "s"}))
	r, _ := newRedactor(nil)
	cas, res, err := Convert("f.jsonl", []byte(string(one)+"\n"+string(two)+"\n"), "f", r)
	if err != nil || len(cas.Exchanges) != 2 || res.Invocations != 2 {
		t.Fatalf("%v %+v", err, res)
	}
	_, _, err = Convert("f.jsonl", []byte(string(one)+"\n{\"resourceSpans\": 3}\n"), "f", r)
	if err == nil || !strings.Contains(err.Error(), "f.jsonl: request 2 (line 2)") {
		t.Errorf("err %v", err)
	}
	if _, _, err = Convert("f.jsonl", nil, "f", r); err == nil || !strings.Contains(err.Error(), "f.jsonl: empty") {
		t.Errorf("err %v", err)
	}
}

// A parent cycle in a broken export ends the walk to the agent.
func TestParentCycle(t *testing.T) {
	data := export(
		span(traceA, "0000000000000001", "0000000000000002", "invoke_agent x", 1, nil),
		span(traceA, "0000000000000002", "0000000000000001", "call_llm", 2, map[string]string{attrRequest: request("q"), attrResponse: response("a")}),
	)
	r, _ := newRedactor(nil)
	cas, _, err := Convert("f.json", data, "f", r)
	if err != nil || cas.Exchanges[0].Place.Agent != "x" {
		t.Fatalf("%v %+v", err, cas)
	}
}

func FuzzConvert(f *testing.F) {
	f.Add(export(span(traceA, "0000000000000003", "", "call_llm", 3, map[string]string{attrRequest: request("a@b.co 4111 1111 1111 1111"), attrResponse: response("ok")})))
	f.Add([]byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":"call_llm"}]}]}]}`))
	f.Add([]byte(`{}`))
	f.Add(export(spanAV(traceA, "0000000000000003", "", "generate_content m", 3, map[string]string{attrInputMsgs: sv(`[{"role":"user","parts":[{"type":"text","content":"q"}]}]`),
		attrOutputMsgs: `{"arrayValue":{"values":[{"kvlistValue":{"values":[{"key":"role","value":{"stringValue":"assistant"}}]}}]}}`}),
		spanAV(traceA, "0000000000000004", "0000000000000003", "execute_tool t", 4, map[string]string{attrToolArgsOT: `{"kvlistValue":{"values":[{"key":"a","value":{"intValue":"1"}}]}}`, attrToolResp: sv("<not specified>")})))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, _ := newRedactor([]string{`x+`})
		cas, res, err := Convert("fuzz.json", data, "fuzz", r)
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.json") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if len(cas.Exchanges) != res.Calls || res.Invocations == 0 || len(res.evalSessions) != res.Sessions {
			t.Fatalf("%d exchanges, %+v", len(cas.Exchanges), res)
		}
	})
}
