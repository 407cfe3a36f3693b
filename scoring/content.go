// Reading genai Content in eval sets: text parts, function calls and
// function responses, as ADK's Invocation JSON holds them.

package scoring

import (
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
)

// content is what adkproxy reads from a genai Content.
type content struct {
	texts   []string
	calls   []cassettes.ToolCall
	results []cassettes.ToolResult
}

// text is ADK's text of a content: "\n".join of its non-empty text parts.
func (c content) text() string { return strings.Join(c.texts, "\n") }

func parseContent(n node) (content, error) {
	o, err := n.object()
	if err != nil {
		return content{}, err
	}
	if r, ok := n.field(o, "role"); ok {
		if _, err := r.optStr(); err != nil {
			return content{}, err
		}
	}
	p, ok := n.field(o, "parts")
	if !ok || p.v == nil {
		return content{}, nil
	}
	return parseParts(p)
}

func parseParts(n node) (content, error) {
	var c content
	parts, err := n.list()
	if err != nil {
		return c, err
	}
	for i := range parts {
		pn := n.elem(parts, i)
		po, err := pn.object()
		if err != nil {
			return c, err
		}
		if t, ok := pn.field(po, "text"); ok {
			s, err := t.optStr()
			if err != nil {
				return c, err
			}
			if s != "" {
				c.texts = append(c.texts, s)
			}
		}
		if fc, ok := pn.pyField(po, "function_call"); ok && fc.v != nil {
			call, err := parseFunctionCall(fc)
			if err != nil {
				return c, err
			}
			c.calls = append(c.calls, call)
		}
		if fr, ok := pn.pyField(po, "function_response"); ok && fr.v != nil {
			r, err := parseFunctionResponse(fr)
			if err != nil {
				return c, err
			}
			c.results = append(c.results, r)
		}
	}
	return c, nil
}

func parseFunctionCall(n node) (cassettes.ToolCall, error) {
	o, err := n.object()
	if err != nil {
		return cassettes.ToolCall{}, err
	}
	var c cassettes.ToolCall
	if idn, ok := n.field(o, "id"); ok {
		if c.ID, err = idn.optStr(); err != nil {
			return c, err
		}
	}
	if nn, ok := n.field(o, "name"); ok {
		if c.Name, err = nn.optStr(); err != nil {
			return c, err
		}
	}
	if an, ok := n.field(o, "args"); ok && an.v != nil {
		if _, err := an.object(); err != nil {
			return c, err
		}
		c.Args = plain(an.v).(map[string]any)
	}
	return c, nil
}

func parseFunctionResponse(n node) (cassettes.ToolResult, error) {
	o, err := n.object()
	if err != nil {
		return cassettes.ToolResult{}, err
	}
	var r cassettes.ToolResult
	if idn, ok := n.field(o, "id"); ok {
		if r.ID, err = idn.optStr(); err != nil {
			return r, err
		}
	}
	if nn, ok := n.field(o, "name"); ok {
		if r.Name, err = nn.optStr(); err != nil {
			return r, err
		}
	}
	if rn, ok := n.field(o, "response"); ok && rn.v != nil {
		if _, err := rn.object(); err != nil {
			return r, err
		}
		r.Response = plain(rn.v).(map[string]any)
	}
	return r, nil
}
