// Package bodyread shares the matcher's single read of a request body with
// the packages that place and fingerprint model calls, without making that
// read part of the public matcher API: package matcher owns the reader and
// registers it here when it is initialised.
package bodyread

import "github.com/adkproxy/adkproxy/cassettes"

// Object is a JSON object body read once by a matcher, with the matcher's
// ignored fields left out: the canonical form of the whole, of each
// top-level member and of each element of a top-level array.
type Object interface {
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
	// one the object was read from, without reading the body again.
	Fingerprint(req *cassettes.Request) [16]byte
	// Release hands the bytes of an object ReadBriefly made back for a
	// later read to reuse; the object and every part of it must not be
	// used after. For an object Read made it does nothing.
	Release()
}

// Read reads body as the matcher m (a *matcher.Matcher) sees it; ok is
// false unless body is a single JSON object. Set by package matcher.
var Read func(m any, body []byte) (o Object, ok bool)

// ReadBriefly is Read for a caller that keeps nothing of o past calling
// o.Release: the canonical bytes are then not copied out of the read's
// buffer, which the next read reuses.
var ReadBriefly func(m any, body []byte) (o Object, ok bool)
