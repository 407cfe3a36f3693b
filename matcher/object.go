// A JSON object body read once for everything that reads a request: its
// canonical form, what fingerprints hash, with the parts keys are made of
// found in it.

package matcher

import (
	"bytes"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/wire"
)

// ReadBody reads a request body as m sees it, once, for the placing of a
// model call and its fingerprint to share; ok is false unless body is a
// single JSON object. The result is adkproxy's own (its type is internal).
func (m *Matcher) ReadBody(body []byte) (b wire.Body, ok bool) {
	o, ok := m.readObject(body, false)
	if !ok {
		return nil, false
	}
	return o, true
}

// ReadBodyBriefly is ReadBody for a caller that keeps nothing of the body
// past calling its Release: the canonical bytes are then not copied out of
// the read's buffer, which the next read reuses.
func (m *Matcher) ReadBodyBriefly(body []byte) (b wire.Body, ok bool) {
	o, ok := m.readObject(body, true)
	if !ok {
		return nil, false
	}
	return o, true
}

// object is a JSON object body read once, with a matcher's ignored fields
// left out: the canonical form of the whole, and in it the canonical bytes
// of each top-level member and of each element of a top-level array. Keys
// over parts of a body (an agent's instruction and tools, a conversation's
// turns) hash those bytes rather than render the parts again, and the
// fingerprint hashes the whole.
type object struct {
	canon   []byte
	members []objectMember // in key order, as in canon
	elems   []span         // of the array members, relative to their member's start
	// pooled is canon's buffer when the object was read briefly: Release
	// gives it back to canonPool.
	pooled *[]byte
	// Room for the members and elements of a typical request body, so
	// noting them allocates nothing more.
	memberRoom [8]objectMember
	elemRoom   [8]span
}

type objectMember struct {
	key            string
	start, end     int // the value's bytes in canon
	elems0, elems1 int // its elements in elems, when it is an array
}

type span struct{ start, end int }

// readObject reads body as m sees it. ok is false unless body is a single
// JSON object. A brief object's canonical bytes stay in a pooled buffer
// until its Release; otherwise they are copied out of it.
func (m *Matcher) readObject(body []byte, brief bool) (o *object, ok bool) {
	src, ignore := bytes.Trim(body, " \t\r\n"), m.ignore
	if len(src) == 0 || src[0] != '{' {
		return nil, false
	}
	if m.byName {
		// [NAME] selectors work on the tree: its canonical form is read
		// again, only to find the members.
		v, ok := m.Parse(src)
		if !ok {
			return nil, false
		}
		src, ignore = AppendCanonical(nil, v), nil
	}
	o = &object{}
	o.members, o.elems = o.memberRoom[:0], o.elemRoom[:0]
	buf := canonPool.Get().(*[]byte)
	canon, ok := scanCanonical((*buf)[:0], src, ignore, o)
	*buf = canon[:0]
	if !ok {
		canonPool.Put(buf)
		return nil, false
	}
	if brief {
		o.canon, o.pooled = canon, buf
		return o, true
	}
	o.canon = bytes.Clone(canon)
	canonPool.Put(buf)
	return o, true
}

// Release gives a brief object's buffer back; see wire.Body.
func (o *object) Release() {
	if o.pooled != nil {
		canonPool.Put(o.pooled)
		o.pooled, o.canon = nil, nil
	}
}

// Canonical is the canonical form of the whole object.
func (o *object) Canonical() []byte { return o.canon }

// Member is the canonical bytes of the top-level member key's value, or
// nil when there is none.
func (o *object) Member(key string) []byte {
	if mb := o.member(key); mb != nil {
		return o.canon[mb.start:mb.end]
	}
	return nil
}

// Tree is the value of the top-level member key decoded as ParseJSON
// decodes (numbers in their canonical form), or nil when there is none.
func (o *object) Tree(key string) any {
	if b := o.Member(key); b != nil {
		v, _ := decodeJSON(b)
		return v
	}
	return nil
}

// Len is the number of elements of the top-level member key when it is
// an array, else 0.
func (o *object) Len(key string) int {
	if mb := o.member(key); mb != nil {
		return mb.elems1 - mb.elems0
	}
	return 0
}

// Element is the canonical bytes of element i of the array member key;
// i must be below Len(key).
func (o *object) Element(key string, i int) []byte {
	mb := o.member(key)
	e := o.elems[mb.elems0+i]
	return o.canon[mb.start+e.start : mb.start+e.end]
}

func (o *object) member(key string) *objectMember {
	for i := range o.members {
		if o.members[i].key == key {
			return &o.members[i]
		}
	}
	return nil
}

// Fingerprint is m.Fingerprint(req) for a req whose body is the one o was
// read from by the same matcher, without reading the body again.
func (o *object) Fingerprint(req *cassettes.Request) [16]byte {
	return fingerprint(req, o.canon, true)
}
