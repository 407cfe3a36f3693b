package runview

import (
	"fmt"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
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

// TestCassetteOfOrder: sessions and invocations by id whatever the
// file order, steps in file order, agents distinct in order of appearance.
func TestCassetteOfOrder(t *testing.T) {
	model := func(session, invocation, step int, agent, tag string) *cassettes.Exchange {
		return &cassettes.Exchange{
			Request:  cassettes.Request{Method: "POST", Path: "/v1beta/models/m:generateContent", Body: []byte(`{"contents":[]}`)},
			Response: cassettes.Response{Status: 200, Body: []byte(`{"candidates":[{"content":{"parts":[{"text":"ok"}]}}]}`)},
			Place:    &cassettes.Place{Session: session, Invocation: invocation, Step: step, Agent: agent, Tag: tag, User: fmt.Sprintf("u%d.%d", session, invocation)},
		}
	}
	c := &cassettes.Cassette{Exchanges: []*cassettes.Exchange{
		model(2, 1, 0, "solo", ""),
		model(1, 2, 0, "root", "t-2"),
		model(1, 2, 0, "helper", "t-2"),
		model(1, 2, 2, "root", "t-2"),
		model(1, 1, 0, "root", ""),
	}}
	got := CassetteOf("c", "c.yaml", c)
	var summary []string
	for _, s := range got.Sessions {
		for _, inv := range s.Invocations {
			var steps []string
			for _, st := range inv.Steps {
				steps = append(steps, fmt.Sprintf("%d:%s", st.Step, st.Agent))
			}
			summary = append(summary, fmt.Sprintf("%d.%d %s %s [%s] %v", s.ID, inv.ID, inv.User, inv.Tag, strings.Join(inv.Agents, ","), steps))
		}
	}
	want := []string{
		"1.1 u1.1  [root] [0:root]",
		"1.2 u1.2 t-2 [root,helper] [0:root 0:helper 2:root]",
		"2.1 u2.1  [solo] [0:solo]",
	}
	if strings.Join(summary, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(summary, "\n"), strings.Join(want, "\n"))
	}
	cells := invocationCells(got.Sessions[0].Invocations[1])
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
