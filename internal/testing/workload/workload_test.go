package workload

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestSizesAndShapes(t *testing.T) {
	for i := 0; i < 12; i++ {
		req := MixRequest(i)
		if len(req) != RequestSize || !json.Valid(req) {
			t.Fatalf("request %d: %d bytes, valid JSON %v", i, len(req), json.Valid(req))
		}
		resp := MixJSONResponse(i)
		if len(resp) != ResponseSize || !json.Valid(resp) {
			t.Fatalf("response %d: %d bytes, valid JSON %v", i, len(resp), json.Valid(resp))
		}
		if i > 0 && bytes.Equal(req, MixRequest(0)) {
			t.Fatalf("request %d equals request 0", i)
		}
	}
	seen := map[string]bool{}
	for i := range 300 {
		req := TurnRequest(i)
		if len(req) != TurnSize || !json.Valid(req) || seen[string(req)] {
			t.Fatalf("turn %d: %d bytes, valid JSON %v, repeated %v", i, len(req), json.Valid(req), seen[string(req)])
		}
		seen[string(req)] = true
	}
	if !bytes.Equal(TurnRequest(7), TurnRequest(7)) {
		t.Fatal("turns not deterministic")
	}
	if !bytes.Equal(Request(), MixRequest(0)) || !bytes.Equal(JSONResponse(), MixJSONResponse(0)) {
		t.Fatal("not deterministic")
	}
	evs := SSEEventList()
	if len(evs) != SSEEvents {
		t.Fatalf("%d events", len(evs))
	}
	for i, ev := range evs {
		if !bytes.HasPrefix(ev, []byte("data: ")) || !bytes.HasSuffix(ev, []byte("\r\n\r\n")) ||
			!json.Valid(ev[len("data: "):len(ev)-4]) {
			t.Fatalf("event %d: %q", i, ev)
		}
	}
}

func BenchmarkMixRequest(b *testing.B) {
	for i := 0; b.Loop(); i++ {
		MixRequest(i)
		MixJSONResponse(i)
	}
}
