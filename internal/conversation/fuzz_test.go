package conversation_test

import (
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/conversation"
	"github.com/adkproxy/adkproxy/matcher"
)

// FuzzAnalyzeAndDiff: any request body can be analysed and diffed against
// any other without panicking, and a request never differs from itself.
func FuzzAnalyzeAndDiff(f *testing.F) {
	f.Add([]byte(`{"contents":[{"role":"user","parts":[{"text":"For context:"}]},{"parts":[{"text":"{\"request\":1}"}]}],"systemInstruction":"Your internal name is \"x\""}`),
		[]byte(`{"contents":[]}`))
	f.Add([]byte(`{"contents":[{"role":"model","parts":[{"functionCall":{"name":"f"}}]}],"tools":[{}],"labels":{"adk_agent_name":3}}`),
		[]byte(`[1,{"a":"b"}]`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		m := matcher.Default()
		for _, body := range [][]byte{a, b} {
			if c, ok := conversation.Analyze(m, "/v1beta/models/m:generateContent", body); ok {
				if c.Step < 0 || c.UserTurn < -1 || c.Key == "" {
					t.Fatalf("analysis %+v of %q", c, body)
				}
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
