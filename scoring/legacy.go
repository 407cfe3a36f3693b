// The legacy eval formats of older ADK releases: *.test.json lists of
// turns ({"query", "expected_tool_use", …}) and pre-1.0 eval cases.

package scoring

import (
	"path/filepath"
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/pyjson"
)

// parseLegacyList reads the list formats of older ADK releases.
func parseLegacyList(root pyjson.Value, list []any) (*Expected, error) {
	base := filepath.Base(root.File)
	for _, suffix := range []string{".test.json", ".evalset.json", ".json"} {
		if s, ok := strings.CutSuffix(base, suffix); ok {
			base = s
			break
		}
	}
	out := &Expected{EvalSetID: base}
	if len(list) == 0 {
		return out, nil
	}
	first := root.Elem(list, 0)
	fo, err := first.Object()
	if err != nil {
		return nil, err
	}
	switch {
	case has(fo, "query"): // one conversation, a turn per element
		ec := ExpectedCase{ID: base, EvalSetID: base, File: root.File, Invocations: []Invocation{}}
		for i := range list {
			inv, err := parseLegacyTurn(root.Elem(list, i))
			if err != nil {
				return nil, err
			}
			ec.Invocations = append(ec.Invocations, inv)
		}
		out.Cases = append(out.Cases, ec)
	case has(fo, "data") && has(fo, "name"): // pre-1.0 eval cases
		for i := range list {
			cn := root.Elem(list, i)
			co, err := cn.Object()
			if err != nil {
				return nil, err
			}
			nn, _ := cn.Field(co, "name")
			name, err := nn.Str()
			if err != nil {
				return nil, err
			}
			dn, _ := cn.Field(co, "data")
			turns, err := dn.List()
			if err != nil {
				return nil, err
			}
			ec := ExpectedCase{ID: name, EvalSetID: base, File: root.File, Invocations: []Invocation{}}
			for j := range turns {
				inv, err := parseLegacyTurn(dn.Elem(turns, j))
				if err != nil {
					return nil, err
				}
				ec.Invocations = append(ec.Invocations, inv)
			}
			out.Cases = append(out.Cases, ec)
		}
	default: // a bare list of EvalCase objects
		for i := range list {
			ec, err := parseEvalCase(root.Elem(list, i))
			if err != nil {
				return nil, err
			}
			ec.EvalSetID, ec.File = base, root.File
			out.Cases = append(out.Cases, ec)
		}
	}
	return out, nil
}

func has(o *pyjson.Object, key string) bool {
	_, ok := o.Get(key)
	return ok
}

// parseLegacyTurn reads {"query", "expected_tool_use": [{"tool_name",
// "tool_input"}], "expected_intermediate_agent_responses": [{"author",
// "text"}], "reference"} as ADK's converter does.
func parseLegacyTurn(n pyjson.Value) (Invocation, error) {
	o, err := n.Object()
	if err != nil {
		return Invocation{}, err
	}
	var inv Invocation
	q, ok := n.Field(o, "query")
	if !ok {
		return inv, q.Errorf("missing: a turn needs query")
	}
	if inv.UserText, err = q.Str(); err != nil {
		return inv, err
	}
	if r, ok := n.Field(o, "reference"); ok {
		if inv.FinalResponse, err = r.OptStr(); err != nil {
			return inv, err
		}
	}
	if tu, ok := n.Field(o, "expected_tool_use"); ok && tu.V != nil {
		list, err := tu.List()
		if err != nil {
			return inv, err
		}
		for i := range list {
			cn := tu.Elem(list, i)
			co, err := cn.Object()
			if err != nil {
				return inv, err
			}
			var c cassettes.ToolCall
			nn, ok := cn.Field(co, "tool_name")
			if !ok {
				return inv, nn.Errorf("missing")
			}
			if c.Name, err = nn.Str(); err != nil {
				return inv, err
			}
			if in, ok := cn.Field(co, "tool_input"); ok && in.V != nil {
				if _, err := in.Object(); err != nil {
					return inv, err
				}
				c.Args = pyjson.Plain(in.V).(map[string]any)
			}
			inv.ToolCalls = append(inv.ToolCalls, c)
		}
	}
	if ir, ok := n.Field(o, "expected_intermediate_agent_responses"); ok && ir.V != nil {
		list, err := ir.List()
		if err != nil {
			return inv, err
		}
		for i := range list {
			rn := ir.Elem(list, i)
			ro, err := rn.Object()
			if err != nil {
				return inv, err
			}
			var at AuthoredText
			if a, ok := rn.Field(ro, "author"); ok {
				if at.Author, err = a.OptStr(); err != nil {
					return inv, err
				}
			}
			if t, ok := rn.Field(ro, "text"); ok {
				if at.Text, err = t.OptStr(); err != nil {
					return inv, err
				}
			}
			inv.IntermediateResponses = append(inv.IntermediateResponses, at)
		}
	}
	return inv, nil
}
