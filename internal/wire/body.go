// A request body read once, as the matcher reads it, shared by everything
// that places, keys and fingerprints a model call.

package wire

import "github.com/adkproxy/adkproxy/cassettes"

// Body is a JSON object request body read once by a matcher
// (matcher.Matcher's ReadBody), with the matcher's ignored fields left
// out: the canonical form of the whole, of each top-level member and of
// each element of a top-level array. Keys over parts of a body (an
// agent's instruction and tools, a conversation's turns) hash those bytes
// rather than render the parts again, and the fingerprint hashes the
// whole.
type Body interface {
	// Canonical is the canonical form of the whole object.
	Canonical() []byte
	// Member is the canonical bytes of the top-level member key's value,
	// or nil when there is none.
	Member(key string) []byte
	// Tree is Member(key) decoded as the matcher decodes JSON (numbers in
	// their canonical form), or nil.
	Tree(key string) any
	// Len is the number of elements of the array member key, else 0.
	Len(key string) int
	// Element is the canonical bytes of element i < Len(key) of key.
	Element(key string, i int) []byte
	// Fingerprint is the matcher's fingerprint of req, whose body is the
	// one this was read from, without reading the body again.
	Fingerprint(req *cassettes.Request) [16]byte
	// Release hands the bytes of a body read briefly back for a later
	// read to reuse; the body and every part of it must not be used
	// after. For a body read to be kept it does nothing.
	Release()
}
