// The ls views (the table and the JSON document) of cassettes loaded from
// disk as the ls command loads them: the shipped example, and a version 1
// file organised into sessions and invocations. (Moved here from the cmd
// suite, which checks only that the command prints these views.)

package runview

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/recorded"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// weatherExample is the shipped example's cassettes folder.
func weatherExample() string {
	return filepath.Join(testutil.RepoRoot(), "examples", "weather", "cassettes")
}

// lsOutput is what ls prints for path in format ("table" or "json"):
// the cassettes loaded as ls loads them, built into the run and written.
func lsOutput(t *testing.T, path, format string) string {
	t.Helper()
	dir, loaded, err := cassettes.LoadPath(path)
	if err != nil {
		t.Fatal(err)
	}
	run := recorded.Build(dir, loaded)
	var b bytes.Buffer
	if format == "json" {
		if err := WriteJSON(&b, run); err != nil {
			t.Fatal(err)
		}
	} else {
		WriteTable(&b, dir, run)
	}
	return b.String()
}

// decodeDocument reads the JSON document back, refusing unknown fields.
func decodeDocument(t *testing.T, out string) Document {
	t.Helper()
	var doc Document
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("not the ls JSON document: %v\n%s", err, out)
	}
	return doc
}

// The table of the shipped example: every invocation and step with its user
// text, tool calls and results, tokens, columns aligned, nothing unusual.
func TestTableOfTheShippedExample(t *testing.T) {
	t.Parallel()
	stdout := lsOutput(t, weatherExample(), "table")
	for _, want := range []string{
		"CASSETTE default (" + filepath.Join(weatherExample(), "default.yaml") + "): 1 session, 2 invocations, 4 steps\n",
		"\n  session 1\n",
		`"What is the weather in Paris?"`,
		`"And what about Tokyo?"`,
		`tools: get_weather(city="Paris")`,
		`tools: get_weather(city="Tokyo")`,
		"tokens: 20", // 7 + 13
		"tokens: 40", // 17 + 23
		`→ get_weather(city="Paris")`,
		`← get_weather → "It is 18°C in Paris, clear."`,
		`← get_weather → "It is 24°C in Tokyo, clear."`,
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "other") || strings.Contains(stdout, "HTTP") || strings.Contains(stdout, "finish:") {
		t.Errorf("nothing unusual in the example, yet:\n%s", stdout)
	}
	// Columns line up across invocations, even with steps in between.
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	column := func(prefix, word string) {
		t.Helper()
		at := -1
		for _, line := range lines {
			if !strings.HasPrefix(line, prefix) {
				continue
			}
			i := strings.Index(line, word)
			if at >= 0 && i != at {
				t.Errorf("%q not aligned in lines starting %q:\n%s", word, prefix, stdout)
				return
			}
			at = i
		}
		if at < 0 {
			t.Errorf("no line starting %q has %q", prefix, word)
		}
	}
	column("    invocation ", "agents:")
	column("    invocation ", "tokens:")
	column("      step ", "gemini-2.5-flash") // the agent's name: a plain genai client's is its model's
	for _, line := range lines {
		if strings.TrimRight(line, " ") != line {
			t.Errorf("trailing spaces in %q", line)
		}
	}
}

// The JSON document of the shipped example: its sessions, invocations, steps,
// tool calls and results, usage and latency, and a stable shape.
func TestJSONOfTheShippedExample(t *testing.T) {
	t.Parallel()
	stdout := lsOutput(t, weatherExample(), "json")
	doc := decodeDocument(t, stdout)
	if len(doc.Cassettes) != 1 {
		t.Fatalf("%d cassettes", len(doc.Cassettes))
	}
	c := doc.Cassettes[0]
	if c.Name != "default" || c.File != "default.yaml" || len(c.Sessions) != 1 || len(c.Other) != 0 {
		t.Fatalf("cassette %q file %q: %d sessions, %d other", c.Name, c.File, len(c.Sessions), len(c.Other))
	}
	invs := c.Sessions[0].Invocations
	if c.Sessions[0].ID != 1 || len(invs) != 2 {
		t.Fatalf("session %d with %d invocations", c.Sessions[0].ID, len(invs))
	}
	for i, city := range []string{"Paris", "Tokyo"} {
		inv := invs[i]
		if inv.ID != i+1 || len(inv.Steps) != 2 || strings.Join(inv.Agents, ",") != "gemini-2.5-flash" || !strings.Contains(inv.User, city) {
			t.Fatalf("invocation %d: %+v", i+1, inv)
		}
		call, answer := inv.Steps[0], inv.Steps[1]
		if call.Step != 0 || call.Status != 200 || len(call.ToolCalls) != 1 || call.ToolCalls[0].Name != "get_weather" || call.ToolCalls[0].Args["city"] != city {
			t.Errorf("invocation %d step 0: %+v", i+1, call)
		}
		if answer.Step != 1 || len(answer.ToolResults) != 1 || answer.ToolResults[0].Name != "get_weather" || answer.ToolResults[0].Response["city"] != city ||
			answer.Text != "It is "+map[string]string{"Paris": "18", "Tokyo": "24"}[city]+"°C in "+city+", clear." || answer.FinishReason != "STOP" {
			t.Errorf("invocation %d step 1: %+v", i+1, answer)
		}
		if call.Usage == nil || answer.Usage == nil || call.Usage.Total+answer.Usage.Total != []int32{20, 40}[i] || answer.LatencyMs <= 0 {
			t.Errorf("invocation %d: usage %+v, %+v, latency %v", i+1, call.Usage, answer.Usage, answer.LatencyMs)
		}
	}
	// Stable shape: every key present, empty lists as [], no tag when none.
	var raw map[string][]map[string]any
	json.Unmarshal([]byte(stdout), &raw)
	cas := raw["cassettes"][0]
	if other, ok := cas["other"].([]any); !ok || len(other) != 0 {
		t.Errorf("other = %#v, want []", cas["other"])
	}
	inv := cas["sessions"].([]any)[0].(map[string]any)["invocations"].([]any)[0].(map[string]any)
	if _, ok := inv["tag"]; ok {
		t.Errorf("tag present without a tag: %v", inv)
	}
	step := inv["steps"].([]any)[0].(map[string]any)
	for _, k := range []string{"step", "agent", "status", "tool_calls", "tool_results", "text", "finish_reason", "usage", "latency_ms"} {
		if _, ok := step[k]; !ok {
			t.Errorf("step lacks %q: %v", k, step)
		}
	}
	if results, ok := step["tool_results"].([]any); !ok || len(results) != 0 {
		t.Errorf("tool_results = %#v, want []", step["tool_results"])
	}
}

// TestVersion1OrganizedAsReplayWould: a flat version 1 file is grouped into sessions
// and invocations as replay would; a retry after a 429 stays in its
// invocation, and other requests are listed (identical ones counted).
func TestVersion1OrganizedAsReplayWould(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first := "Plan a three-day trip to Kyoto for me,\nwith temples, food markets and a day trip to Nara please."
	turn1 := lsContents(lsUserTurn(first))
	answer1 := map[string]any{"role": "model", "parts": []any{map[string]any{"text": "Day 1: Kinkaku-ji"}}}
	turn2 := lsContents(lsUserTurn(first), answer1, lsUserTurn("Make it two days."))
	exhausted := `{"error":{"code":429,"message":"Resource has been exhausted","status":"RESOURCE_EXHAUSTED"}}`
	call := `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"plan_trip","args":{"city":"Kyoto","days":2}}}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":30,"candidatesTokenCount":5,"totalTokenCount":35}}`
	v1 := "version: 1\ninteractions:\n" +
		lsV1Interaction("GET", "/v1beta/models", "", 200, `{"models":[]}`) +
		lsV1Interaction("POST", "/v1beta/models/gemini-2.5-flash:generateContent", turn1, 200,
			`{"candidates":[{"content":{"role":"model","parts":[{"text":"Day 1: Kinkaku-ji"}]},"finishReason":"MAX_TOKENS"}],"usageMetadata":{"promptTokenCount":20,"candidatesTokenCount":10,"totalTokenCount":30}}`) +
		lsV1Interaction("GET", "/v1beta/models", "", 200, `{"models":[]}`) +
		lsV1Interaction("POST", "/v1beta/models/gemini-2.5-flash:generateContent", turn2, 429, exhausted) +
		lsV1Interaction("POST", "/v1beta/models/gemini-2.5-flash:generateContent", turn2, 200, call) +
		lsV1Interaction("POST", "/v1beta/models/gemini-2.5-flash:countTokens", turn2, 200, `{"totalTokens":31}`)
	lsWriteFile(t, filepath.Join(dir, "suite", "chat.yaml"), v1)              // named by its path: suite/chat
	lsWriteFile(t, filepath.Join(dir, "a.yaml"), "version: 2\nname: alpha\n") // named in the file
	lsWriteFile(t, filepath.Join(dir, ".chat.yaml.tmp-1.yaml"), "not: [a cassette")

	doc := decodeDocument(t, lsOutput(t, dir, "json"))
	if len(doc.Cassettes) != 2 || doc.Cassettes[0].Name != "alpha" || doc.Cassettes[0].File != "a.yaml" ||
		doc.Cassettes[1].Name != "suite/chat" || doc.Cassettes[1].File != "suite/chat.yaml" {
		t.Fatalf("cassettes: %+v", doc.Cassettes)
	}
	if a := doc.Cassettes[0]; a.Sessions == nil || len(a.Sessions) != 0 || a.Other == nil {
		t.Errorf("empty cassette: %+v", a)
	}
	c := doc.Cassettes[1]
	if len(c.Sessions) != 1 || len(c.Sessions[0].Invocations) != 2 {
		t.Fatalf("want 1 session with 2 invocations, got %+v", c.Sessions)
	}
	inv1, inv2 := c.Sessions[0].Invocations[0], c.Sessions[0].Invocations[1]
	if inv1.User != first || len(inv1.Steps) != 1 || inv1.Steps[0].FinishReason != "MAX_TOKENS" {
		t.Errorf("invocation 1: %+v", inv1)
	}
	if inv2.User != "Make it two days." || len(inv2.Steps) != 2 || inv2.Steps[0].Status != 429 || inv2.Steps[0].Usage != nil ||
		inv2.Steps[1].Status != 200 || len(inv2.Steps[1].ToolCalls) != 1 || inv2.Steps[1].ToolCalls[0].Name != "plan_trip" {
		t.Errorf("invocation 2 (a retry, then a tool call): %+v", inv2)
	}
	wantOther := []Other{
		{Method: "GET", Path: "/v1beta/models", Status: 200},
		{Method: "GET", Path: "/v1beta/models", Status: 200},
		{Method: "POST", Path: "/v1beta/models/gemini-2.5-flash:countTokens", Status: 200},
	}
	if fmt.Sprint(c.Other) != fmt.Sprint(wantOther) {
		t.Errorf("other = %v, want %v", c.Other, wantOther)
	}

	stdout := lsOutput(t, dir, "table")
	for _, want := range []string{
		"CASSETTE alpha (" + filepath.Join(dir, "a.yaml") + "): 0 sessions, 0 invocations, 0 steps\n",
		"CASSETTE suite/chat (" + filepath.Join(dir, "suite", "chat.yaml") + "): 1 session, 2 invocations, 3 steps, 3 other requests\n",
		`"Plan a three-day trip to Kyoto for me, with tem…"`,
		`"Make it two days."`,
		`→ "Day 1: Kinkaku-ji" [finish: MAX_TOKENS]`,
		"[HTTP 429 RESOURCE_EXHAUSTED]",
		`→ plan_trip(city="Kyoto", days=2)`,
		"tokens: 35",
		"\n  other\n",
		"×2",
		"countTokens  200",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Index(stdout, "CASSETTE alpha") > strings.Index(stdout, "CASSETTE suite/chat") {
		t.Errorf("cassettes not sorted by name:\n%s", stdout)
	}
	if strings.Contains(stdout, "Nara") {
		t.Errorf("long user text not cut:\n%s", stdout)
	}
}

func lsUserTurn(text string) map[string]any {
	return map[string]any{"role": "user", "parts": []any{map[string]any{"text": text}}}
}

func lsContents(turns ...map[string]any) string {
	b, _ := json.Marshal(map[string]any{"contents": turns})
	return string(b)
}

// lsV1Interaction renders one exchange of a version 1 cassette; bodies are
// written as YAML double-quoted strings (JSON strings are valid ones).
func lsV1Interaction(method, path, reqBody string, status int, respBody string) string {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	s := fmt.Sprintf("  - request:\n      method: %s\n      path: %s\n", method, path)
	if reqBody != "" {
		s += "      body: " + q(reqBody) + "\n"
	}
	return s + fmt.Sprintf("    response:\n      status: %d\n      body: %s\n", status, q(respBody))
}

func lsWriteFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
