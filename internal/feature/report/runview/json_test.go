package runview

import (
	"bytes"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/recorded"
)

// TestJSONDocument: the document writes tool calls without ids, a call
// without arguments as {} (the model keeps it nil), every list as [] when
// empty, and leaves HTML characters unescaped.
func TestJSONDocument(t *testing.T) {
	c := &cassettes.Cassette{Exchanges: []*cassettes.Exchange{{
		Request: cassettes.Request{Method: "POST", Path: "/v1beta/models/m:generateContent", Body: []byte(`{"contents":[{"role":"user","parts":[{"text":"weather <Paris>?"}]}]}`)},
		Response: cassettes.Response{Status: 200, Body: []byte(`{"candidates":[{"content":{"parts":[{"text":"It is <18°C>."},` +
			`{"functionCall":{"id":"x1","name":"get_weather"}},{"functionCall":{"name":"now","args":{"q":"<x>"}}}]}}]}`)},
		Place: &cassettes.Place{Session: 1, Invocation: 1, Agent: "root", User: "weather <Paris>?"},
	}}}
	run := recorded.Run{Cassettes: []recorded.Cassette{recorded.CassetteOf("c", "c.yaml", c)}}
	if run.Cassettes[0].Sessions[0].Invocations[0].Steps[0].ToolCalls[0].Args != nil {
		t.Fatal("the model made the absent arguments {}")
	}
	var b bytes.Buffer
	if err := WriteJSON(&b, run); err != nil {
		t.Fatal(err)
	}
	doc := compact(t, b.Bytes())
	for _, want := range []string{
		`"tool_calls":[{"name":"get_weather","args":{}},{"name":"now","args":{"q":"<x>"}}]`, `"user":"weather <Paris>?"`, `"text":"It is <18°C>."`,
		`"tool_results":[]`, `"http_calls":[]`, `"refused":[]`, `"confirmations":[]`, `"other":[]`, `"usage":null`,
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("JSON lacks %s:\n%s", want, doc)
		}
	}
	if strings.Contains(doc, `\u003c`) || strings.Contains(doc, `"x1"`) || strings.Contains(doc, `"tag"`) {
		t.Errorf("JSON escapes HTML, shows a call's id or an empty tag:\n%s", doc)
	}
}
