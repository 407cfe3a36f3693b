package matcher

import (
	"strings"
	"testing"
)

func TestDiffFrameSnakeAndCamelAreOne(t *testing.T) {
	m := Default()
	js := []byte(`{"clientContent":{"turns":[{"role":"user","parts":[{"text":"Hi"}]}],"turnComplete":true}}`)
	py := []byte(`{"client_content": {"turns": [{"role": "user", "parts": [{"text": "Hi"}]}], "turn_complete": true}}`)
	if d := m.DiffFrame(js, py); len(d) != 0 {
		t.Fatalf("the same frame in Python's spelling differs: %v", d)
	}
	changed := []byte(`{"client_content": {"turns": [{"role": "user", "parts": [{"text": "Hello"}]}], "turn_complete": true}}`)
	d := m.DiffFrame(js, changed)
	if len(d) != 1 || d[0].Path != "clientContent.turns[0].parts[0].text" {
		t.Fatalf("got %v, want one difference at clientContent.turns[0].parts[0].text", d)
	}
}

func TestDiffFrameIgnoresAndBytes(t *testing.T) {
	m, err := New("toolResponse.functionResponses[*].id")
	if err != nil {
		t.Fatal(err)
	}
	a := []byte(`{"toolResponse":{"functionResponses":[{"id":"1","name":"f","response":{"ok":true}}]}}`)
	b := []byte(`{"tool_response":{"function_responses":[{"id":"2","name":"f","response":{"ok":true}}]}}`)
	if d := m.DiffFrame(a, b); len(d) != 0 {
		t.Fatalf("an ignored id made frames differ: %v", d)
	}
	d := m.DiffFrame([]byte{1, 2}, []byte{1, 3})
	if len(d) != 1 || d[0].Path != "frame" || !strings.Contains(d[0].String(), `\x03`) {
		t.Fatalf("binary frames: got %v", d)
	}
}

// FuzzDiffFrame feeds the frame comparison any payloads, JSON or not: it
// never panics, a frame never differs from itself, and two frames differ
// either way round or not at all.
func FuzzDiffFrame(f *testing.F) {
	f.Add([]byte(`{"clientContent":{"turnComplete":true}}`), []byte(`{"client_content":{"turn_complete":true}}`))
	f.Add([]byte(`{"tool_response":{"function_responses":[{"response":{"a_b":1}}]}}`), []byte(`{"toolResponse":{"functionResponses":[{"response":{"aB":1}}]}}`))
	f.Add([]byte{0xff, 0}, []byte(`[1,2]`))
	f.Add([]byte(`{"a_b":1,"aB":2}`), []byte(`{"aB":2}`))
	m := Default()
	f.Fuzz(func(t *testing.T, a, b []byte) {
		if d := m.DiffFrame(a, a); len(d) != 0 {
			t.Fatalf("a frame differs from itself: %v", d)
		}
		if (len(m.DiffFrame(a, b)) == 0) != (len(m.DiffFrame(b, a)) == 0) {
			t.Fatalf("frames %q and %q differ one way round only", a, b)
		}
	})
}
