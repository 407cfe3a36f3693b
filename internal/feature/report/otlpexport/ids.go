// Trace, span and event ids derived from the cassette, so exporting the
// same recording twice gives the same ids and a re-recorded run new ones.

package otlpexport

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"strconv"

	"github.com/adkproxy/adkproxy/cassettes"
)

// traceSeed hashes what identifies one invocation's trace: the cassette's
// name, the session and invocation ids, and every byte recorded for the
// invocation (each exchange's request line, bodies, status, events and
// latencies), so two recordings of one conversation are two traces.
type traceSeed struct{ h hash.Hash }

func newTraceSeed(cassette string, session, invocation int) traceSeed {
	s := traceSeed{sha256.New()}
	s.field("adkproxy otlp trace")
	s.field(cassette)
	s.field(strconv.Itoa(session))
	s.field(strconv.Itoa(invocation))
	return s
}

// field writes one length-prefixed value, so no two lists of fields hash
// alike.
func (s traceSeed) field(v string) {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(v)))
	s.h.Write(n[:])
	s.h.Write([]byte(v))
}

func (s traceSeed) exchange(x *cassettes.Exchange) {
	r := x.Request
	for _, v := range []string{r.Scheme, r.Host, r.Method, r.Path, r.Query, string(r.Body), strconv.Itoa(x.Response.Status), string(x.Response.Body), x.Response.Latency.String()} {
		s.field(v)
	}
	for _, e := range x.Response.Events {
		s.field(string(e.Data))
		s.field(e.After.String())
	}
}

// traceID is the first 16 bytes of the seed's SHA-256.
func (s traceSeed) traceID() []byte { return nonZero(s.h.Sum(nil)[:16]) }

// spanID is the first 8 bytes of SHA-256(trace id, the span's path in the
// tree): "invocation", "agent/0", "step/2/call_llm", "step/2/tool/0"...
func spanID(traceID []byte, path string) []byte { return nonZero(derive(traceID, "span", path)[:8]) }

// eventID stands in for the ADK event id the cassette does not record,
// shaped as ADK's (a UUID) and derived like a span id.
func eventID(traceID []byte, path string) string {
	b := derive(traceID, "event", path)[:16]
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

func derive(traceID []byte, kind, path string) []byte {
	s := traceSeed{sha256.New()}
	s.field(string(traceID))
	s.field(kind)
	s.field(path)
	return s.h.Sum(nil)
}

// nonZero keeps an id valid: OTLP reads all zeroes as no id.
func nonZero(id []byte) []byte {
	for _, b := range id {
		if b != 0 {
			return id
		}
	}
	id[len(id)-1] = 1
	return id
}
