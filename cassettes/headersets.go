// Sharing the header maps of a load: the exchanges of a cassette mostly
// carry the same few header sets, and a map of one header is about 400
// bytes, more than a small step's bodies, so each distinct set read from
// one piece of a file is made once.

package cassettes

import (
	"encoding/binary"
	"net/http"

	"gopkg.in/yaml.v3"
)

// headerSets are the header maps read so far by one reader, by their
// names and values. Loaded exchanges with the same headers share one map
// (Load's documentation: treat them as read-only).
type headerSets struct {
	m   map[string]http.Header
	key []byte
}

// lookup is the map already read for the headers mapping n, or nil; ok is
// false when n is not one that is shared (a value that is a list or
// base64), which is then read as usual.
func (s *headerSets) lookup(n *yaml.Node) (h http.Header, ok bool) {
	if s == nil {
		return nil, false
	}
	s.key = s.key[:0]
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !isString(k) || !isString(v) {
			return nil, false
		}
		s.key = appendPart(appendPart(s.key, http.CanonicalHeaderKey(k.Value)), v.Value)
	}
	return s.m[string(s.key)], true
}

// add keeps h as the map of the headers lookup was last asked about.
func (s *headerSets) add(h http.Header) {
	if s.m == nil {
		s.m = map[string]http.Header{}
	}
	s.m[string(s.key)] = h
}

// appendPart appends s with its length first, so that no two lists of
// parts make the same key.
func appendPart(key []byte, s string) []byte {
	return append(binary.AppendUvarint(key, uint64(len(s))), s...)
}
