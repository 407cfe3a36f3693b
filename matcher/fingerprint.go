// Fingerprints: the hash that makes two requests interchangeable for
// replay, over method, path, sorted query and canonical body.

package matcher

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
)

// Fingerprint identifies a request for matching: two requests with equal
// fingerprints are interchangeable for replay.
type Fingerprint [16]byte

// String is the fingerprint in hex.
func (f Fingerprint) String() string { return hex.EncodeToString(f[:]) }

// fingerprint hashes a request whose body, when isJSON, is already in
// canonical form.
func fingerprint(req *cassettes.Request, canonicalBody []byte, isJSON bool) Fingerprint {
	h := sha256.New()
	sep := []byte{0}
	h.Write([]byte(req.Method))
	h.Write(sep)
	h.Write([]byte(req.Path))
	h.Write(sep)
	h.Write([]byte(canonicalQuery(req.Query)))
	h.Write(sep)
	if isJSON {
		h.Write([]byte{'j'})
		h.Write(canonicalBody)
	} else {
		h.Write([]byte{'b'})
		h.Write(req.Body)
	}
	var sum [sha256.Size]byte
	var f Fingerprint
	copy(f[:], h.Sum(sum[:0]))
	return f
}

// canonicalQuery sorts parameters by name, keeping the order of repeated
// values, so "b=1&a=2" and "a=2&b=1" compare equal.
func canonicalQuery(raw string) string {
	if raw == "" {
		return ""
	}
	q, err := url.ParseQuery(raw)
	if err != nil {
		return raw
	}
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(q)) {
		for _, v := range q[k] {
			if b.Len() > 0 {
				b.WriteByte('&')
			}
			b.WriteString(url.QueryEscape(k) + "=" + url.QueryEscape(v))
		}
	}
	return b.String()
}
