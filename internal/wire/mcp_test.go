package wire

import (
	"net/http"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
)

func TestMCPOf(t *testing.T) {
	x := &cassettes.Exchange{
		Request: cassettes.Request{Scheme: "stdio", Host: "weather", Method: "POST", Path: "/",
			Body: []byte(`{"method":"tools/call","params":{"name":"get_weather","arguments":{"city": "Paris"}},"jsonrpc":"2.0","id":1}`)},
		Response: cassettes.Response{Status: 200, Body: []byte(`{"result":{"content":[{"type":"text","text":"18"}],"isError":true},"jsonrpc":"2.0","id":1}`)},
	}
	c, ok := MCPOf(x)
	if !ok || c.Label() != "MCP server weather tool get_weather" || c.String() != `weather tools/call get_weather {"city":"Paris"} → tool error` {
		t.Errorf("MCPExchange = %+v (%q, %q)", c, c.Label(), c.String())
	}
	// Streamable HTTP: the answer is an SSE event; the request a POST to a path.
	h := &cassettes.Exchange{
		Request: cassettes.Request{Scheme: "http", Host: "127.0.0.1:8788", Method: "POST", Path: "/mcp",
			Body: []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)},
		Response: cassettes.Response{Status: 200, Events: []cassettes.Event{{Data: []byte("event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"tools\":[]}}\n\n")}}},
	}
	if c, ok := MCPOf(h); !ok || c.String() != "127.0.0.1:8788/mcp tools/list → ok" {
		t.Errorf("MCPOf(http) = %+v, %v", c, ok)
	}
	for _, body := range []string{`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{}}`, `{"contents":[]}`, `[]`, ``} {
		if IsMCP(&cassettes.Request{Scheme: "https", Host: "a", Method: "POST", Body: []byte(body)}) {
			t.Errorf("IsMCP(%s) = true", body)
		}
	}
}

func FuzzMCPOf(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{}}}`), []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	f.Fuzz(func(t *testing.T, req, resp []byte) {
		x := &cassettes.Exchange{Request: cassettes.Request{Scheme: "stdio", Host: "s", Method: "POST", Body: req}, Response: cassettes.Response{Body: resp}}
		c, _ := MCPOf(x)
		_ = c.String()
	})
}

func TestRecogniseMCP(t *testing.T) {
	h := http.Header{}
	h.Set("Accept", "application/json, text/event-stream")
	sid := http.Header{}
	sid.Set("Mcp-Session-Id", "abc")
	for _, req := range []*cassettes.Request{
		{Scheme: "stdio", Host: "weather", Method: "POST", Path: "/"},
		{Scheme: "http", Host: "127.0.0.1:8788", Method: "POST", Path: "/mcp", Header: h},
		{Scheme: "http", Host: "127.0.0.1:8788", Method: "GET", Path: "/mcp", Header: sid},
	} {
		if c := Recognise(req); c.Kind != Tool || c.Dialect == nil || c.Dialect.Name() != DialectMCP {
			t.Errorf("Recognise(%s %s://%s%s) = %+v, want an MCP tool call", req.Method, req.Scheme, req.Host, req.Path, c)
		}
		if n := testing.AllocsPerRun(50, func() { Recognise(req) }); n != 0 {
			t.Errorf("Recognise allocated %.0f times", n)
		}
	}
	if c := Recognise(&cassettes.Request{Scheme: "https", Host: "api.example.com", Method: "GET", Path: "/"}); c.Dialect == nil || c.Dialect.Name() != "http" {
		t.Errorf("a plain tool request is read as %+v", c)
	}
	x := &cassettes.Exchange{Request: cassettes.Request{Scheme: "stdio", Host: "weather", Method: "POST", Path: "/",
		Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_weather","arguments":{"city":"Paris"}}}`)},
		Response: cassettes.Response{Status: 200, Body: []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`)}}
	if tx, ok := ToolOf(x); !ok || tx.Name != "MCP server weather tool get_weather" || string(tx.Arguments) != `{"city":"Paris"}` || string(tx.Result) != `{"content":[]}` {
		t.Errorf("ToolOf = %+v, %v", tx, ok)
	}
}

// TestAnswerWithID: a recorded JSON-RPC answer is given the id the client
// sent, in a JSON body or an SSE event, every other byte kept; the same
// id, a notification or a body that is not JSON-RPC leaves it as it is.
func TestAnswerWithID(t *testing.T) {
	req := func(id string) *cassettes.Request {
		return &cassettes.Request{Method: "POST", Body: []byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"}`)}
	}
	body := &cassettes.Response{Status: 200, Body: []byte(`{"result": {"id": 3, "tools": []}, "jsonrpc":"2.0", "id" : 3}` + "\n")}
	if r, ok := AnswerWithID(req("3"), req(`"abc"`), body); !ok || string(r.Body) != `{"result": {"id": 3, "tools": []}, "jsonrpc":"2.0", "id" : "abc"}`+"\n" {
		t.Errorf("JSON body: %v %q", ok, r.Body)
	}
	if string(body.Body) != `{"result": {"id": 3, "tools": []}, "jsonrpc":"2.0", "id" : 3}`+"\n" {
		t.Errorf("the recording itself changed: %s", body.Body)
	}
	sse := &cassettes.Response{Status: 200, Events: []cassettes.Event{
		{Data: []byte("event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n")},
		{Data: []byte("event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n\n")}}}
	r, ok := AnswerWithID(req("3"), req("12"), sse)
	if !ok || string(r.Events[1].Data) != "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":12,\"result\":{}}\n\n" || string(r.Events[0].Data) != string(sse.Events[0].Data) {
		t.Errorf("SSE: %v %q", ok, r.Events)
	}
	for _, c := range []struct{ recorded, got *cassettes.Request }{
		{req("3"), req("3")},
		{req("3"), &cassettes.Request{Body: []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)}},
		{req("3"), &cassettes.Request{Body: []byte(`{"contents":[]}`)}},
	} {
		if _, ok := AnswerWithID(c.recorded, c.got, body); ok {
			t.Errorf("AnswerWithID(%s, %s) rewrote the answer", c.recorded.Body, c.got.Body)
		}
	}
	v := map[string]any{"jsonrpc": "2.0", "id": 7.0, "method": "tools/call"}
	VolatileJSONRPCID(v)
	n := map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}
	VolatileJSONRPCID(n)
	plain := map[string]any{"id": 7.0}
	VolatileJSONRPCID(plain)
	if v["id"] != idByPlace || len(n) != 2 || plain["id"] != 7.0 {
		t.Errorf("VolatileJSONRPCID: request %v, notification %v, plain JSON %v", v, n, plain)
	}
}

func FuzzAnswerWithID(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`), []byte(`"x"`))
	f.Fuzz(func(t *testing.T, answer, id []byte) {
		recorded := &cassettes.Request{Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"m"}`)}
		got := &cassettes.Request{Body: append(append([]byte(`{"jsonrpc":"2.0","id":`), id...), `,"method":"m"}`...)}
		for _, resp := range []*cassettes.Response{{Body: answer}, {Events: []cassettes.Event{{Data: append([]byte("data: "), answer...)}}}} {
			if r, ok := AnswerWithID(recorded, got, resp); ok && r == resp {
				t.Fatal("the recording itself was rewritten")
			}
		}
	})
}

// TestMCPStream reads a recorded HTTP+SSE stream: the endpoint its first
// event announced, and which events carry which request's response.
func TestMCPStream(t *testing.T) {
	resp := &cassettes.Response{Events: []cassettes.Event{
		{Data: []byte(": ping\r\n\r\n")},
		{Data: []byte("event: endpoint\r\ndata: /messages/?session_id=s1\r\n\r\n")},
		{Data: []byte("event: message\r\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\r\n\r\n")},
		{Data: []byte("event: message\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"a\",\"result\":{}}\r\n\r\n")},
	}}
	if ep, at, ok := MCPStreamEndpoint(resp); !ok || ep != "/messages/?session_id=s1" || at != 1 {
		t.Errorf("MCPStreamEndpoint = %q, %d, %v", ep, at, ok)
	}
	if _, _, ok := MCPStreamEndpoint(&cassettes.Response{Body: []byte(`{}`)}); ok {
		t.Error("a JSON answer announced an endpoint")
	}
	if _, ok := MCPStreamAnswerID(resp.Events[2].Data); ok {
		t.Error("a server's notification was read as a response")
	}
	if id, ok := MCPStreamAnswerID(resp.Events[3].Data); !ok || string(id) != `"a"` {
		t.Errorf("MCPStreamAnswerID = %s, %v", id, ok)
	}
	if id := JSONRPCID([]byte(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)); string(id) != "3" {
		t.Errorf("JSONRPCID = %s", id)
	}
}
