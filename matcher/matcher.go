// The Matcher: one set of ignored fields applied alike to parsing,
// fingerprints and diffs, so what matches and what is reported agree.

package matcher

import (
	"sync"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/wire"
)

// Matcher compares requests with one set of ignored fields. The same
// fields are left out of fingerprints, per-agent keys and diffs, so what
// matches, what groups and what is reported never disagree.
type Matcher struct {
	ignore []Path
	byName bool // a path selects by [NAME]: canonicalise through the tree
	// toolIgnore is left out of tool request bodies: the paths given to
	// New and the tool dialects' volatile fields (wire.Volatile(true)).
	toolIgnore []Path
}

// New returns a matcher ignoring defaultIgnore plus the given paths.
func New(ignore ...string) (*Matcher, error) {
	m := &Matcher{}
	for _, s := range append(append([]string(nil), defaultIgnore...), ignore...) {
		p, err := ParsePath(s)
		if err != nil {
			return nil, err
		}
		m.ignore = append(m.ignore, p)
		m.byName = m.byName || p.selectsByName()
	}
	for _, s := range append(wire.Volatile(true), ignore...) {
		p, err := ParsePath(s)
		if err != nil {
			return nil, err
		}
		m.toolIgnore = append(m.toolIgnore, p)
	}
	return m, nil
}

// Default is a matcher with only defaultIgnore. It is built once: a
// Matcher never changes, so every caller can share it.
var Default = sync.OnceValue(func() *Matcher {
	m, err := New()
	if err != nil {
		panic(err)
	}
	return m
})

// Parse decodes a JSON body and drops the ignored fields: the request as
// this matcher sees it. ok is false when the body is not JSON.
func (m *Matcher) Parse(body []byte) (any, bool) {
	v, ok := ParseJSON(body)
	if !ok {
		return nil, false
	}
	for _, p := range m.ignore {
		p.Remove(v)
	}
	return v, true
}

// Fingerprint identifies a request for matching: it hashes method, path,
// sorted query and the canonical body (raw bytes when the body is not
// JSON), with m's ignored fields left out. Headers never take part: SDK
// versions and timeouts live there. It canonicalises the body in one pass
// over its bytes: this runs for every replayed request.
func (m *Matcher) Fingerprint(req *cassettes.Request) Fingerprint {
	if m.byName {
		v, ok := m.Parse(req.Body)
		return fingerprint(req, AppendCanonical(nil, v), ok)
	}
	buf := canonPool.Get().(*[]byte)
	defer canonPool.Put(buf)
	canon, ok := canonicalBytes((*buf)[:0], req.Body, m.ignore)
	*buf = canon[:0]
	return fingerprint(req, canon, ok)
}

var canonPool = sync.Pool{New: func() any { b := make([]byte, 0, 8<<10); return &b }}

// Diff lists how got differs from recorded, ignored fields left out.
func (m *Matcher) Diff(recorded, got *cassettes.Request) []Difference {
	rv, rok := m.Parse(recorded.Body)
	gv, gok := m.Parse(got.Body)
	return diffRequests(recorded, got, rv, rok, gv, gok)
}
