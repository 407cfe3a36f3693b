package conformance

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/conversation"
	"github.com/adkproxy/adkproxy/internal/wire"
	"github.com/adkproxy/adkproxy/matcher"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// TestImportEveryCase imports every case of the shared corpus: no problem,
// one model call per llm_recording at its place, and a cassette that loads
// back with the same calls.
func TestImportEveryCase(t *testing.T) {
	_, cases := corpusCases(t)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			cas, problems, err := Import(c)
			if err != nil || len(problems) > 0 {
				t.Fatalf("err %v, problems %v", err, problems)
			}
			recs, err := ReadRecordings(filepath.Join(c.Dir, c.Recordings))
			if err != nil {
				t.Fatal(err)
			}
			var llm []Recording
			for _, r := range recs.Entries {
				if r.LLM != nil {
					llm = append(llm, r)
				}
			}
			if len(cas.Exchanges) != len(llm) {
				t.Fatalf("%d model calls, want %d", len(cas.Exchanges), len(llm))
			}
			steps := map[int]int{}
			for i, x := range cas.Exchanges {
				if x.Place.Step != steps[x.Place.Invocation] {
					t.Errorf("call %d: placed at step %d, want %d (the invocation's steps one after another from 0)", i, x.Place.Step, steps[x.Place.Invocation])
				}
				steps[x.Place.Invocation]++
				if p := x.Place; p.Session != 1 || p.Invocation != llm[i].UserMessageIndex+1 || p.Agent != llm[i].AgentName {
					t.Errorf("call %d placed at %+v, want invocation %d agent %s", i, *p, llm[i].UserMessageIndex+1, llm[i].AgentName)
				}
				var body map[string]any
				if err := json.Unmarshal(x.Request.Body, &body); err != nil {
					t.Fatalf("call %d: request body is not JSON: %v", i, err)
				}
				if body["systemInstruction"] == nil || body["contents"] == nil {
					t.Errorf("call %d: request lacks systemInstruction or contents: %s", i, x.Request.Body)
				}
				if bytes.Contains(x.Request.Body, []byte("_")) && bytes.Contains(x.Request.Body, []byte(`"system_instruction"`)) {
					t.Errorf("call %d: snake_case field left in %s", i, x.Request.Body)
				}
			}
			// The organizer, reading only the wire, places every call where
			// ADK's recording puts it (a user answering a long-running tool
			// included).
			live := make([]*cassettes.Exchange, len(cas.Exchanges))
			for i, x := range cas.Exchanges {
				y := *x
				y.Place = nil
				live[i] = &y
			}
			conversation.Organize(matcher.Default(), live)
			for i, x := range live {
				if want := *cas.Exchanges[i].Place; *x.Place != want {
					t.Errorf("call %d: the organizer places it at %+v, the recording at %+v", i, *x.Place, want)
				}
			}
			data, err := cassettes.Marshal(cas)
			if err != nil {
				t.Fatal(err)
			}
			back, err := cassettes.Unmarshal(c.Name+".yaml", data)
			if err != nil {
				t.Fatal(err)
			}
			if len(back.Exchanges) != len(cas.Exchanges) {
				t.Fatalf("read back %d calls, wrote %d", len(back.Exchanges), len(cas.Exchanges))
			}
		})
	}
}

// TestImportGolden pins the whole cassette of three cases: the mapping of
// every field (system instruction, tools, generation config, thought
// signatures, usage) is visible in testdata/golden.
func TestImportGolden(t *testing.T) {
	_, cases := corpusCases(t)
	for _, c := range cases {
		switch c.Name {
		case "core/generate_content_config_001", "core/multi_001", "tool/function_001":
		default:
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			cas, problems, err := Import(c)
			if err != nil || len(problems) > 0 {
				t.Fatalf("err %v, problems %v", err, problems)
			}
			got, err := cassettes.Marshal(cas)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", "golden", strings.ReplaceAll(c.Name, "/", "__")+".yaml"), got)
		})
	}
}

func golden(t *testing.T, file string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test -update once to write it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from what the conversion gives now (go test -update rewrites it; review the diff)", file)
	}
}

func TestConvertWireMapping(t *testing.T) {
	spec := oneTurnSpec(t)
	recs, err := ParseRecordings("r.yaml", []byte(`recordings:
  - user_message_index: 0
    agent_name: a
    llm_recording:
      llm_request:
        model: models/gemini-2.5-flash
        contents: [{role: user, parts: [{text: hi}]}]
        config:
          http_options: {headers: {user-agent: x}}
          system_instruction: Be brief.
          temperature: 0.9
          max_output_tokens: 100
          thinking_config: {thinking_budget: 0}
          tools: [{function_declarations: [{name: f, parameters: {type: OBJECT, properties: {user_id: {type: INTEGER}}}}]}]
          labels: {adk_agent_name: a}
        live_connect_config: {}
      llm_responses:
        - content: {role: model, parts: [{text: "Hel", thought_signature: "Cv_-"}]}
          partial: true
        - content: {role: model, parts: [{function_call: {name: f, args: {user_id: 7}}}]}
          finish_reason: STOP
          usage_metadata: {prompt_token_count: 3, total_token_count: 5}
          model_version: gemini-2.5-flash
  - user_message_index: 0
    agent_name: a
    tool_recording:
      tool_call: {id: adk-1, name: f, args: {user_id: 7}}
      tool_response: {id: adk-1, name: f, response: {result: ok}}
  - user_message_index: 0
    agent_name: a
    llm_recording:
      llm_request:
        model: gemini-2.5-flash
        contents:
          - {role: user, parts: [{text: hi}]}
          - {role: model, parts: [{function_call: {name: f, args: {user_id: 7}}}]}
          - {role: user, parts: [{function_response: {name: f, response: {result: ok}}}]}
      llm_response: {content: {role: model, parts: [{text: done}]}}
`))
	if err != nil {
		t.Fatal(err)
	}
	cas, problems := Convert("c", spec, recs, false)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	x := cas.Exchanges[0]
	wantBody := `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"systemInstruction":{"parts":[{"text":"Be brief."}],"role":"user"},` +
		`"tools":[{"functionDeclarations":[{"name":"f","parameters":{"type":"OBJECT","properties":{"user_id":{"type":"INTEGER"}}}}]}],` +
		`"generationConfig":{"temperature":0.9,"maxOutputTokens":100,"thinkingConfig":{"thinkingBudget":0}}}`
	if string(x.Request.Body) != wantBody {
		t.Errorf("request body\n got %s\nwant %s", x.Request.Body, wantBody)
	}
	if x.Request.Path != "/v1beta/models/gemini-2.5-flash:streamGenerateContent" || x.Request.Query != "alt=sse" {
		t.Errorf("llm_responses: path %s?%s, want a streamed call", x.Request.Path, x.Request.Query)
	}
	wantEvents := []string{
		"data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"Hel\",\"thoughtSignature\":\"Cv/+\"}]}}]}\r\n\r\n",
		"data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"name\":\"f\",\"args\":{\"user_id\":7}}}]},\"finishReason\":\"STOP\"}],\"usageMetadata\":{\"promptTokenCount\":3,\"totalTokenCount\":5},\"modelVersion\":\"gemini-2.5-flash\"}\r\n\r\n",
	}
	if len(x.Response.Events) != 2 {
		t.Fatalf("%d events, want 2", len(x.Response.Events))
	}
	for i, want := range wantEvents {
		if got := string(x.Response.Events[i].Data); got != want {
			t.Errorf("event %d\n got %q\nwant %q", i, got, want)
		}
	}
	if y := cas.Exchanges[1]; y.Request.Path != "/v1beta/models/gemini-2.5-flash:generateContent" || string(y.Response.Body) != `{"candidates":[{"content":{"role":"model","parts":[{"text":"done"}]}}]}` || y.Place.Step != 1 {
		t.Errorf("second call: path %s, step %d, body %s", y.Request.Path, y.Place.Step, y.Response.Body)
	}
}

func TestConvertReportsWhatItCannotConvert(t *testing.T) {
	spec := oneTurnSpec(t)
	recs, err := ParseRecordings("r.yaml", []byte(`recordings:
  - user_message_index: 0
    agent_name: a
    llm_recording:
      llm_request:
        model: gemini-2.5-flash
        contents: [{role: user, parts: [{text: hi}]}]
        config: {temprature: 1}
      llm_response: {content: {role: model, parts: [{text: x}]}}
  - user_message_index: 0
    agent_name: a
    llm_recording:
      llm_request: {model: gemini-2.5-flash, contents: [{role: user, parts: [{text: hi}]}]}
      llm_response:
        content: {role: model, parts: [{text: x}]}
        custom_metadata: {k: v}
  - user_message_index: 0
    agent_name: a
    llm_recording:
      llm_request: {model: gemini-2.5-flash, contents: [{role: user, parts: [{text: hi}]}]}
      llm_response: {content: {role: model, parts: [{text: x}]}}
  - user_message_index: 0
    agent_name: a
    tool_recording:
      tool_call: {name: g, args: {}}
      tool_response: {name: g, response: {}}
  - user_message_index: 3
    agent_name: a
    llm_recording:
      llm_request: {model: gemini-2.5-flash}
      llm_response: {}
`))
	if err != nil {
		t.Fatal(err)
	}
	cas, problems := Convert("c", spec, recs, false)
	want := []string{
		`r.yaml:8: llm_request.config: "temprature" is not a field of GenerateContentConfig`,
		`r.yaml:16: llm_response[0]: "custom_metadata" has no place in a Gemini API response`,
		`r.yaml:27: user_message_index 3: spec.yaml has 1 user message(s)`,
		`r.yaml:25: tool_call g{} of agent a is not among the function calls of its latest model answer`,
	}
	if len(problems) != len(want) {
		t.Fatalf("problems %v, want %d", problems, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(problems[i].String(), w) {
			t.Errorf("problem %d = %s\nwant it to start with %s", i, problems[i], w)
		}
	}
	if len(cas.Exchanges) != 1 {
		t.Errorf("%d calls converted, want the 1 good one", len(cas.Exchanges))
	}
}

// TestImportCorpusSSEVariant: a case folder with
// generated-recordings-sse.yaml gives a second cassette, <case>-sse,
// whose calls are streamed.
func TestImportCorpusSSEVariant(t *testing.T) {
	corpus := t.TempDir()
	rec := `recordings:
  - user_message_index: 0
    agent_name: a
    llm_recording:
      llm_request: {model: gemini-2.5-flash, contents: [{role: user, parts: [{text: hi}]}]}
      llm_response: {content: {role: model, parts: [{text: hello}]}, finish_reason: STOP}
`
	writeFile(t, corpus, "tests/core/x_001/spec.yaml", "agent: a\nuser_messages: [{text: hi}]\n")
	writeFile(t, corpus, "tests/core/x_001/generated-recordings.yaml", rec)
	writeFile(t, corpus, "tests/core/x_001/generated-recordings-sse.yaml", rec)
	out := t.TempDir()
	done, err := ImportCorpus(corpus, out)
	if err != nil {
		t.Fatal(err)
	}
	if len(done) != 2 || done[0].Case.Name != "core/x_001" || done[1].Case.Name != "core/x_001-sse" || !done[1].Case.SSE {
		t.Fatalf("imported %+v", done)
	}
	plain, err := cassettes.Load(filepath.Join(out, "core", "x_001.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	sse, err := cassettes.Load(filepath.Join(out, "core", "x_001-sse.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if p := plain.Exchanges[0]; p.Response.Streamed() || !strings.HasSuffix(p.Request.Path, ":generateContent") {
		t.Errorf("plain case: streamed %v, path %s", p.Response.Streamed(), p.Request.Path)
	}
	s := sse.Exchanges[0]
	if !s.Response.Streamed() || !strings.HasSuffix(s.Request.Path, ":streamGenerateContent") || s.Request.Query != "alt=sse" ||
		string(s.Response.Events[0].Data) != "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"hello\"}]},\"finishReason\":\"STOP\"}]}\r\n\r\n" {
		t.Errorf("sse case: %s?%s %q", s.Request.Path, s.Request.Query, s.Response.Events)
	}
	if tr := wire.StepOf(s); tr.Text != "hello" || tr.FinishReason != "STOP" {
		t.Errorf("sse trajectory %+v", tr)
	}
}

// oneTurnSpec is a spec with one user turn, "hi".
func oneTurnSpec(t *testing.T) *Spec {
	t.Helper()
	spec, err := ParseSpec("spec.yaml", []byte("agent: a\nuser_messages: [{text: hi}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	return spec
}
