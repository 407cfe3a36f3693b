package conformance

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadCorpusFiles(t *testing.T) {
	_, cases := corpusCases(t)
	for _, c := range cases {
		spec, err := ReadSpec(filepath.Join(c.Dir, "spec.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if spec.Agent == "" || len(spec.UserMessages) == 0 {
			t.Errorf("%s: agent %q, %d user messages", c.Name, spec.Agent, len(spec.UserMessages))
		}
		recs, err := ReadRecordings(filepath.Join(c.Dir, c.Recordings))
		if err != nil {
			t.Fatal(err)
		}
		llm, tool := 0, 0
		for _, r := range recs.Entries {
			if r.LLM != nil {
				llm++
			} else {
				tool++
			}
			if r.UserMessageIndex >= len(spec.UserMessages) {
				t.Errorf("%s:%d: user_message_index %d, spec has %d turns", recs.File, r.Line, r.UserMessageIndex, len(spec.UserMessages))
			}
		}
		if llm == 0 {
			t.Errorf("%s: no llm_recording", c.Name)
		}
		if _, err := ReadSession(filepath.Join(c.Dir, c.Session)); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSpecContentTurn(t *testing.T) {
	_, cases := corpusCases(t)
	for _, c := range cases {
		if c.Name != "core/generate_content_config_001" {
			continue
		}
		spec, err := ReadSpec(filepath.Join(c.Dir, "spec.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		got := string(spec.UserMessages[0].NewMessage())
		want := `{"parts":[{"text":"Write a very short,"},{"text":" imaginative story about a color."}],"role":"user"}`
		if got != want {
			t.Errorf("NewMessage = %s, want %s", got, want)
		}
		return
	}
	t.Fatal("core/generate_content_config_001 not found")
}

func TestSpecFunctionResponseTurn(t *testing.T) {
	spec, err := ParseSpec("spec.yaml", []byte(`agent: tools_agent_009
user_messages:
  - text: "I need to reimburse $2000."
    state_delta: {mode: strict}
  - content:
      parts:
      - function_response:
          response: {status: approved, ticket_id: t-1}
          id: "function_call_id_1"
          name: "ask_for_approval"
`))
	if err != nil {
		t.Fatal(err)
	}
	if got := spec.UserMessages[0].StateDelta["mode"]; got != "strict" {
		t.Errorf("state_delta.mode = %v", got)
	}
	m := spec.UserMessages[1]
	if missing := PatchFunctionResponseIDs(m.Content, map[string]string{"ask_for_approval": "adk-42"}); missing != nil {
		t.Errorf("missing %v", missing)
	}
	got := string(m.NewMessage())
	want := `{"parts":[{"functionResponse":{"id":"adk-42","name":"ask_for_approval","response":{"status":"approved","ticket_id":"t-1"}}}],"role":"user"}`
	if got != want {
		t.Errorf("NewMessage = %s\nwant %s", got, want)
	}
}

func TestReaderErrorsNameFileAndLine(t *testing.T) {
	for _, tc := range []struct {
		name, text, want string
		read             func(string, []byte) error
	}{
		{"spec unknown field", "agent: a\nuser_messages:\n  - text: hi\n    txet: typo\n", "spec.yaml:4: user_messages[0]: unknown field \"txet\"", parseSpec},
		{"spec both", "agent: a\nuser_messages:\n  - text: hi\n    content: {parts: [{text: x}]}\n", "spec.yaml:3: user_messages[0]: give either text or content", parseSpec},
		{"spec bad part", "agent: a\nuser_messages:\n  - content:\n      parts:\n        - txt: x\n", "spec.yaml:5: user_messages[0].content.parts[0]: \"txt\" is not a field of Part", parseSpec},
		{"spec no turns", "agent: a\n", "spec.yaml:1: spec: user_messages is missing or empty", parseSpec},
		{"spec alias", "agent: &a x\nuser_messages: [{text: *a}]\n", "spec.yaml:1: anchors and aliases are not allowed", parseSpec},
		{"recording neither", "recordings:\n  - user_message_index: 0\n    agent_name: a\n", "recordings.yaml:2: recordings[0]: want either llm_recording or tool_recording", parseRecordings},
		{"recording both responses", "recordings:\n  - user_message_index: 0\n    agent_name: a\n    llm_recording:\n      llm_request: {model: m}\n      llm_response: {}\n      llm_responses: [{}]\n", "recordings.yaml:5: recordings[0].llm_recording: give llm_response or llm_responses, not both", parseRecordings},
		{"recording bad index", "recordings:\n  - user_message_index: -1\n    agent_name: a\n    tool_recording: {tool_call: {name: f}, tool_response: {}}\n", "recordings.yaml:2: recordings[0].user_message_index", parseRecordings},
		{"recording not yaml", "recordings: [\n", "recordings.yaml: yaml: line", parseRecordings},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.read(tc.name, []byte(tc.text))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
			if !errors.Is(err, ErrCorpus) {
				t.Errorf("error %v does not wrap ErrCorpus", err)
			}
		})
	}
}

func parseSpec(_ string, b []byte) error {
	_, err := ParseSpec("spec.yaml", b)
	return err
}

func parseRecordings(_ string, b []byte) error {
	_, err := ParseRecordings("recordings.yaml", b)
	return err
}

func TestRecordingsAcceptBothResponseForms(t *testing.T) {
	r, err := ParseRecordings("r.yaml", []byte(`recordings:
  - user_message_index: 0
    agent_name: a
    llm_recording:
      llm_request: {model: gemini-2.5-flash}
      llm_responses:
        - content: {parts: [{text: "It is "}], role: model}
        - content: {parts: [{text: "sunny."}], role: model}
          finish_reason: STOP
  - user_message_index: 0
    agent_name: a
    llm_recording:
      llm_request: {model: gemini-2.5-flash}
      llm_response: {content: {parts: [{text: hi}], role: model}}
`))
	if err != nil {
		t.Fatal(err)
	}
	if l := r.Entries[0].LLM; !l.List || len(l.Responses) != 2 {
		t.Errorf("llm_responses: list %v, %d responses", l.List, len(l.Responses))
	}
	if l := r.Entries[1].LLM; l.List || len(l.Responses) != 1 {
		t.Errorf("llm_response: list %v, %d responses", l.List, len(l.Responses))
	}
}
