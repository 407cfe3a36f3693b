// Reading ADK's EvalSet, EvalCase and Invocation JSON, snake_case or
// camelCase, with errors naming the file and the field.

package evalset

import (
	"encoding/json"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/pyjson"
	"github.com/adkproxy/adkproxy/internal/base/userfile"
	"github.com/adkproxy/adkproxy/internal/data/scenarios"
)

// ReadFile reads the eval set file at path (see ParseEvalSet).
func ReadFile(path string) (*EvalSet, error) {
	data, err := userfile.Read(path)
	if err != nil {
		return nil, err
	}
	return ParseEvalSet(path, data)
}

// ParseEvalSet reads an eval set: ADK's EvalSet object in snake_case or
// camelCase, or one of the list formats older ADK releases read from
// *.test.json files (see Load). name is the set's File and is used in
// errors, which give the JSON path:
// `home.evalset.json: eval_cases[1].conversation[0].user_content: missing`.
//
// What adkproxy uses is read: ids, conversations (their contents' text,
// function call and function response parts, both forms of intermediate
// data), conversation_scenario and session_input (checked as ADK's
// ConversationScenario and SessionInput, kept as json.RawMessage) and
// rubrics; names, descriptions and timestamps are not. EvalCases is never
// nil; a case's Conversation is nil when it has a scenario and never nil
// otherwise.
func ParseEvalSet(name string, data []byte) (*EvalSet, error) {
	root, err := pyjson.Decode(name, data)
	if err != nil {
		return nil, err
	}
	if list, ok := root.V.([]any); ok {
		return parseLegacyList(root, list)
	}
	o, err := root.Object()
	if err != nil {
		return nil, root.Errorf("expected an EvalSet object (or, in older *.test.json files, a list), got %s", pyjson.Describe(root.V))
	}
	idn, ok := root.PyField(o, "eval_set_id")
	if !ok {
		return nil, idn.Errorf("missing: an EvalSet needs eval_set_id")
	}
	id, err := idn.Str()
	if err != nil {
		return nil, err
	}
	out := &EvalSet{EvalSetID: id, File: name, EvalCases: []EvalCase{}}
	cn, ok := root.PyField(o, "eval_cases")
	if !ok {
		return nil, cn.Errorf("missing: an EvalSet needs eval_cases")
	}
	cases, err := cn.List()
	if err != nil {
		return nil, err
	}
	for i := range cases {
		ec, err := parseEvalCase(cn.Elem(cases, i))
		if err != nil {
			return nil, err
		}
		out.EvalCases = append(out.EvalCases, ec)
	}
	return out, nil
}

func parseEvalCase(n pyjson.Value) (EvalCase, error) {
	o, err := n.Object()
	if err != nil {
		return EvalCase{}, err
	}
	idn, ok := n.PyField(o, "eval_id")
	if !ok {
		return EvalCase{}, idn.Errorf("missing: an eval case needs eval_id")
	}
	id, err := idn.Str()
	if err != nil {
		return EvalCase{}, err
	}
	ec := EvalCase{EvalID: id}
	if rb, ok := n.PyField(o, "rubrics"); ok && rb.V != nil {
		if ec.Rubrics, err = rawList(rb); err != nil {
			return ec, err
		}
	}
	if sn, ok := n.PyField(o, "session_input"); ok && sn.V != nil {
		raw := rawJSON(sn)
		if _, err := scenarios.ParseSessionInputField(sn.File, sn.Path, raw); err != nil {
			return ec, err
		}
		ec.SessionInput = raw
	}
	conv, hasConv := n.PyField(o, "conversation")
	scen, hasScen := n.PyField(o, "conversation_scenario")
	hasConv = hasConv && conv.V != nil
	hasScen = hasScen && scen.V != nil
	switch {
	case hasConv && hasScen:
		return ec, n.Errorf("has both conversation and conversation_scenario; an eval case has exactly one")
	case hasScen:
		if _, err := scen.Object(); err != nil {
			return ec, err
		}
		raw := rawJSON(scen)
		if _, err := scenarios.ParseScenario(scen.File, scen.Path, raw); err != nil {
			return ec, err
		}
		ec.Scenario = raw
		return ec, nil
	case !hasConv:
		return ec, n.Errorf("has neither conversation nor conversation_scenario")
	}
	list, err := conv.List()
	if err != nil {
		return ec, err
	}
	ec.Conversation = []Invocation{}
	for i := range list {
		inv, err := parseInvocation(conv.Elem(list, i))
		if err != nil {
			return ec, err
		}
		ec.Conversation = append(ec.Conversation, inv)
	}
	return ec, nil
}

// parseInvocation reads ADK's Invocation. intermediate_data comes in two
// forms, told apart by the invocation_events key: the documented one
// {tool_uses, tool_responses, intermediate_responses: [[author, [parts]]]},
// and newer ADK's {invocation_events: [{author, content}]}.
func parseInvocation(n pyjson.Value) (Invocation, error) {
	o, err := n.Object()
	if err != nil {
		return Invocation{}, err
	}
	var inv Invocation
	if idn, ok := n.PyField(o, "invocation_id"); ok {
		if inv.InvocationID, err = idn.OptStr(); err != nil {
			return inv, err
		}
	}
	uc, ok := n.PyField(o, "user_content")
	if !ok || uc.V == nil {
		return inv, uc.Errorf("missing: an invocation needs user_content")
	}
	if inv.UserContent, err = parseContent(uc); err != nil {
		return inv, err
	}
	if fr, ok := n.PyField(o, "final_response"); ok && fr.V != nil {
		c, err := parseContent(fr)
		if err != nil {
			return inv, err
		}
		inv.FinalResponse = &c
	}
	if rb, ok := n.PyField(o, "rubrics"); ok && rb.V != nil {
		if inv.Rubrics, err = rawList(rb); err != nil {
			return inv, err
		}
	}
	idata, ok := n.PyField(o, "intermediate_data")
	if !ok || idata.V == nil {
		return inv, nil
	}
	inv.IntermediateData, err = parseIntermediateData(idata)
	return inv, err
}

func parseIntermediateData(n pyjson.Value) (IntermediateData, error) {
	var d IntermediateData
	o, err := n.Object()
	if err != nil {
		return d, err
	}
	if ev, ok := n.PyField(o, "invocation_events"); ok {
		events, err := ev.List()
		if err != nil {
			return d, err
		}
		d.Events = []Event{}
		for i := range events {
			e, err := parseEvent(ev.Elem(events, i))
			if err != nil {
				return d, err
			}
			d.Events = append(d.Events, e)
		}
		return d, nil
	}
	if tu, ok := n.PyField(o, "tool_uses"); ok && tu.V != nil {
		list, err := tu.List()
		if err != nil {
			return d, err
		}
		for i := range list {
			c, err := parseFunctionCall(tu.Elem(list, i))
			if err != nil {
				return d, err
			}
			d.ToolUses = append(d.ToolUses, c)
		}
	}
	if tr, ok := n.PyField(o, "tool_responses"); ok && tr.V != nil {
		list, err := tr.List()
		if err != nil {
			return d, err
		}
		for i := range list {
			r, err := parseFunctionResponse(tr.Elem(list, i))
			if err != nil {
				return d, err
			}
			d.ToolResponses = append(d.ToolResponses, r)
		}
	}
	if ir, ok := n.PyField(o, "intermediate_responses"); ok && ir.V != nil {
		list, err := ir.List()
		if err != nil {
			return d, err
		}
		for i := range list {
			en := ir.Elem(list, i)
			pair, err := en.List()
			if err != nil || len(pair) != 2 {
				return d, en.Errorf("expected [author, [parts…]], got %s", pyjson.Describe(en.V))
			}
			author, err := en.Elem(pair, 0).OptStr()
			if err != nil {
				return d, err
			}
			parts, err := parseParts(en.Elem(pair, 1))
			if err != nil {
				return d, err
			}
			d.IntermediateResponses = append(d.IntermediateResponses, AuthoredParts{Author: author, Parts: parts})
		}
	}
	return d, nil
}

// parseEvent reads one of invocation_events; an event without content
// keeps its author and an empty content.
func parseEvent(n pyjson.Value) (Event, error) {
	var e Event
	o, err := n.Object()
	if err != nil {
		return e, err
	}
	if an, ok := n.Field(o, "author"); ok {
		if e.Author, err = an.OptStr(); err != nil {
			return e, err
		}
	}
	if cn, ok := n.Field(o, "content"); ok && cn.V != nil {
		e.Content, err = parseContent(cn)
	}
	return e, err
}

func parseContent(n pyjson.Value) (Content, error) {
	var c Content
	o, err := n.Object()
	if err != nil {
		return c, err
	}
	if r, ok := n.Field(o, "role"); ok {
		if c.Role, err = r.OptStr(); err != nil {
			return c, err
		}
	}
	if p, ok := n.Field(o, "parts"); ok && p.V != nil {
		c.Parts, err = parseParts(p)
	}
	return c, err
}

// parseParts reads the parts adkproxy uses: text, function_call and
// function_response (a part may hold several).
func parseParts(n pyjson.Value) ([]Part, error) {
	list, err := n.List()
	if err != nil {
		return nil, err
	}
	parts := []Part{}
	for i := range list {
		pn := n.Elem(list, i)
		po, err := pn.Object()
		if err != nil {
			return nil, err
		}
		var p Part
		if t, ok := pn.Field(po, "text"); ok {
			if p.Text, err = t.OptStr(); err != nil {
				return nil, err
			}
		}
		if fc, ok := pn.PyField(po, "function_call"); ok && fc.V != nil {
			call, err := parseFunctionCall(fc)
			if err != nil {
				return nil, err
			}
			p.FunctionCall = &call
		}
		if fr, ok := pn.PyField(po, "function_response"); ok && fr.V != nil {
			r, err := parseFunctionResponse(fr)
			if err != nil {
				return nil, err
			}
			p.FunctionResponse = &r
		}
		parts = append(parts, p)
	}
	return parts, nil
}

// parseFunctionCall reads a FunctionCall; args null or left out stays nil,
// apart from {}.
func parseFunctionCall(n pyjson.Value) (cassettes.ToolCall, error) {
	var c cassettes.ToolCall
	o, err := n.Object()
	if err != nil {
		return c, err
	}
	if c.ID, c.Name, err = idAndName(n, o); err != nil {
		return c, err
	}
	c.Args, err = optObject(n, o, "args")
	return c, err
}

func parseFunctionResponse(n pyjson.Value) (cassettes.ToolResult, error) {
	var r cassettes.ToolResult
	o, err := n.Object()
	if err != nil {
		return r, err
	}
	if r.ID, r.Name, err = idAndName(n, o); err != nil {
		return r, err
	}
	r.Response, err = optObject(n, o, "response")
	return r, err
}

func idAndName(n pyjson.Value, o *pyjson.Object) (id, name string, err error) {
	if idn, ok := n.Field(o, "id"); ok {
		if id, err = idn.OptStr(); err != nil {
			return "", "", err
		}
	}
	if nn, ok := n.Field(o, "name"); ok {
		if name, err = nn.OptStr(); err != nil {
			return "", "", err
		}
	}
	return id, name, nil
}

// optObject reads field key as a plain object, nil when null or left out.
func optObject(n pyjson.Value, o *pyjson.Object, key string) (map[string]any, error) {
	v, ok := n.Field(o, key)
	if !ok || v.V == nil {
		return nil, nil
	}
	if _, err := v.Object(); err != nil {
		return nil, err
	}
	return pyjson.Plain(v.V).(map[string]any), nil
}

// rawList checks that n is a list and gives it as JSON.
func rawList(n pyjson.Value) (json.RawMessage, error) {
	if _, err := n.List(); err != nil {
		return nil, err
	}
	return rawJSON(n), nil
}

// rawJSON is n's value as compact JSON (objects' keys sorted).
func rawJSON(n pyjson.Value) json.RawMessage {
	raw, _ := json.Marshal(pyjson.Plain(n.V))
	return raw
}
