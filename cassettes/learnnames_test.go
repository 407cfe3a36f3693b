package cassettes

import (
	"net/http"
	"testing"
)

// TestLearnAfterKeepHeader: which headers carry credentials is remembered
// by name, and KeepHeader changes it: a header kept after requests with it
// were seen is no longer learnt from, and the other credential headers
// still are.
func TestLearnAfterKeepHeader(t *testing.T) {
	r := NewRedactor()
	r.Learn(http.Header{"X-Session-Token": {"first-token-value"}, "X-Api-Key": {"first-api-key-value"}}, "")
	if got := r.String("a first-token-value b"); got != "a REDACTED b" {
		t.Fatalf("a token header was not learnt: %q", got)
	}
	if err := r.KeepHeader("x-session-token"); err != nil {
		t.Fatal(err)
	}
	r.Learn(http.Header{"X-Session-Token": {"second-token-value"}, "X-Api-Key": {"second-api-key-value"}}, "")
	if got := r.String("a second-token-value b"); got != "a second-token-value b" {
		t.Errorf("a kept header was still learnt from: %q", got)
	}
	if got := r.String("a second-api-key-value b"); got != "a REDACTED b" {
		t.Errorf("X-Api-Key was not learnt after another header was kept: %q", got)
	}
	// The same name as sent in another case is the same header.
	r.Learn(http.Header{"x-session-token": {"third-token-value"}}, "")
	if got := r.String("third-token-value"); got != "third-token-value" {
		t.Errorf("a kept header, named in lower case, was learnt from: %q", got)
	}
}
