// Reading a case's generated-recordings.yaml: every model call and tool
// call ADK Python recorded, in file order.

package conformance

import (
	"fmt"

	"github.com/adkproxy/adkproxy/cassettes"
	"gopkg.in/yaml.v3"
)

// Recordings is a generated-recordings.yaml.
type Recordings struct {
	File    string
	Entries []Recording
}

// Recording is one entry: a model call or a tool call of one agent while
// answering one user message.
type Recording struct {
	Line             int
	UserMessageIndex int
	AgentName        string
	// Exactly one of LLM and Tool is set.
	LLM  *LLMRecording
	Tool *ToolRecording
}

// LLMRecording is a model call as ADK saw it. Request and responses stay
// nodes (ADK's snake_case LlmRequest and LlmResponse) so that converting
// them can name the line of anything it cannot convert.
type LLMRecording struct {
	Request *yaml.Node
	// Responses holds llm_response, or each of llm_responses[] (a streamed
	// call, newer ADK writers).
	Responses []*yaml.Node
	// List says the responses came as llm_responses.
	List bool
}

// ToolRecording is a tool call and its result.
type ToolRecording struct {
	Call     ToolCall
	Response ToolResponse
}

// ToolCall is the call ADK made (its id is ADK's own, adk-<uuid>) and the
// line it is on.
type ToolCall struct {
	Line int
	cassettes.ToolCall
}

// ToolResponse is what the tool returned, and the line it is on; a result
// that is not a mapping is wrapped as {result: ...} by ADK.
type ToolResponse struct {
	Line int
	cassettes.ToolResult
}

// ReadRecordings reads a generated-recordings.yaml.
func ReadRecordings(file string) (*Recordings, error) { return readWith(file, ParseRecordings) }

// ParseRecordings reads a generated-recordings.yaml's bytes; file names it
// in errors.
func ParseRecordings(file string, data []byte) (*Recordings, error) {
	d := doc{file: file}
	root, err := d.parse(data)
	if err != nil {
		return nil, err
	}
	f, err := d.fields(root, "recordings file", "recordings")
	if err != nil {
		return nil, err
	}
	items, err := d.list(f["recordings"], "recordings")
	if err != nil {
		return nil, err
	}
	r := &Recordings{File: file}
	for i, n := range items {
		rec, err := d.recording(n, fmt.Sprintf("recordings[%d]", i))
		if err != nil {
			return nil, err
		}
		r.Entries = append(r.Entries, rec)
	}
	return r, nil
}

func (d doc) recording(n *yaml.Node, what string) (Recording, error) {
	rec := Recording{Line: n.Line}
	f, err := d.fields(n, what, "user_message_index", "agent_name", "llm_recording", "tool_recording")
	if err != nil {
		return rec, err
	}
	if rec.UserMessageIndex, err = d.index(f["user_message_index"], what+".user_message_index"); err != nil {
		return rec, err
	}
	if rec.AgentName, err = d.str(f["agent_name"], what+".agent_name"); err != nil {
		return rec, err
	}
	llm, tool := f["llm_recording"], f["tool_recording"]
	switch {
	case (llm == nil) == (tool == nil):
		return rec, d.errorf(n, "%s: want either llm_recording or tool_recording", what)
	case llm != nil:
		rec.LLM, err = d.llmRecording(llm, what+".llm_recording")
	default:
		rec.Tool, err = d.toolRecording(tool, what+".tool_recording")
	}
	return rec, err
}

func (d doc) llmRecording(n *yaml.Node, what string) (*LLMRecording, error) {
	f, err := d.fields(n, what, "llm_request", "llm_response", "llm_responses")
	if err != nil {
		return nil, err
	}
	req := f["llm_request"]
	if req == nil || req.Kind != yaml.MappingNode {
		return nil, d.errorf(n, "%s: llm_request is missing or not a mapping", what)
	}
	one, list := f["llm_response"], f["llm_responses"]
	l := &LLMRecording{Request: req}
	switch {
	case one != nil && list != nil:
		return nil, d.errorf(n, "%s: give llm_response or llm_responses, not both", what)
	case one != nil:
		if one.Kind != yaml.MappingNode {
			return nil, d.errorf(one, "%s.llm_response: want a mapping", what)
		}
		l.Responses = []*yaml.Node{one}
	case list != nil:
		items, err := d.list(list, what+".llm_responses")
		if err != nil {
			return nil, err
		}
		for i, r := range items {
			if r.Kind != yaml.MappingNode {
				return nil, d.errorf(r, "%s.llm_responses[%d]: want a mapping", what, i)
			}
		}
		if len(items) == 0 {
			return nil, d.errorf(list, "%s.llm_responses: empty", what)
		}
		l.Responses, l.List = items, true
	default:
		return nil, d.errorf(n, "%s: llm_response (or llm_responses) is missing", what)
	}
	return l, nil
}

func (d doc) toolRecording(n *yaml.Node, what string) (*ToolRecording, error) {
	f, err := d.fields(n, what, "tool_call", "tool_response")
	if err != nil {
		return nil, err
	}
	t := &ToolRecording{}
	call, err := d.fields(f["tool_call"], what+".tool_call", "id", "name", "args")
	if err != nil {
		return nil, err
	}
	t.Call.Line = f["tool_call"].Line
	if t.Call.Name, err = d.str(call["name"], what+".tool_call.name"); err != nil {
		return nil, err
	}
	if id := call["id"]; id != nil {
		if t.Call.ID, err = d.str(id, what+".tool_call.id"); err != nil {
			return nil, err
		}
	}
	if t.Call.Args, err = d.plain(call["args"], what+".tool_call.args"); err != nil {
		return nil, err
	}
	resp, err := d.fields(f["tool_response"], what+".tool_response", "id", "name", "response")
	if err != nil {
		return nil, err
	}
	t.Response.Line = f["tool_response"].Line
	if n := resp["name"]; n != nil {
		if t.Response.Name, err = d.str(n, what+".tool_response.name"); err != nil {
			return nil, err
		}
	}
	if id := resp["id"]; id != nil {
		if t.Response.ID, err = d.str(id, what+".tool_response.id"); err != nil {
			return nil, err
		}
	}
	if t.Response.Response, err = d.plain(resp["response"], what+".tool_response.response"); err != nil {
		return nil, err
	}
	return t, nil
}
