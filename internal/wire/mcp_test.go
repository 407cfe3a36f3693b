package wire

import (
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
)

func TestMCPExchange(t *testing.T) {
	x := &cassettes.Exchange{
		Request: cassettes.Request{Scheme: "stdio", Host: "weather", Method: "POST", Path: "/",
			Body: []byte(`{"method":"tools/call","params":{"name":"get_weather","arguments":{"city": "Paris"}},"jsonrpc":"2.0","id":1}`)},
		Response: cassettes.Response{Status: 200, Body: []byte(`{"result":{"content":[{"type":"text","text":"18"}],"isError":true},"jsonrpc":"2.0","id":1}`)},
	}
	c, ok := MCPExchange(x)
	if !ok || c.Label() != "MCP server weather tool get_weather" || c.String() != `weather tools/call get_weather {"city":"Paris"} → tool error` {
		t.Errorf("MCPExchange = %+v (%q, %q)", c, c.Label(), c.String())
	}
	// Streamable HTTP: the answer is an SSE event; the request a POST to a path.
	h := &cassettes.Exchange{
		Request: cassettes.Request{Scheme: "http", Host: "127.0.0.1:8788", Method: "POST", Path: "/mcp",
			Body: []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)},
		Response: cassettes.Response{Status: 200, Events: []cassettes.Event{{Data: []byte("event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"tools\":[]}}\n\n")}}},
	}
	if c, ok := MCPExchange(h); !ok || c.String() != "127.0.0.1:8788/mcp tools/list → ok" {
		t.Errorf("MCPExchange(http) = %+v, %v", c, ok)
	}
	for _, body := range []string{`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{}}`, `{"contents":[]}`, `[]`, ``} {
		if IsMCP(&cassettes.Request{Scheme: "https", Host: "a", Method: "POST", Body: []byte(body)}) {
			t.Errorf("IsMCP(%s) = true", body)
		}
	}
}

func FuzzMCPExchange(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{}}}`), []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	f.Fuzz(func(t *testing.T, req, resp []byte) {
		x := &cassettes.Exchange{Request: cassettes.Request{Scheme: "stdio", Host: "s", Method: "POST", Body: req}, Response: cassettes.Response{Body: resp}}
		c, _ := MCPExchange(x)
		_ = c.String()
	})
}
