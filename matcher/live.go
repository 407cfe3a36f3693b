// Live API frames: a client frame compared with the recorded one, with the
// snake_case keys Python sends read as the camelCase JS and Go send.

package matcher

import (
	"bytes"

	"github.com/adkproxy/adkproxy/internal/wire"
)

// DiffFrame lists how a client's Live API frame differs from the recorded
// one. JSON payloads compare as decoded values, every object key read in
// camelCase (client_content and clientContent are one key) and m's
// ignored fields left out; other payloads compare byte for byte, as the
// field "frame".
func (m *Matcher) DiffFrame(recorded, got []byte) []Difference {
	if bytes.Equal(recorded, got) {
		return nil
	}
	rv, rok := m.parseFrame(recorded)
	gv, gok := m.parseFrame(got)
	if rok && gok {
		return DiffJSON("", rv, gv)
	}
	return []Difference{{Path: "frame", Kind: Changed, Recorded: describeBytes(recorded), Got: describeBytes(got)}}
}

// parseFrame decodes a frame as m sees it: camelCase keys, ignored fields
// left out.
func (m *Matcher) parseFrame(b []byte) (any, bool) {
	v, ok := ParseJSON(b)
	if !ok {
		return nil, false
	}
	v = wire.CamelFrame(v)
	for _, p := range m.ignore {
		p.Remove(v)
	}
	return v, true
}
