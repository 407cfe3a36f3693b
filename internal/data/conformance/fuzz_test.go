package conformance

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReaders: any bytes give a result or an ErrCorpus error naming the
// file, never a panic.
func FuzzReaders(f *testing.F) {
	f.Add([]byte("agent: a\nuser_messages: [{text: hi}]\n"))
	f.Add([]byte("recordings: [{user_message_index: 0, agent_name: a, llm_recording: {llm_request: {model: m}, llm_responses: [{}]}}]\n"))
	f.Add([]byte("recordings: [{user_message_index: 0, agent_name: a, tool_recording: {tool_call: {name: f, args: {x: 1}}, tool_response: {response: {result: null}}}}]\n"))
	f.Add([]byte("agent: a\nuser_messages: [{content: {parts: [{thought_signature: 'Cv_-'}, {function_call: {name: f, args: {}}}]}}]\n"))
	if dir := filepath.Join("..", "..", "..", "..", "shared", "fixtures", "adk-conformance", "tests", "tool", "function_001"); dirExists(dir) {
		for _, name := range []string{"spec.yaml", "generated-recordings.yaml"} {
			if b, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, read := range []func(string, []byte) error{
			func(n string, b []byte) error { _, err := ParseSpec(n, b); return err },
			func(n string, b []byte) error {
				recs, err := ParseRecordings(n, b)
				if err == nil {
					// Whatever reads, converts or is reported: never a panic.
					spec := &Spec{File: "spec.yaml", UserMessages: []UserMessage{{Text: "hi"}}}
					for _, sse := range []bool{false, true} {
						cas, _ := Convert("fuzz", spec, recs, sse)
						if len(cas.Exchanges) > 0 {
							Export(cas) //nolint:errcheck // only panics matter here
						}
					}
				}
				return err
			},
			func(n string, b []byte) error { _, err := ParseSession(n, b); return err },
		} {
			if err := read("x.yaml", data); err != nil && !errors.Is(err, ErrCorpus) {
				t.Fatalf("error %v does not wrap ErrCorpus", err)
			}
		}
	})
}

func dirExists(dir string) bool {
	st, err := os.Stat(dir)
	return err == nil && st.IsDir()
}
