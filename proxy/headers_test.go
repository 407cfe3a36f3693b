package proxy

import (
	"net/http"
	"reflect"
	"strings"
	"testing"
)

// cloneAndDelete is what withoutHeaders does, the plain way.
func cloneAndDelete(h http.Header, drop ...string) http.Header {
	out := h.Clone()
	for _, v := range h.Values("Connection") {
		for _, name := range strings.Split(v, ",") {
			out.Del(strings.TrimSpace(name))
		}
	}
	for _, name := range append(append([]string(nil), hopByHop...), drop...) {
		out.Del(name)
	}
	return out
}

// FuzzWithoutHeaders: copying once and leaving names out gives the header
// cloning and deleting gives, and the copy shares no value with h.
func FuzzWithoutHeaders(f *testing.F) {
	f.Add("Content-Type", "application/json", "Connection", "keep-alive, X-Hop ,x-other", "x-hop", "1", "Date", "content-length")
	f.Add("Te", "trailers", "Keep-Alive", "5", "Host", "", "traceparent", "Host")
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2, k3, v3, k4, dropped string) {
		h := http.Header{k1: {v1, v2}, k2: {v2}, k3: {v3}, k4: nil}
		want := cloneAndDelete(h, dropped, "Content-Length")
		got := withoutHeaders(h, dropped, "Content-Length")
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: got %q, want %q", h, got, want)
		}
		for k, vs := range got {
			if len(vs) > 0 {
				vs[0] = "changed"
				if h[k][0] == "changed" {
					t.Fatalf("%s: the copy shares its values with h", k)
				}
			}
		}
	})
}

func TestWithoutHeadersNil(t *testing.T) {
	if withoutHeaders(nil, "Date") != nil {
		t.Fatal("nil header copied as non-nil")
	}
}
