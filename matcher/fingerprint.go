package matcher

import (
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"sort"
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
)

// Fingerprint identifies a request for matching: two requests with equal
// fingerprints are interchangeable for replay.
type Fingerprint [16]byte

func (f Fingerprint) String() string { return hex.EncodeToString(f[:]) }

// FingerprintOf hashes method, path, sorted query and the canonical body (raw
// bytes when the body is not JSON), with DefaultIgnore left out. Headers
// never take part: SDK versions and timeouts live there.
func FingerprintOf(req *cassettes.Request) Fingerprint { return Default().Fingerprint(req) }

func fingerprint(req *cassettes.Request, body any, isJSON bool) Fingerprint {
	h := sha256.New()
	buf := make([]byte, 0, 512+len(req.Body))
	buf = append(buf, req.Method...)
	buf = append(buf, 0)
	buf = append(buf, req.Path...)
	buf = append(buf, 0)
	buf = append(buf, CanonicalQuery(req.Query)...)
	buf = append(buf, 0)
	if isJSON {
		buf = append(buf, 'j')
		buf = AppendCanonical(buf, body)
	} else {
		buf = append(buf, 'b')
		buf = append(buf, req.Body...)
	}
	h.Write(buf)
	var f Fingerprint
	copy(f[:], h.Sum(nil))
	return f
}

// CanonicalQuery sorts parameters by name, keeping the order of repeated
// values, so "b=1&a=2" and "a=2&b=1" compare equal.
func CanonicalQuery(raw string) string {
	if raw == "" {
		return ""
	}
	q, err := url.ParseQuery(raw)
	if err != nil {
		return raw
	}
	names := make([]string, 0, len(q))
	for k := range q {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, k := range names {
		for _, v := range q[k] {
			if b.Len() > 0 {
				b.WriteByte('&')
			}
			b.WriteString(url.QueryEscape(k) + "=" + url.QueryEscape(v))
		}
	}
	return b.String()
}
