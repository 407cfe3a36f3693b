package conversation_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/conversation"
	"github.com/adkproxy/adkproxy/matcher"
)

// TestPlacingANewSessionCopiesNoText: the index keys turns and sessions by
// a hash of their texts, so placing a call that opens a session with a
// long first turn (and a second turn after it) costs a small fraction of
// the text in memory, however long the text is; the calls are still
// placed by it.
func TestPlacingANewSessionCopiesNoText(t *testing.T) {
	const n, size = 50, 64 << 10
	call := func(texts ...string) *conversation.Call {
		var contents []string
		for i, text := range texts {
			if i > 0 {
				contents = append(contents, `{"role":"model","parts":[{"text":"ok"}]}`)
			}
			contents = append(contents, fmt.Sprintf(`{"role":"user","parts":[{"text":%q}]}`, text))
		}
		body := `{"contents":[` + strings.Join(contents, ",") + `]}`
		c, ok := conversation.Analyze(matcher.Default(), "/v1beta/models/gemini-2.5-flash:generateContent", []byte(body))
		if !ok {
			t.Fatal("not a model call")
		}
		return c
	}
	var firsts, seconds []*conversation.Call
	for i := range n {
		first := fmt.Sprintf("question %d ", i) + strings.Repeat("x", size)
		firsts = append(firsts, call(first))
		seconds = append(seconds, call(first, "and then?"))
	}
	org := conversation.NewOrganizer()
	done := &cassettes.Response{Status: 200, End: cassettes.EndComplete}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var places []cassettes.Place
	for _, calls := range [][]*conversation.Call{firsts, seconds} {
		for _, c := range calls {
			place, token := org.Place(c, "")
			org.Finish(token, done)
			places = append(places, place)
		}
	}
	runtime.ReadMemStats(&after)
	perCall := (after.TotalAlloc - before.TotalAlloc) / (2 * n)
	t.Logf("%d bytes per call", perCall)
	if perCall > size/16 {
		t.Errorf("placing a call with a %d-byte first turn allocated %d bytes", size, perCall)
	}
	for i, p := range places {
		session, invocation := i%n+1, i/n+1 // the second turns follow their first
		if p.Session != session || p.Invocation != invocation || p.Step != 0 {
			t.Fatalf("call %d placed at session %d invocation %d step %d, want %d/%d/0", i, p.Session, p.Invocation, p.Step, session, invocation)
		}
	}
}
