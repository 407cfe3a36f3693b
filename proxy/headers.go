// Headers: the ones that name a cassette or invocation, the ones never
// passed on or stored, and copying the rest.

package proxy

import (
	"net/http"
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
// Connection header lists) and the given names.
func withoutHeaders(h http.Header, drop ...string) http.Header {
	out := h.Clone()
	for _, v := range h.Values("Connection") {
		for _, name := range strings.Split(v, ",") {
			out.Del(strings.TrimSpace(name))
		}
	}
	for _, name := range hopByHop {
		out.Del(name)
	}
	for _, name := range drop {
		out.Del(name)
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
