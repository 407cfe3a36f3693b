package runview

import (
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/recorded"
)

func TestTableCells(t *testing.T) {
	tests := []struct{ got, want string }{
		{quoted("say \"hi\"\n<now>", 50), `"say \"hi\" <now>"`},
		{quoted("abcdefghij", 6), `"abc…"`},
		{formatCall(cassettes.ToolCall{Name: "f", Args: map[string]any{"b": []any{1.0, "x"}, "a": "y", "c": nil}}), `f(a="y", b=[1,"x"], c=null)`},
		{formatCall(cassettes.ToolCall{Name: "noargs", Args: map[string]any{}}), `noargs()`},
		{formatCall(cassettes.ToolCall{Name: "f", Args: map[string]any{"q": strings.Repeat("x", 100)}}), `f(q="` + strings.Repeat("x", 27) + `…")`},
	}
	for i, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%d: got %q, want %q", i, tt.got, tt.want)
		}
	}
}

// TestInvocationCells: an invocation's line shows its tag, its agents in
// order of appearance, and dashes for no usage and no tool calls.
func TestInvocationCells(t *testing.T) {
	model := func(step int, agent string) *cassettes.Exchange {
		return &cassettes.Exchange{
			Request:  cassettes.Request{Method: "POST", Path: "/v1beta/models/m:generateContent", Body: []byte(`{"contents":[]}`)},
			Response: cassettes.Response{Status: 200, Body: []byte(`{"candidates":[{"content":{"parts":[{"text":"ok"}]}}]}`)},
			Place:    &cassettes.Place{Session: 1, Invocation: 2, Step: step, Agent: agent, Tag: "t-2", User: "u"},
		}
	}
	c := &cassettes.Cassette{Exchanges: []*cassettes.Exchange{model(0, "root"), model(0, "helper"), model(2, "root")}}
	got := recorded.CassetteOf("c", "c.yaml", c)
	cells := invocationCells(&got.Sessions[0].Invocations[0])
	if cells[0] != "    invocation 2 [t-2]" || cells[2] != "agents: root, helper" || cells[4] != "tokens: -" || cells[5] != "tools: -" {
		t.Errorf("invocation cells %q", cells)
	}
}

func TestTableAlignsEachKindAcrossOthers(t *testing.T) {
	var tb table
	tb.add(invocationRow, "inv 1", "short", "x")
	tb.add(stepRow, "step 0", "a", "→ y")
	tb.add(invocationRow, "inv 2", "much longer", "x")
	tb.add(stepRow, "step 0", "agent-two", "→ z")
	var b strings.Builder
	tb.write(&b)
	want := "inv 1  short        x\n" +
		"step 0  a          → y\n" +
		"inv 2  much longer  x\n" +
		"step 0  agent-two  → z\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
