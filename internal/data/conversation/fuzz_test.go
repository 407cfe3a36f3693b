package conversation_test

import (
	"reflect"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/conversation"
	"github.com/adkproxy/adkproxy/matcher"
)

// FuzzAnalyzeAndDiff: any request body can be analysed and diffed against
// any other without panicking, and a request never differs from itself.
// Analyze reads briefly (its read's bytes are reused by the next read): the
// call it gave stays what a kept read gives after other bodies are read.
func FuzzAnalyzeAndDiff(f *testing.F) {
	f.Add([]byte(`{"contents":[{"role":"user","parts":[{"text":"For context:"}]},{"parts":[{"text":"{\"request\":1}"}]}],"systemInstruction":"Your internal name is \"x\""}`),
		[]byte(`{"contents":[]}`))
	f.Add([]byte(`{"contents":[{"role":"model","parts":[{"functionCall":{"name":"f"}}]}],"tools":[{}],"labels":{"adk_agent_name":3}}`),
		[]byte(`[1,{"a":"b"}]`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		m := matcher.Default()
		const path = "/v1beta/models/m:generateContent"
		var calls []*conversation.Call
		for _, body := range [][]byte{a, b} {
			c, ok := conversation.Analyze(m, path, body)
			if ok && (c.Step < 0 || c.UserTurn < -1 || c.Key == "") {
				t.Fatalf("analysis %+v of %q", c, body)
			}
			calls = append(calls, c)
		}
		for i, body := range [][]byte{a, b} {
			if kept, _, _ := conversation.AnalyzeRead(m, path, body); !reflect.DeepEqual(calls[i], kept) {
				t.Fatalf("%q: analysed briefly %+v, kept %+v", body, calls[i], kept)
			}
		}
		ra := &cassettes.Request{Method: "POST", Path: "/p", Body: a}
		rb := &cassettes.Request{Method: "POST", Path: "/p", Body: b}
		m.Diff(ra, rb)
		if d := m.Diff(ra, ra); len(d) != 0 {
			t.Fatalf("a request differs from itself: %v", d)
		}
	})
}
