package recorded

import (
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
)

// sseExchanges are a recorded HTTP+SSE session of MCP, as the proxy
// records it: a model step, the POSTs of two sessions (s1 placed under the
// step, s2 nowhere), each answered 202, and their streams, placed nowhere,
// carrying the answers by id (both sessions number their requests from 0),
// s2's placed under the step as a stream closed during it would be.
func sseExchanges() []*cassettes.Exchange {
	place := &cassettes.Place{Session: 1, Invocation: 1, Step: 0, Agent: "root", User: "weather in Paris?"}
	post := func(session, body string, p *cassettes.Place) *cassettes.Exchange {
		return &cassettes.Exchange{
			Request:  cassettes.Request{Scheme: "http", Host: "mcp.test", Method: "POST", Path: "/messages/", Query: "session_id=" + session, Body: []byte(body)},
			Response: cassettes.Response{Status: 202, Body: []byte("Accepted")},
			Place:    p,
		}
	}
	stream := func(session string, answers ...string) *cassettes.Exchange {
		events := []cassettes.Event{{Data: []byte("event: endpoint\r\ndata: /messages/?session_id=" + session + "\r\n\r\n")}}
		for _, a := range answers {
			events = append(events, cassettes.Event{Data: []byte("event: message\r\ndata: " + a + "\r\n\r\n")})
		}
		return &cassettes.Exchange{
			Request:  cassettes.Request{Scheme: "http", Host: "mcp.test", Method: "GET", Path: "/sse"},
			Response: cassettes.Response{Status: 200, Events: events, End: cassettes.EndReset},
		}
	}
	placed := func(x *cassettes.Exchange, p *cassettes.Place) *cassettes.Exchange { x.Place = p; return x }
	return []*cassettes.Exchange{
		{
			Request:  cassettes.Request{Method: "POST", Path: "/v1beta/models/m:generateContent", Body: []byte(`{"contents":[]}`)},
			Response: cassettes.Response{Status: 200, Body: []byte(`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}}}]}}]}`)},
			Place:    place,
		},
		post("s1", `{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":"get_weather","arguments":{"city":"Paris"}}}`, place),
		post("s1", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`, place),
		post("s2", `{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":"get_weather","arguments":{"city":"Lyon"}}}`, nil),
		stream("s1",
			`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info"}}`,
			`{"jsonrpc":"2.0","id":0,"method":"roots/list"}`,
			`{"jsonrpc":"2.0","id":0,"result":{"temp_c":21}}`),
		placed(stream("s2", `{"jsonrpc":"2.0","id":0,"result":{"temp_c":9}}`), place),
	}
}

// TestMCPStreamAnswersTheirPOSTs: over MCP's older HTTP+SSE transport, a
// POST's result is the event of its stream (the one whose endpoint it was
// sent to, which names its session) carrying the response of its JSON-RPC id, not a notification
// or a server request of that id, nor another session's answer; the
// tools/call is listed with it inside its step, and the streams are
// other requests, not tool calls.
func TestMCPStreamAnswersTheirPOSTs(t *testing.T) {
	c := CassetteOf("c", "c.yaml", &cassettes.Cassette{Exchanges: sseExchanges()})
	if len(c.Sessions) != 1 || len(c.Sessions[0].Invocations) != 1 {
		t.Fatalf("sessions: %+v", c.Sessions)
	}
	step := c.Sessions[0].Invocations[0].Steps[0]
	if len(step.HTTPCalls) != 2 {
		t.Fatalf("the step's tool calls: %d, want the tools/call and the notification", len(step.HTTPCalls))
	}
	call := step.HTTPCalls[0]
	if got, want := call.String(), `mcp.test/messages/ tools/call get_weather {"city":"Paris"} → ok`; got != want {
		t.Errorf("the tools/call: %s, want %s", got, want)
	}
	if call.MCP == nil || string(call.MCP.Result) != `{"temp_c":21}` {
		t.Errorf("the tools/call's result: %+v, want its stream's answer to id 0", call.MCP)
	}
	if got, want := step.HTTPCalls[1].String(), `mcp.test/messages/ notifications/cancelled`; got != want {
		t.Errorf("the notification: %s, want %s", got, want)
	}
	var streams int
	for _, x := range c.Other {
		if x.Request.Method == "GET" {
			streams++
		}
	}
	if len(c.Other) != 3 || streams != 2 {
		t.Errorf("other: %d exchanges, %d streams; want the s2 POST and both streams", len(c.Other), streams)
	}
}
