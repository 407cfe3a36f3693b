package proxy_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/conformance"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/matcher"
	"github.com/adkproxy/adkproxy/proxy"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// importCase writes the cassette of one shared conformance case into dir.
func importCase(t *testing.T, dir, name string) *cassettes.Cassette {
	t.Helper()
	root := testutil.SharedDir(t, "fixtures", "adk-conformance")
	cases, err := conformance.Cases(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if c.Name != name {
			continue
		}
		cas, problems, err := conformance.Import(c)
		if err != nil || len(problems) > 0 {
			t.Fatalf("import %s: %v %v", name, err, problems)
		}
		path, err := cassettes.PathFor(dir, cas.Name)
		if err != nil {
			t.Fatal(err)
		}
		if err := cassettes.Save(path, cas, nil); err != nil {
			t.Fatal(err)
		}
		return cas
	}
	t.Fatalf("no case %s in %s", name, root)
	return nil
}

// reword changes a recorded request the way another ADK language words
// it: other instruction text, camelCase parameter names, no temperature.
func reword(t *testing.T, body []byte) string {
	t.Helper()
	var req map[string]any
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	si := req["systemInstruction"].(map[string]any)
	part := si["parts"].([]any)[0].(map[string]any)
	part["text"] = "Reworded. " + part["text"].(string)
	if tools, ok := req["tools"].([]any); ok {
		for _, d := range tools[0].(map[string]any)["functionDeclarations"].([]any) {
			params, _ := d.(map[string]any)["parameters"].(map[string]any)
			if props, ok := params["properties"].(map[string]any); ok {
				if v, ok := props["user_id"]; ok {
					delete(props, "user_id")
					props["userId"] = v
				}
			}
		}
	}
	delete(req, "generationConfig")
	out, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func TestConformanceMatchingServesByKey(t *testing.T) {
	dir := t.TempDir()
	cas := importCase(t, dir, "tool/function_001")
	multi := importCase(t, dir, "core/multi_001")
	p := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir, ConformanceKeys: true})
	for _, c := range []*cassettes.Cassette{cas, multi} {
		for i, x := range c.Exchanges {
			resp := post(t, p.URL, x.Request.Path, http.Header{"X-Adkproxy-Cassette": {c.Name}}, reword(t, x.Request.Body))
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || string(got) != string(x.Response.Body) {
				t.Fatalf("%s call %d: status %d, body %s", c.Name, i, resp.StatusCode, got)
			}
		}
	}
	// One call more than booking_assistant made: nothing at its key.
	last := cas.Exchanges[len(cas.Exchanges)-1]
	var extra map[string]any
	if err := json.Unmarshal([]byte(reword(t, last.Request.Body)), &extra); err != nil {
		t.Fatal(err)
	}
	extra["contents"] = append(extra["contents"].([]any),
		map[string]any{"role": "model", "parts": []any{map[string]any{"functionCall": map[string]any{"name": "get_user_id", "args": map[string]any{}}}}},
		map[string]any{"role": "user", "parts": []any{map[string]any{"functionResponse": map[string]any{"name": "get_user_id", "response": map[string]any{"result": 1}}}}})
	extraBody, _ := json.Marshal(extra)
	resp := post(t, p.URL, last.Request.Path, http.Header{"X-Adkproxy-Cassette": {cas.Name}}, string(extraBody))
	msg, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || !strings.Contains(string(msg), "nothing recorded at user message 0, agent booking_assistant, call 4") ||
		!strings.Contains(string(msg), "the recording has 4 model call(s) of agent booking_assistant") {
		t.Errorf("extra call: status %d, %s", resp.StatusCode, msg)
	}
	p.stop(t)

	r := p.Report()
	raw, _ := json.Marshal(r)
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	if err := reportSchema(t).Validate(doc); err != nil {
		t.Fatalf("report with findings does not match report.schema.json: %v", err)
	}
	if r.Counts[matcher.OutcomeMatched] != 6 || r.Counts[matcher.OutcomeUnmatched] != 1 || r.Counts[matcher.OutcomeMismatched] != 0 || r.Counts[matcher.OutcomeUnused] != 0 {
		t.Fatalf("counts %v", r.Counts)
	}
	want := []matcher.ConformanceKey{
		{UserMessage: 0, Agent: "booking_assistant", Call: 0}, {UserMessage: 0, Agent: "booking_assistant", Call: 1},
		{UserMessage: 0, Agent: "booking_assistant", Call: 2}, {UserMessage: 0, Agent: "booking_assistant", Call: 3},
		{UserMessage: 0, Agent: "study_buddy_coordinator", Call: 0}, {UserMessage: 0, Agent: "math_tutor", Call: 0},
		{UserMessage: 0, Agent: "booking_assistant", Call: 4},
	}
	for i, o := range r.Outcomes {
		if o.Conformance == nil || *o.Conformance != want[i] {
			t.Errorf("outcome %d: key %+v, want %+v", i, o.Conformance, want[i])
		}
		if o.Outcome != matcher.OutcomeMatched {
			continue
		}
		groups := map[string][]string{}
		for _, f := range o.Findings {
			for _, d := range f.Diffs {
				groups[f.Group] = append(groups[f.Group], d.Path)
			}
		}
		if len(groups[matcher.GroupSystemInstruction]) != 1 {
			t.Errorf("outcome %d: system_instruction findings %v", i, groups)
		}
		if o.Agent == "booking_assistant" && !strings.Contains(strings.Join(groups[matcher.GroupTools], " "), "userId") {
			t.Errorf("outcome %d: tools findings %v, want the renamed user_id", i, groups)
		}
		if len(groups[matcher.GroupContents]) != 0 {
			t.Errorf("outcome %d: contents findings %v, want none", i, groups)
		}
	}
	if s := summaryText(proxy.Summary(r, p.Stats(), "")); !strings.Contains(s, "conformance findings: 6 model call(s) answered by key differ from the recording (system_instruction 6, tools 4") {
		t.Errorf("summary:\n%s", s)
	}
	// The same reworded requests under body matching are refused.
	q := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir})
	resp = post(t, q.URL, cas.Exchanges[0].Request.Path, http.Header{"X-Adkproxy-Cassette": {cas.Name}}, reword(t, cas.Exchanges[0].Request.Body))
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Errorf("body matching served a reworded request: status %d", resp.StatusCode)
	}
}

func TestConformanceKeyingNeedsTheRecordedAgent(t *testing.T) {
	dir := t.TempDir()
	cas := importCase(t, dir, "core/generate_content_config_001")
	p := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir, ConformanceKeys: true})
	body := strings.ReplaceAll(string(cas.Exchanges[0].Request.Body), `\"core_agent_002\"`, `\"another_agent\"`)
	resp := post(t, p.URL, cas.Exchanges[0].Request.Path, http.Header{"X-Adkproxy-Cassette": {cas.Name}}, body)
	msg, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || !strings.Contains(string(msg), "agent another_agent, call 0") {
		t.Errorf("status %d: %s", resp.StatusCode, msg)
	}
	p.stop(t)
	if r := p.Report(); r.Counts[matcher.OutcomeUnused] != 1 || r.Counts[matcher.OutcomeUnmatched] != 1 {
		t.Errorf("counts %v", r.Counts)
	}
}

// TestConformanceKeyingLongRunningAnswer: a user message that only answers
// a long-running tool is an invocation of its own in ADK's recordings, but
// on the wire it shows no new user turn; its calls are still keyed under
// its own user message.
func TestConformanceKeyingLongRunningAnswer(t *testing.T) {
	spec, err := conformance.ParseSpec("spec.yaml", []byte(`agent: a
user_messages:
  - text: Reimburse $2000.
  - content: {parts: [{function_response: {id: x, name: ask_for_approval, response: {status: approved}}}]}
`))
	if err != nil {
		t.Fatal(err)
	}
	user := `{role: user, parts: [{text: Reimburse $2000.}]}`
	call := `{role: model, parts: [{function_call: {name: ask_for_approval, args: {amount: 2000}}}]}`
	pending := `{role: user, parts: [{function_response: {name: ask_for_approval, response: {status: pending}}}]}`
	waiting := `{role: model, parts: [{text: Waiting for approval.}]}`
	approved := `{role: user, parts: [{function_response: {name: ask_for_approval, response: {status: approved}}}]}`
	llm := func(umi int, contents, answer string) string {
		return fmt.Sprintf(`  - user_message_index: %d
    agent_name: a
    llm_recording:
      llm_request: {model: gemini-2.5-flash, contents: [%s], config: {system_instruction: 'Your internal name is "a".'}}
      llm_response: {content: %s}
`, umi, contents, answer)
	}
	recs, err := conformance.ParseRecordings("r.yaml", []byte("recordings:\n"+
		llm(0, user, call)+
		"  - user_message_index: 0\n    agent_name: a\n    tool_recording: {tool_call: {name: ask_for_approval, args: {amount: 2000}}, tool_response: {name: ask_for_approval, response: {status: pending}}}\n"+
		llm(0, user+","+call+","+pending, waiting)+
		llm(1, user+","+call+","+pending+","+waiting+","+approved, `{role: model, parts: [{text: Approved.}]}`)))
	if err != nil {
		t.Fatal(err)
	}
	cas, problems := conformance.Convert("long", spec, recs, false)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	dir := t.TempDir()
	if err := cassettes.Save(filepath.Join(dir, "long.yaml"), cas, nil); err != nil {
		t.Fatal(err)
	}
	p := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir, DefaultCassette: "long", ConformanceKeys: true})
	for i, x := range cas.Exchanges {
		resp := post(t, p.URL, x.Request.Path, nil, string(x.Request.Body))
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(got) != string(x.Response.Body) {
			t.Fatalf("call %d: status %d %s", i, resp.StatusCode, got)
		}
	}
	p.stop(t)
	want := []matcher.ConformanceKey{{UserMessage: 0, Agent: "a", Call: 0}, {UserMessage: 0, Agent: "a", Call: 1}, {UserMessage: 1, Agent: "a", Call: 0}}
	r := p.Report()
	if r.Counts[matcher.OutcomeMatched] != 3 || r.Counts[matcher.OutcomeUnused] != 0 {
		t.Fatalf("counts %v", r.Counts)
	}
	for i, o := range r.Outcomes {
		if o.Conformance == nil || *o.Conformance != want[i] || len(o.Findings) != 0 {
			t.Errorf("outcome %d: key %+v findings %v, want %+v", i, o.Conformance, o.Findings, want[i])
		}
	}
}
