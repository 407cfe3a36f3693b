package wire

import (
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
)

func TestA2AOf(t *testing.T) {
	send := &cassettes.Exchange{
		Request: cassettes.Request{Scheme: "http", Host: "travel.test", Method: "POST", Path: "/",
			Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m1","role":"user",
				"parts":[{"kind":"text","text":"Book Paris"}],"metadata":{"adk_app_name":"travel_agent","adk_session_id":"s"}}}}`)},
		Response: cassettes.Response{Status: 200, Body: []byte(`{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t1","status":{"state":"completed",
			"message":{"kind":"message","parts":[{"kind":"text","text":"Booked."}]}}}}`)},
	}
	c, ok := A2AOf(send)
	if !ok || c.String() != `travel_agent message/send "Book Paris" → completed "Booked."` || c.Label() != "A2A agent travel_agent message/send" {
		t.Errorf("A2AOf(message/send) = %+v (%q)", c, c.String())
	}
	stream := &cassettes.Exchange{
		Request: cassettes.Request{Scheme: "http", Host: "travel.test", Method: "POST", Path: "/",
			Body: []byte(`{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"id":"t1"}}`)},
		Response: cassettes.Response{Status: 200, Events: []cassettes.Event{
			{Data: []byte("data: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"kind\":\"artifact-update\",\"artifact\":{\"parts\":[{\"kind\":\"text\",\"text\":\"ticket\"}]}}}\n\n")}}},
	}
	if c, ok := A2AOf(stream); !ok || c.String() != `travel.test tasks/get t1 → "ticket"` {
		t.Errorf("A2AOf(tasks/get) = %+v (%q)", c, c.String())
	}
	card := &cassettes.Exchange{Request: cassettes.Request{Scheme: "https", Host: "travel.test", Method: "GET", Path: "/.well-known/agent-card.json"},
		Response: cassettes.Response{Status: 200, Body: []byte(`{"name":"travel_agent","url":"https://travel.test/"}`)}}
	if c, ok := A2AOf(card); !ok || c.String() != "travel_agent agent-card" {
		t.Errorf("A2AOf(card) = %+v", c)
	}
	if got := Recognise(&card.Request); got.Dialect == nil || got.Dialect.Name() != DialectA2A {
		t.Errorf("a card fetch is recognised as %+v", got)
	}
	if _, ok := A2AOf(&cassettes.Exchange{Request: cassettes.Request{Scheme: "stdio", Host: "w", Method: "POST",
		Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`)}}); ok {
		t.Error("an MCP call is read as A2A")
	}
}

func FuzzA2AOf(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"parts":[{"text":"x"}]}}}`), []byte(`{"jsonrpc":"2.0","id":1,"result":{"parts":[]}}`))
	f.Fuzz(func(t *testing.T, req, resp []byte) {
		c, _ := A2AOf(&cassettes.Exchange{Request: cassettes.Request{Scheme: "http", Host: "h", Method: "POST", Body: req}, Response: cassettes.Response{Body: resp}})
		_ = c.String()
	})
}
