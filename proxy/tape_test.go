package proxy

import (
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/matcher"
)

// TestFingerprintAsSentAgreesWithCanonical: the lookup by exact request
// bytes must give the fingerprint the canonical scanner gives, and must not
// trust a hash without comparing the bytes.
func TestFingerprintAsSentAgreesWithCanonical(t *testing.T) {
	m := matcher.Default()
	recorded := []*cassettes.Exchange{
		{Request: cassettes.Request{Method: "POST", Path: "/v1beta/models/m:generateContent", Body: []byte(`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`)}},
		{Request: cassettes.Request{Method: "POST", Path: "/v1beta/models/m:generateContent", Body: []byte(`{"contents":[{"role":"user","parts":[{"text":"bye"}]}]}`)}},
		{Request: cassettes.Request{Method: "GET", Path: "/v1beta/models", Query: "pageSize=5"}},
	}
	tp := newTape("t", "", m, recorded)

	requests := []cassettes.Request{
		recorded[0].Request, recorded[1].Request, recorded[2].Request,
		// Same call, other bytes: found by the canonical scanner.
		{Method: "POST", Path: "/v1beta/models/m:generateContent", Body: []byte("{ \"contents\": [ {\"parts\":[{\"text\":\"hi\"}], \"role\":\"user\"} ] }")},
		// Same body, other method, path or query: other requests.
		{Method: "PUT", Path: recorded[0].Request.Path, Body: recorded[0].Request.Body},
		{Method: "POST", Path: "/v1beta/models/n:generateContent", Body: recorded[0].Request.Body},
		{Method: "GET", Path: "/v1beta/models", Query: "pageSize=6"},
	}
	for i := range requests {
		req := &requests[i]
		if got, want := tp.fingerprint(req), m.Fingerprint(req); got != want {
			t.Errorf("request %d (%s %s %s): fingerprint %s, canonical %s", i, req.Method, req.Path, req.Body, got, want)
		}
	}

	// A hash that points at another recording (a collision) is checked
	// against the bytes, not believed.
	other := &requests[3]
	tp.asSent[sentHash(other)] = tp.entries[1]
	if got, want := tp.fingerprint(other), m.Fingerprint(other); got != want {
		t.Errorf("after a forced hash collision: fingerprint %s, want %s", got, want)
	}
}
