package wire

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
)

// FuzzWireRawElements: the raw walk finds what encoding/json finds, or
// says to ask it.
func FuzzWireRawElements(f *testing.F) {
	for _, s := range []string{`{"contents":[1, {"a":[2]} ,"x"]}`, `{"Contents":null}`, `{"contents":{}}`, `{"c\u006fntents":[1]}`, `{"contents":[1],"contents":["a\"]"]}`, `[]`, `{}`, ` {"x":"]"} `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, ok := rawElements(body, "contents")
		if !ok {
			return
		}
		var want struct {
			Contents []json.RawMessage `json:"contents"`
		}
		if err := json.Unmarshal(body, &want); err != nil {
			t.Fatalf("%q: walked, but encoding/json says %v", body, err)
		}
		if len(got) != len(want.Contents) {
			t.Fatalf("%q: %d elements, encoding/json %d", body, len(got), len(want.Contents))
		}
		for i := range got {
			if string(got[i]) != string(want.Contents[i]) {
				t.Fatalf("%q: element %d %q, encoding/json %q", body, i, got[i], want.Contents[i])
			}
		}
	})
}

// FuzzWireStep: any request and response bodies, whole or as an event,
// read without a panic in every dialect, and the same twice.
func FuzzWireStep(f *testing.F) {
	f.Add(generatePath, `{"contents":[{"role":"user","parts":[{"functionResponse":{"name":"a","response":{}}}]}]}`, `{"candidates":[{"content":{"parts":[{"text":"x"},{"functionCall":{"name":"f"}}]},"finishReason":"STOP"}],"usageMetadata":{"totalTokenCount":1}}`)
	f.Add("/v1beta/interactions", `{"input":[{"type":"function_result","result":1}]}`, `{"outputs":[{"type":"text","text":"x"}],"usage":{"total_tokens":2}}`)
	f.Add("/v1beta/models/m:countTokens", `{}`, `null`)
	f.Add("/v1beta/openai/chat/completions", `{"messages":[{"role":"assistant","tool_calls":[{"id":"a","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"a","content":[{"type":"text","text":"1"}]}]}`,
		`{"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\":1}"}}]},"finish_reason":"tool_calls"}],"usage":{"total_tokens":1}}`)
	f.Fuzz(func(t *testing.T, path, req, resp string) {
		x := exchange(path, req, resp)
		a := StepOf(x)
		if b := StepOf(x); !reflect.DeepEqual(a, b) {
			t.Fatalf("read twice: %+v, then %+v", a, b)
		}
		RequestOf(&x.Request)
		x.Response.Body, x.Response.Events = nil, []cassettes.Event{{Data: []byte("data: " + resp + "\n\n")}}
		StepOf(x)
	})
}

// FuzzWireFrame: any frame reads without a panic.
func FuzzWireFrame(f *testing.F) {
	f.Add([]byte(`{"setup":{"model":"m","tools":[{"functionDeclarations":[{"name":"f"}]}]}}`))
	f.Add([]byte(`{"server_content":{"model_turn":{"parts":[{"text":"x"}]}},"usage_metadata":{"total_token_count":1}}`))
	f.Add([]byte(`{"toolCall":{"functionCalls":[null,{"name":"f"}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ReadFrame(data)
	})
}

// FuzzWireEventData: an event's payload read in place is the one its
// data lines give when split and joined plainly, as SSE defines it.
func FuzzWireEventData(f *testing.F) {
	for _, s := range []string{"data: {\"a\":1}\r\n\r\n", "data:x\ndata: y\n\n", "event: e\ndata:\n\n", ": c\r\ndata:  two\r\r", "data: a\ndata:\ndata: b\n", ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, ev []byte) {
		var want []byte
		for _, line := range bytes.Split(ev, []byte("\n")) {
			line = bytes.TrimRight(line, "\r")
			if p, ok := bytes.CutPrefix(line, []byte("data:")); ok {
				want = append(want, bytes.TrimPrefix(p, []byte(" "))...)
			}
		}
		got := EventData(ev)
		if !bytes.Equal(got, want) || (got == nil) != (len(want) == 0) {
			t.Fatalf("%q: %q, want %q", ev, got, want)
		}
		before := bytes.Clone(ev)
		_ = append(got, 'x')
		if !bytes.Equal(ev, before) {
			t.Fatalf("%q: appending to the payload wrote into the event", before)
		}
	})
}

// FuzzWireMCPStreamAnswers: whatever a stream's endpoint and events hold,
// reading them never fails, and a POST answered from them is one to the
// endpoint announced, given the answer of its own id.
func FuzzWireMCPStreamAnswers(f *testing.F) {
	f.Add("/messages/?session_id=s1", "/messages/", "session_id=s1", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t"}}`, `{"jsonrpc":"2.0","id":2,"result":{}}`)
	f.Add("http://h/m?s=1", "/m", "s=1", `{"jsonrpc":"2.0","id":"a","method":"x"}`, `{"jsonrpc":"2.0","id":"a","error":{"code":1,"message":"no"}}`)
	f.Add("%zz", "/", "", `{"jsonrpc":"2.0","id":1,"method":"x"}`, "{\"jsonrpc\":\"2.0\",\"id\":1,\r\ndata: \"result\":1}")
	f.Fuzz(func(t *testing.T, endpoint, path, query, post, answer string) {
		stream := &cassettes.Exchange{
			Request: cassettes.Request{Scheme: "http", Host: "h", Method: "GET", Path: "/sse"},
			Response: cassettes.Response{Status: 200, Events: []cassettes.Event{
				{Data: []byte("event: endpoint\ndata: " + endpoint + "\n\n")}, {Data: []byte("data: " + answer + "\n\n")}}},
		}
		x := &cassettes.Exchange{
			Request:  cassettes.Request{Scheme: "http", Host: "h", Method: "POST", Path: path, Query: query, Body: []byte(post)},
			Response: cassettes.Response{Status: 202, Body: []byte("Accepted")},
		}
		got, ok := MCPStreamAnswers([]*cassettes.Exchange{x, stream})[x]
		if !ok {
			return
		}
		if got.ID == "" || got.ID != string(JSONRPCID([]byte(post))) || (got.Result == nil && got.Error == "") {
			t.Fatalf("POST %q answered %+v from %q", post, got, answer)
		}
		if p, q, _ := mcpStreamEndpoint(stream); p != path || q != query {
			t.Fatalf("POST to %s?%s answered from the stream of %q", path, query, endpoint)
		}
	})
}
