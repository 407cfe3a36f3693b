package cassettes

import (
	"bytes"
	"strings"
	"testing"
)

// A body sent again and again is answered from the memo of clean bodies;
// a secret learned later is still scrubbed from it, and a body holding a
// secret is scrubbed however often it comes.
func TestRedactorBytesRepeatedBodies(t *testing.T) {
	r := NewRedactor("first-secret-value")
	clean := []byte(`{"contents":[{"parts":[{"text":"` + strings.Repeat("plan two days outdoors ", 30) + `later-secret-value"}]}]}`)
	dirty := []byte(`{"contents":[{"parts":[{"text":"` + strings.Repeat("plan two days outdoors ", 30) + `first-secret-value"}]}]}`)
	for i := range 4 {
		if got := r.Bytes(clean); !bytes.Equal(got, clean) {
			t.Fatalf("pass %d: a clean body changed: %s", i, got)
		}
		if got := r.Bytes(dirty); bytes.Contains(got, []byte("first-secret-value")) || !bytes.Contains(got, []byte(Placeholder)) {
			t.Fatalf("pass %d: the secret was kept: %s", i, got)
		}
	}
	if len(r.memo.clean) != 1 {
		t.Fatalf("the memo holds %d bodies, want the clean one", len(r.memo.clean))
	}
	r.Add("later-secret-value", "a later value")
	if got := r.Bytes(clean); bytes.Contains(got, []byte("later-secret-value")) {
		t.Fatalf("a secret learned after the body was found clean was kept: %s", got)
	}
	// Learned from a request, as the proxy learns keys.
	r.learn([][2]string{{"plan two days", "a learned key"}})
	if got := r.Bytes(clean); bytes.Contains(got, []byte("plan two days")) {
		t.Fatalf("a learned secret was kept: %s", got)
	}
}

// The memo starts over rather than grow past its bound.
func TestCleanMemoBounded(t *testing.T) {
	var m cleanMemo
	body := bytes.Repeat([]byte("x"), 1<<20)
	for i := range 40 {
		body[0] = byte(i)
		h, _ := m.hash(body)
		m.noteClean(h, body)
		m.noteClean(h, body)
		if m.size > memoMaxBytes {
			t.Fatalf("after %d bodies the memo holds %d bytes", i+1, m.size)
		}
		if !m.isClean(h, body) {
			t.Fatalf("body %d was not remembered", i)
		}
	}
}
