// Headers: the ones that name a cassette or invocation, the ones never
// passed on or stored, and copying the rest.

package proxy

import (
	"net/http"
	"slices"
	"strings"
)

// Headers that name the cassette or invocation for a request. They are for
// adkproxy only: never forwarded, never stored.
const (
	HeaderCassette   = "X-Adkproxy-Cassette"
	HeaderTestName   = "Test-Name"
	HeaderInvocation = "X-Adkproxy-Invocation"
)

// hopByHop headers belong to one connection and are never passed on.
var hopByHop = []string{"Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Connection",
	"Te", "Trailer", "Transfer-Encoding", "Upgrade"}

// unstoredRequestHeaders change from run to run or describe the transport,
// so keeping them would make re-recordings differ for no reason.
var unstoredRequestHeaders = []string{"Content-Length", "Accept-Encoding", "Host", "X-Server-Timeout",
	"Traceparent", "Tracestate", HeaderCassette, HeaderTestName, HeaderInvocation}

// unstoredResponseHeaders are volatile or describe an encoding adkproxy
// has already undone.
var unstoredResponseHeaders = []string{"Date", "Server-Timing", "Alt-Svc", "Content-Length", "Content-Encoding"}

// withoutHeaders copies h minus hop-by-hop headers (including any that the
// Connection header lists) and the given names. As http.Header.Del would,
// a name leaves the header of its canonical form. It copies once, leaving
// out what goes, rather than cloning and deleting: every forwarded call
// copies four header sets.
func withoutHeaders(h http.Header, drop ...string) http.Header {
	if h == nil {
		return nil
	}
	var gone []string
	for _, v := range h["Connection"] {
		for name := range strings.SplitSeq(v, ",") {
			gone = append(gone, http.CanonicalHeaderKey(strings.TrimSpace(name)))
		}
	}
	for _, name := range drop {
		gone = append(gone, http.CanonicalHeaderKey(name))
	}
	n := 0
	for _, vs := range h {
		n += len(vs)
	}
	values := make([]string, n) // one array for every kept value, as Clone makes
	out := make(http.Header, len(h))
	for k, vs := range h {
		if slices.Contains(hopByHop, k) || slices.Contains(gone, k) {
			continue
		}
		if vs == nil {
			out[k] = nil
			continue
		}
		n := copy(values, vs)
		out[k] = values[:n:n]
		values = values[n:]
	}
	return out
}

func isEventStream(h http.Header) bool {
	return strings.HasPrefix(strings.ToLower(strings.TrimSpace(h.Get("Content-Type"))), "text/event-stream")
}

// copyHeaders sets the response headers for the client. A nil Date stops
// net/http from adding the current time, which would make every replay
// differ from the recording run.
func copyHeaders(dst, src http.Header) {
	for k, vs := range src {
		dst[k] = vs
	}
	dst["Date"] = nil
}
