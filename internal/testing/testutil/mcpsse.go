package testutil

import "github.com/adkproxy/adkproxy/cassettes"

// MCPOverSSE is a recorded invocation whose agent called an MCP tool over
// MCP's older HTTP+SSE transport, as the proxy records it: a model step,
// the tools/call POST (id 2, get_weather for Paris) filed under it and
// answered 202, and the stream that announced the POST's endpoint and
// carried its result ({"temp_c":TEMP}), filed nowhere.
func MCPOverSSE(temp string) []*cassettes.Exchange {
	place := &cassettes.Place{Session: 1, Invocation: 1, Step: 0, Agent: "root", User: "weather in Paris?"}
	return []*cassettes.Exchange{
		{
			Request:  cassettes.Request{Method: "POST", Path: "/v1beta/models/m:generateContent", Body: []byte(`{"contents":[]}`)},
			Response: cassettes.Response{Status: 200, Body: []byte(`{"candidates":[{"content":{"parts":[{"text":"ok"}]}}]}`)},
			Place:    place,
		},
		{
			Request: cassettes.Request{Scheme: "http", Host: "mcp.test", Method: "POST", Path: "/messages/", Query: "session_id=s1",
				Body: []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_weather","arguments":{"city":"Paris"}}}`)},
			Response: cassettes.Response{Status: 202, Body: []byte("Accepted")},
			Place:    place,
		},
		{
			Request: cassettes.Request{Scheme: "http", Host: "mcp.test", Method: "GET", Path: "/sse"},
			Response: cassettes.Response{Status: 200, End: cassettes.EndReset, Events: []cassettes.Event{
				{Data: []byte("event: endpoint\r\ndata: /messages/?session_id=s1\r\n\r\n")},
				{Data: []byte("event: message\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"temp_c\":" + temp + "}}\r\n\r\n")},
			}},
		},
	}
}
