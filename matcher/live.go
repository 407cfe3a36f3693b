// Live API frames: a client frame compared with the recorded one, with the
// snake_case keys Python sends read as the camelCase JS and Go send.

package matcher

import (
	"bytes"

	"github.com/adkproxy/adkproxy/internal/base/textfmt"
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
	v = CamelFrame(v)
	for _, p := range m.ignore {
		p.Remove(v)
	}
	return v, true
}

// payloadKeys hold data a client or tool made up (function arguments and
// results), whose keys are kept as they are.
var payloadKeys = map[string]bool{"args": true, "response": true}

// CamelFrame rewrites the keys of a decoded Live API message from
// snake_case to camelCase (turn_complete → turnComplete), as the API reads
// either spelling; keys without an underscore are kept, and so are the
// keys inside function arguments and responses, which are the caller's
// data. When both spellings of a key are present the camelCase one wins.
func CamelFrame(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, c := range t {
			ck := textfmt.Camel(k)
			if _, taken := out[ck]; taken && ck != k {
				continue
			}
			if !payloadKeys[ck] {
				c = CamelFrame(c)
			}
			out[ck] = c
		}
		return out
	case []any:
		for i, c := range t {
			t[i] = CamelFrame(c)
		}
		return t
	}
	return v
}
