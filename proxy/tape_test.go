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

// TestFingerprintsWaitForTheFirstLookup: loading a cassette fingerprints
// none of its requests (a --check or a cassette no request names never
// needs them); the first look-up fingerprints them all, and the recordings
// of one fingerprint are still handed out in recorded order, those kept
// before the first look-up after the loaded ones.
func TestFingerprintsWaitForTheFirstLookup(t *testing.T) {
	m := matcher.Default()
	const path = "/v1beta/models/m:generateContent"
	answer := func(s string) cassettes.Response { return cassettes.Response{Status: 200, Body: []byte(s)} }
	recorded := []*cassettes.Exchange{
		{Request: cassettes.Request{Method: "POST", Path: path, Body: []byte(`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`)}, Response: answer("first")},
		// The same call in other bytes: the same fingerprint, queued second.
		{Request: cassettes.Request{Method: "POST", Path: path, Body: []byte(`{"contents":[{"parts":[{"text":"hi"}],"role":"user"}]}`)}, Response: answer("second")},
	}
	tp := newTape("t", "", m, recorded)
	tp.mu.Lock()
	for i, e := range tp.entries {
		if e.fp != (matcher.Fingerprint{}) {
			t.Errorf("recording %d fingerprinted at load", i)
		}
	}
	if len(tp.queues) != 0 {
		t.Errorf("queues filled at load: %d", len(tp.queues))
	}
	// Kept before any look-up: it has its fingerprint, waits its turn.
	kept := &cassettes.Exchange{Request: recorded[0].Request, Response: answer("third")}
	tp.index(kept, nil)
	tp.mu.Unlock()

	// The second recording's bytes, sent first, still get the first answer.
	for _, want := range []string{"first", "second", "third"} {
		e, _ := tp.take(tp.fingerprint(&recorded[1].Request), false)
		if e == nil || string(e.x.Response.Body) != want {
			got := "nothing"
			if e != nil {
				got = string(e.x.Response.Body)
			}
			t.Fatalf("got %s, want %s", got, want)
		}
	}
	if e, usedUp := tp.take(tp.fingerprint(&recorded[0].Request), false); e != nil || usedUp != 3 {
		t.Errorf("after three answers: %v, used up %d; want nothing of 3", e, usedUp)
	}
}
