package matcher

import (
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
)

// TestToolIgnore: the ids an A2A client makes up for every message never
// tell two tool requests apart, and --ignore paths apply to tool bodies
// as to model requests; any other field still does.
func TestToolIgnore(t *testing.T) {
	req := func(body string) *cassettes.Request {
		return &cassettes.Request{Scheme: "http", Host: "travel.test", Method: "POST", Path: "/", Body: []byte(body)}
	}
	a := req(`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"messageId":"m1","parts":[{"text":"Paris"}],"metadata":{"adk_session_id":"s1"}},"trace":"x1"}}`)
	b := req(`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"messageId":"m2","parts":[{"text":"Paris"}],"metadata":{"adk_session_id":"s2"}},"trace":"x2"}}`)
	if d := Default().DiffTool(a, b); len(d) != 1 || d[0].Path != "body.params.trace" {
		t.Errorf("DiffTool = %v, want only body.params.trace", d)
	}
	if Default().ToolKey(a) == Default().ToolKey(b) {
		t.Error("requests differing in params.trace got one key")
	}
	m, err := New("params.trace")
	if err != nil {
		t.Fatal(err)
	}
	if m.ToolKey(a) != m.ToolKey(b) || len(m.DiffTool(a, b)) != 0 {
		t.Errorf("with --ignore params.trace the requests should match: %v", m.DiffTool(a, b))
	}
	c := req(`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"messageId":"m3","parts":[{"text":"Rome"}]},"trace":"x1"}}`)
	if m.ToolKey(a) == m.ToolKey(c) {
		t.Error("another message text got the recorded key")
	}
}
