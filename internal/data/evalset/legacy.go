// The list formats of older ADK releases: *.test.json lists of turns
// ({"query", "expected_tool_use", …}), pre-1.0 eval cases and bare lists
// of EvalCase objects.

package evalset

import (
	"path/filepath"
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/pyjson"
)

// parseLegacyList reads the list formats of older ADK releases into an
// eval set named after the file.
func parseLegacyList(root pyjson.Value, list []any) (*EvalSet, error) {
	base := filepath.Base(root.File)
	for _, suffix := range []string{".test.json", ".evalset.json", ".json"} {
		if s, ok := strings.CutSuffix(base, suffix); ok {
			base = s
			break
		}
	}
	out := &EvalSet{EvalSetID: base, File: root.File, EvalCases: []EvalCase{}}
	if len(list) == 0 {
		return out, nil
	}
	fo, err := root.Elem(list, 0).Object()
	if err != nil {
		return nil, err
	}
	switch {
	case has(fo, "query"): // one conversation, a turn per element
		ec := EvalCase{EvalID: base, Conversation: []Invocation{}}
		for i := range list {
			inv, err := parseLegacyTurn(root.Elem(list, i))
			if err != nil {
				return nil, err
			}
			ec.Conversation = append(ec.Conversation, inv)
		}
		out.EvalCases = append(out.EvalCases, ec)
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
			ec := EvalCase{EvalID: name, Conversation: []Invocation{}}
			for j := range turns {
				inv, err := parseLegacyTurn(dn.Elem(turns, j))
				if err != nil {
					return nil, err
				}
				ec.Conversation = append(ec.Conversation, inv)
			}
			out.EvalCases = append(out.EvalCases, ec)
		}
	default: // a bare list of EvalCase objects
		for i := range list {
			ec, err := parseEvalCase(root.Elem(list, i))
			if err != nil {
				return nil, err
			}
			out.EvalCases = append(out.EvalCases, ec)
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
// "text"}], "reference"} as ADK's converter does: the query is the user
// content, the reference the final response, the tool uses and the
// responses the documented form of intermediate data.
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
	query, err := q.Str()
	if err != nil {
		return inv, err
	}
	inv.UserContent = TextContent("user", query)
	if r, ok := n.Field(o, "reference"); ok && r.V != nil {
		ref, err := r.Str()
		if err != nil {
			return inv, err
		}
		final := TextContent("model", ref)
		inv.FinalResponse = &final
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
			if c.Args, err = optObject(cn, co, "tool_input"); err != nil {
				return inv, err
			}
			inv.IntermediateData.ToolUses = append(inv.IntermediateData.ToolUses, c)
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
			var author, text string
			if a, ok := rn.Field(ro, "author"); ok {
				if author, err = a.OptStr(); err != nil {
					return inv, err
				}
			}
			if t, ok := rn.Field(ro, "text"); ok {
				if text, err = t.OptStr(); err != nil {
					return inv, err
				}
			}
			inv.IntermediateData.IntermediateResponses = append(inv.IntermediateData.IntermediateResponses,
				AuthoredParts{Author: author, Parts: []Part{{Text: text}}})
		}
	}
	return inv, nil
}
