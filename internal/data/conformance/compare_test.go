package conformance

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/base/textfmt"
)

// asServer writes a recorded session the way an ADK API server returns
// one: camelCase fields (data such as tool arguments keeps its keys), new
// ids, timestamps and invocation ids, other function call ids and
// thought signatures.
func asServer(v any, parent string) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, val := range x {
			key := k
			if parent != "args" && parent != "response" && parent != "state" && parent != "stateDelta" {
				key = textfmt.Camel(k)
			}
			switch key {
			case "id":
				val = "server-" + k
			case "timestamp":
				val = 42.5
			case "invocationId":
				val = "e-server"
			case "thoughtSignature":
				val = "c2VydmVy"
			case "longRunningToolIds":
				val = []any{"server-call-id"}
			}
			out[key] = asServer(val, key)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			out[i] = asServer(item, parent)
		}
		return out
	}
	return v
}

func serverSession(t *testing.T, s *Session, edit func(events []any)) []byte {
	t.Helper()
	events := make([]any, len(s.Events))
	for i, e := range s.Events {
		events[i] = asServer(e, "")
	}
	if edit != nil {
		edit(events)
	}
	b, err := json.Marshal(map[string]any{"id": "s-1", "appName": "x", "userId": "u", "state": map[string]any{}, "events": events, "lastUpdateTime": 1.5})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCompareSessionByADKRules(t *testing.T) {
	_, cases := corpusCases(t)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			want, err := ReadSession(filepath.Join(c.Dir, c.Session))
			if err != nil {
				t.Fatal(err)
			}
			if d, err := CompareSession(serverSession(t, want, nil), want, CompareOptions{}); err != nil || d != nil {
				t.Fatalf("same session after ADK's stripping rules: diff %v, err %v", d, err)
			}
			last := len(want.Events) - 1
			changed := serverSession(t, want, func(events []any) {
				content := events[last].(map[string]any)["content"].(map[string]any)
				parts := content["parts"].([]any)
				for _, p := range parts {
					if m := p.(map[string]any); m["text"] != nil {
						m["text"] = "Something else."
					}
				}
			})
			d, err := CompareSession(changed, want, CompareOptions{})
			if err != nil || d == nil || d.Event != last || !strings.HasPrefix(d.Path, "content.parts[") || !strings.HasSuffix(d.Path, "].text") || d.Got != `"Something else."` {
				t.Fatalf("changed last text: diff %+v, err %v", d, err)
			}
			if !strings.Contains(d.Detail, want.File) || d.Line != want.EventLines[last] {
				t.Errorf("detail %q, line %d: want the file and line %d", d.Detail, d.Line, want.EventLines[last])
			}
			short := serverSession(t, want, nil)
			var doc map[string]any
			json.Unmarshal(short, &doc) //nolint:errcheck
			doc["events"] = doc["events"].([]any)[:last]
			short, _ = json.Marshal(doc["events"]) // the list form
			if d, _ := CompareSession(short, want, CompareOptions{}); d == nil || d.Event != last || d.Path != "" || !strings.Contains(d.Detail, "is missing") {
				t.Errorf("missing last event: %+v", d)
			}
		})
	}
}

func TestCompareSessionDropFunctionParts(t *testing.T) {
	_, cases := corpusCases(t)
	for _, c := range cases {
		if c.Name != "tool/function_001" {
			continue
		}
		want, err := ReadSession(filepath.Join(c.Dir, c.Session))
		if err != nil {
			t.Fatal(err)
		}
		got := serverSession(t, want, func(events []any) {
			part := events[1].(map[string]any)["content"].(map[string]any)["parts"].([]any)[0].(map[string]any)
			part["functionCall"].(map[string]any)["args"] = map[string]any{"email": "other@example.com"}
		})
		d, err := CompareSession(got, want, CompareOptions{})
		if err != nil || d == nil || d.Event != 1 || d.Path != "content.parts[0].functionCall.args.email" {
			t.Fatalf("changed call argument: %+v %v", d, err)
		}
		if d, err := CompareSession(got, want, CompareOptions{DropFunctionParts: true}); err != nil || d != nil {
			t.Fatalf("DropFunctionParts: %+v %v", d, err)
		}
		noLogprobs := serverSession(t, want, func(events []any) { delete(events[1].(map[string]any), "avgLogprobs") })
		if d, _ := CompareSession(noLogprobs, want, CompareOptions{}); d == nil || d.Event != 1 || d.Path != "avgLogprobs" {
			t.Errorf("avgLogprobs left out by the server: %+v", d)
		}
		if d, err := CompareSession(noLogprobs, want, CompareOptions{Ignore: []string{"avgLogprobs", "content.parts.nothing"}}); err != nil || d != nil {
			t.Errorf("Ignore avgLogprobs: %+v %v", d, err)
		}
		state := serverSession(t, want, nil)
		state = []byte(strings.Replace(string(state), `"state":{}`, `"state":{"mood":"happy"}`, 1))
		if d, _ := CompareSession(state, want, CompareOptions{}); d == nil || d.Event != -1 || d.Path != "state.mood" {
			t.Errorf("state: %+v", d)
		}
		if _, err := CompareSession([]byte("not json"), want, CompareOptions{}); err == nil {
			t.Error("accepted a session that is not JSON")
		}
		return
	}
	t.Fatal("tool/function_001 not found")
}

// TestCompareSessionKeepsDataKeys: keys inside tool arguments, tool
// results and state are compared as written, so a transfer_to_agent call
// passing agentName where ADK Python passes agent_name is a difference,
// named in the corpus's own spelling; ADK's own field names are still
// read in either spelling, and long-running tool ids are stripped.
func TestCompareSessionKeepsDataKeys(t *testing.T) {
	_, cases := corpusCases(t)
	byName := map[string]*Session{}
	for _, c := range cases {
		s, err := ReadSession(filepath.Join(c.Dir, c.Session))
		if err != nil {
			t.Fatal(err)
		}
		byName[c.Name] = s
	}
	multi := byName["core/multi_001"]
	if multi == nil {
		t.Fatal("core/multi_001 not found")
	}
	camelArgs := serverSession(t, multi, func(events []any) {
		for _, e := range events {
			content, _ := e.(map[string]any)["content"].(map[string]any)
			parts, _ := content["parts"].([]any)
			for _, p := range parts {
				if fc, ok := p.(map[string]any)["functionCall"].(map[string]any); ok && fc["name"] == "transfer_to_agent" {
					args := fc["args"].(map[string]any)
					args["agentName"] = args["agent_name"]
					delete(args, "agent_name")
				}
			}
		}
	})
	d, err := CompareSession(camelArgs, multi, CompareOptions{})
	if err != nil || d == nil || !strings.Contains(d.Path, ".functionCall.args.agent") {
		t.Fatalf("transfer_to_agent with agentName: %+v %v", d, err)
	}
	if !strings.Contains(d.Detail, "agent_name") && !strings.Contains(d.Detail, "agentName") {
		t.Errorf("detail %q names neither spelling", d.Detail)
	}
	state := []byte(strings.Replace(string(serverSession(t, multi, nil)), `"state":{}`, `"state":{"userName":"ada"}`, 1))
	want := *multi
	want.Fields = map[string]any{"state": map[string]any{"user_name": "ada"}}
	if d, _ := CompareSession(state, &want, CompareOptions{}); d == nil || d.Event != -1 || d.Path != "state.userName" && d.Path != "state.user_name" {
		t.Errorf("state userName for user_name: %+v", d)
	}
	sameState := []byte(strings.Replace(string(serverSession(t, multi, nil)), `"state":{}`, `"state":{"user_name":"ada"}`, 1))
	if d, err := CompareSession(sameState, &want, CompareOptions{}); err != nil || d != nil {
		t.Errorf("state as written: %+v %v", d, err)
	}
	long := byName["tool/long_running_tool_001"]
	if long == nil {
		t.Fatal("tool/long_running_tool_001 not found")
	}
	if d, err := CompareSession(serverSession(t, long, nil), long, CompareOptions{}); err != nil || d != nil {
		t.Errorf("other long-running tool ids: %+v %v", d, err)
	}
}
