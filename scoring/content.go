// Reading genai Content in eval sets: text parts, function calls and
// function responses, as ADK's Invocation JSON holds them.

package scoring

import (
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/pyjson"
)

// content is what adkproxy reads from a genai Content.
type content struct {
	texts   []string
	calls   []cassettes.ToolCall
	results []cassettes.ToolResult
}

// text is ADK's text of a content: "\n".join of its non-empty text parts.
func (c content) text() string { return strings.Join(c.texts, "\n") }

func parseContent(n pyjson.Value) (content, error) {
	o, err := n.Object()
	if err != nil {
		return content{}, err
	}
	if r, ok := n.Field(o, "role"); ok {
		if _, err := r.OptStr(); err != nil {
			return content{}, err
		}
	}
	p, ok := n.Field(o, "parts")
	if !ok || p.V == nil {
		return content{}, nil
	}
	return parseParts(p)
}

func parseParts(n pyjson.Value) (content, error) {
	var c content
	parts, err := n.List()
	if err != nil {
		return c, err
	}
	for i := range parts {
		pn := n.Elem(parts, i)
		po, err := pn.Object()
		if err != nil {
			return c, err
		}
		if t, ok := pn.Field(po, "text"); ok {
			s, err := t.OptStr()
			if err != nil {
				return c, err
			}
			if s != "" {
				c.texts = append(c.texts, s)
			}
		}
		if fc, ok := pn.PyField(po, "function_call"); ok && fc.V != nil {
			call, err := parseFunctionCall(fc)
			if err != nil {
				return c, err
			}
			c.calls = append(c.calls, call)
		}
		if fr, ok := pn.PyField(po, "function_response"); ok && fr.V != nil {
			r, err := parseFunctionResponse(fr)
			if err != nil {
				return c, err
			}
			c.results = append(c.results, r)
		}
	}
	return c, nil
}

func parseFunctionCall(n pyjson.Value) (cassettes.ToolCall, error) {
	o, err := n.Object()
	if err != nil {
		return cassettes.ToolCall{}, err
	}
	var c cassettes.ToolCall
	if idn, ok := n.Field(o, "id"); ok {
		if c.ID, err = idn.OptStr(); err != nil {
			return c, err
		}
	}
	if nn, ok := n.Field(o, "name"); ok {
		if c.Name, err = nn.OptStr(); err != nil {
			return c, err
		}
	}
	if an, ok := n.Field(o, "args"); ok && an.V != nil {
		if _, err := an.Object(); err != nil {
			return c, err
		}
		c.Args = pyjson.Plain(an.V).(map[string]any)
	}
	return c, nil
}

func parseFunctionResponse(n pyjson.Value) (cassettes.ToolResult, error) {
	o, err := n.Object()
	if err != nil {
		return cassettes.ToolResult{}, err
	}
	var r cassettes.ToolResult
	if idn, ok := n.Field(o, "id"); ok {
		if r.ID, err = idn.OptStr(); err != nil {
			return r, err
		}
	}
	if nn, ok := n.Field(o, "name"); ok {
		if r.Name, err = nn.OptStr(); err != nil {
			return r, err
		}
	}
	if rn, ok := n.Field(o, "response"); ok && rn.V != nil {
		if _, err := rn.Object(); err != nil {
			return r, err
		}
		r.Response = pyjson.Plain(rn.V).(map[string]any)
	}
	return r, nil
}
