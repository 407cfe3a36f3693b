// The legacy eval formats of older ADK releases: *.test.json lists of
// turns ({"query", "expected_tool_use", …}) and pre-1.0 eval cases.

package scoring

import (
	"path/filepath"
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
)

// parseLegacyList reads the list formats of older ADK releases.
func parseLegacyList(root node, list []any) (*Expected, error) {
	base := filepath.Base(root.file)
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
	first := root.elem(list, 0)
	fo, err := first.object()
	if err != nil {
		return nil, err
	}
	switch {
	case has(fo, "query"): // one conversation, a turn per element
		ec := ExpectedCase{ID: base, EvalSetID: base, File: root.file, Invocations: []Invocation{}}
		for i := range list {
			inv, err := parseLegacyTurn(root.elem(list, i))
			if err != nil {
				return nil, err
			}
			ec.Invocations = append(ec.Invocations, inv)
		}
		out.Cases = append(out.Cases, ec)
	case has(fo, "data") && has(fo, "name"): // pre-1.0 eval cases
		for i := range list {
			cn := root.elem(list, i)
			co, err := cn.object()
			if err != nil {
				return nil, err
			}
			nn, _ := cn.field(co, "name")
			name, err := nn.str()
			if err != nil {
				return nil, err
			}
			dn, _ := cn.field(co, "data")
			turns, err := dn.list()
			if err != nil {
				return nil, err
			}
			ec := ExpectedCase{ID: name, EvalSetID: base, File: root.file, Invocations: []Invocation{}}
			for j := range turns {
				inv, err := parseLegacyTurn(dn.elem(turns, j))
				if err != nil {
					return nil, err
				}
				ec.Invocations = append(ec.Invocations, inv)
			}
			out.Cases = append(out.Cases, ec)
		}
	default: // a bare list of EvalCase objects
		for i := range list {
			ec, err := parseEvalCase(root.elem(list, i))
			if err != nil {
				return nil, err
			}
			ec.EvalSetID, ec.File = base, root.file
			out.Cases = append(out.Cases, ec)
		}
	}
	return out, nil
}

func has(o *object, key string) bool {
	_, ok := o.vals[key]
	return ok
}

// parseLegacyTurn reads {"query", "expected_tool_use": [{"tool_name",
// "tool_input"}], "expected_intermediate_agent_responses": [{"author",
// "text"}], "reference"} as ADK's converter does.
func parseLegacyTurn(n node) (Invocation, error) {
	o, err := n.object()
	if err != nil {
		return Invocation{}, err
	}
	var inv Invocation
	q, ok := n.field(o, "query")
	if !ok {
		return inv, q.errorf("missing: a turn needs query")
	}
	if inv.UserText, err = q.str(); err != nil {
		return inv, err
	}
	if r, ok := n.field(o, "reference"); ok {
		if inv.FinalResponse, err = r.optStr(); err != nil {
			return inv, err
		}
	}
	if tu, ok := n.field(o, "expected_tool_use"); ok && tu.v != nil {
		list, err := tu.list()
		if err != nil {
			return inv, err
		}
		for i := range list {
			cn := tu.elem(list, i)
			co, err := cn.object()
			if err != nil {
				return inv, err
			}
			var c cassettes.ToolCall
			nn, ok := cn.field(co, "tool_name")
			if !ok {
				return inv, nn.errorf("missing")
			}
			if c.Name, err = nn.str(); err != nil {
				return inv, err
			}
			if in, ok := cn.field(co, "tool_input"); ok && in.v != nil {
				if _, err := in.object(); err != nil {
					return inv, err
				}
				c.Args = plain(in.v).(map[string]any)
			}
			inv.ToolCalls = append(inv.ToolCalls, c)
		}
	}
	if ir, ok := n.field(o, "expected_intermediate_agent_responses"); ok && ir.v != nil {
		list, err := ir.list()
		if err != nil {
			return inv, err
		}
		for i := range list {
			rn := ir.elem(list, i)
			ro, err := rn.object()
			if err != nil {
				return inv, err
			}
			var at AuthoredText
			if a, ok := rn.field(ro, "author"); ok {
				if at.Author, err = a.optStr(); err != nil {
					return inv, err
				}
			}
			if t, ok := rn.field(ro, "text"); ok {
				if at.Text, err = t.optStr(); err != nil {
					return inv, err
				}
			}
			inv.IntermediateResponses = append(inv.IntermediateResponses, at)
		}
	}
	return inv, nil
}
