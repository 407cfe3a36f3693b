// Export: a cassette recorded from any client back to a
// generated-recordings.yaml, the reverse of Import's mapping.

package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/textfmt"
	"github.com/adkproxy/adkproxy/internal/wire"
	"gopkg.in/yaml.v3"
)

// Export writes a cassette's model calls as ADK recordings: one
// llm_recording per model call (user_message_index = invocation - 1,
// agent_name = the step's agent), each followed by a tool_recording per
// function call its answer made, with the result the agent's next model
// call (or another agent's "For context:" relay) carried. The cassette
// must hold one session. Calls it cannot convert are left out and
// returned as problems; exchanges that are not model calls (tool HTTP
// calls, other endpoints) are not ADK recordings and are skipped.
func Export(c *cassettes.Cassette) ([]byte, []Problem, error) {
	file := c.File
	if file == "" {
		file = c.Name
	}
	d := doc{file: file}
	var model []*cassettes.Exchange
	sessions := map[int]bool{}
	for _, x := range c.Exchanges {
		if x.IsTool() || x.Place == nil {
			continue
		}
		model = append(model, x)
		sessions[x.Place.Session] = true
	}
	if len(sessions) > 1 {
		return nil, nil, fmt.Errorf("%s: cassette %q holds %d sessions; generated-recordings.yaml is one session's (record each case in a cassette of its own)", file, c.Name, len(sessions))
	}
	if len(model) == 0 {
		return nil, nil, fmt.Errorf("%s: cassette %q holds no model call", file, c.Name)
	}
	list := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	var problems []Problem
	for i, x := range model {
		where := fmt.Sprintf("session %d, invocation %d, step %d, agent %s", x.Place.Session, x.Place.Invocation, x.Place.Step, x.Place.Agent)
		rec, err := d.llmRecordingOf(x)
		if err != nil {
			problems = append(problems, Problem{File: file, Msg: where + ": " + err.Error()})
			continue
		}
		list.Content = append(list.Content, recordingNode(x, "llm_recording", rec))
		seen := map[string]int{} // calls of each name so far: parallel calls of one tool pair up in order
		for _, call := range wire.StepOf(x).ToolCalls {
			resp, err := toolResult(model[i+1:], x, call, seen[call.Name])
			seen[call.Name]++
			if err != nil {
				problems = append(problems, Problem{File: file, Msg: fmt.Sprintf("%s: tool call %s: %v", where, call.Name, err)})
				continue
			}
			list.Content = append(list.Content, recordingNode(x, "tool_recording", toolNode(call, resp)))
		}
	}
	root := mapping()
	add(root, "recordings", list)
	var b bytes.Buffer
	b.WriteString("# ADK conformance recordings, exported by adkproxy from cassette " + strconv.Quote(c.Name) + ".\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return nil, problems, err
	}
	return b.Bytes(), problems, enc.Close()
}

func recordingNode(x *cassettes.Exchange, kind string, v *yaml.Node) *yaml.Node {
	n := mapping()
	add(n, "user_message_index", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(x.Place.Invocation - 1)})
	add(n, "agent_name", str(x.Place.Agent))
	add(n, kind, v)
	return n
}

func str(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

// llmRecordingOf converts one model call.
func (d doc) llmRecordingOf(x *cassettes.Exchange) (*yaml.Node, error) {
	req, err := d.llmRequestOf(&x.Request)
	if err != nil {
		return nil, err
	}
	rec := mapping()
	add(rec, "llm_request", req)
	payloads := wire.Payloads(&x.Response)
	if x.Response.Status != 200 {
		return nil, fmt.Errorf("the response has status %d: ADK records only answers", x.Response.Status)
	}
	var responses []*yaml.Node
	for _, p := range payloads {
		r, err := d.llmResponseOf(p)
		if err != nil {
			return nil, err
		}
		responses = append(responses, r)
	}
	switch {
	case len(responses) == 0:
		return nil, fmt.Errorf("the response carries no answer")
	case x.Response.Streamed():
		add(rec, "llm_responses", &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: responses})
	default:
		add(rec, "llm_response", responses[0])
	}
	return rec, nil
}

// llmRequestOf turns a Gemini API request into ADK's LlmRequest.
func (d doc) llmRequestOf(r *cassettes.Request) (*yaml.Node, error) {
	body, err := d.jsonNode(r.Body)
	if err != nil || body.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("the request body is not a JSON object")
	}
	out := mapping()
	add(out, "model", str(wire.ModelOfPath(r.Path)))
	config := mapping()
	for i := 0; i+1 < len(body.Content); i += 2 {
		k, v := body.Content[i].Value, body.Content[i+1]
		switch {
		case k == "contents":
			c, err := d.rename(v, reflect.SliceOf(contentType), toADK, "contents")
			if err != nil {
				return nil, err
			}
			add(out, "contents", c)
		case k == "systemInstruction":
			si, err := d.instructionOf(v)
			if err != nil {
				return nil, err
			}
			add(config, "system_instruction", si)
		case k == "generationConfig":
			g, err := d.rename(v, configType, toADK, "generationConfig")
			if err != nil {
				return nil, err
			}
			config.Content = append(config.Content, g.Content...)
		default:
			f, ok := fieldOf(configType, k, toADK)
			if !ok || !contains(topLevelConfig, k) && k != "labels" {
				return nil, fmt.Errorf("request field %q has no place in ADK's LlmRequest", k)
			}
			c, err := d.rename(v, f.Type, toADK, k)
			if err != nil {
				return nil, err
			}
			add(config, textfmt.Snake(k), c)
		}
	}
	if len(config.Content) > 0 {
		add(out, "config", config)
	}
	return out, nil
}

// instructionOf gives a one-text-part instruction back as ADK's plain
// string; any other content stays a content.
func (d doc) instructionOf(v *yaml.Node) (*yaml.Node, error) {
	if parts := lookup(v, "parts"); parts != nil && parts.Kind == yaml.SequenceNode && len(parts.Content) == 1 {
		p := parts.Content[0]
		if t := lookup(p, "text"); t != nil && len(p.Content) == 2 && t.Kind == yaml.ScalarNode {
			return str(t.Value), nil
		}
	}
	return d.rename(v, contentType, toADK, "systemInstruction")
}

// llmResponseOf turns a GenerateContentResponse into ADK's LlmResponse.
func (d doc) llmResponseOf(payload []byte) (*yaml.Node, error) {
	body, err := d.jsonNode(payload)
	if err != nil || body.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("the response is not a JSON object")
	}
	out := mapping()
	for i := 0; i+1 < len(body.Content); i += 2 {
		k, v := body.Content[i].Value, body.Content[i+1]
		switch k {
		case "candidates":
			if v.Kind != yaml.SequenceNode || len(v.Content) > 1 {
				return nil, fmt.Errorf("the response has %d candidates; ADK reads one", len(v.Content))
			}
			if len(v.Content) == 0 {
				continue
			}
			cand := v.Content[0]
			for j := 0; j+1 < len(cand.Content); j += 2 {
				ck, cv := cand.Content[j].Value, cand.Content[j+1]
				if ck == "index" || ck == "safetyRatings" {
					continue // not in ADK's LlmResponse
				}
				if candidateFields[textfmt.Snake(ck)] != ck {
					return nil, fmt.Errorf("candidate field %q has no place in ADK's LlmResponse", ck)
				}
				f, _ := fieldOf(candidateType, ck, toADK)
				rv, err := d.rename(cv, f.Type, toADK, ck)
				if err != nil {
					return nil, err
				}
				add(out, textfmt.Snake(ck), rv)
			}
		case "usageMetadata", "modelVersion":
			f, _ := fieldOf(responseType, k, toADK)
			rv, err := d.rename(v, f.Type, toADK, k)
			if err != nil {
				return nil, err
			}
			add(out, textfmt.Snake(k), rv)
		case "responseId", "createTime":
			// per-call ids and times: not in ADK's LlmResponse
		default:
			return nil, fmt.Errorf("response field %q has no place in ADK's LlmResponse", k)
		}
	}
	return out, nil
}

// toolResult finds what a function call (the nth of its name in its
// answer) returned: the function response with its id, else the nth of
// its name, in its agent's next model call (of this invocation, or a later
// one for a long-running tool), else the
// "`NAME` tool returned result: ..." relay another agent was sent.
func toolResult(later []*cassettes.Exchange, x *cassettes.Exchange, call cassettes.ToolCall, nth int) (any, error) {
	for _, y := range later {
		if y.Place.Session != x.Place.Session || y.Place.Agent != x.Place.Agent {
			continue // (a long-running tool's result comes with a later invocation)
		}
		var named []cassettes.ToolResult
		for _, r := range wire.StepOf(y).ToolResults {
			if call.ID != "" && r.ID == call.ID {
				return r.Response, nil
			}
			if r.Name == call.Name {
				named = append(named, r)
			}
		}
		if nth < len(named) {
			return named[nth].Response, nil
		}
		break // the agent's next call did not carry it
	}
	marker := "`" + call.Name + "` tool returned result: "
	for _, y := range later {
		if y.Place.Session != x.Place.Session {
			continue
		}
		if text, ok := relayText(y.Request.Body, marker); ok {
			return parseRelayed(text)
		}
	}
	return nil, fmt.Errorf("no later model call carries its result")
}

// relayText finds the text after marker in a request's user-role texts.
func relayText(body []byte, marker string) (string, bool) {
	if !bytes.Contains(body, []byte(strings.Trim(strconv.Quote(marker), `"`))) {
		return "", false
	}
	var req struct {
		Contents []struct {
			Parts []struct {
				Text string `json:"text"`
			} `json:"parts"`
		} `json:"contents"`
	}
	if json.Unmarshal(body, &req) != nil {
		return "", false
	}
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			if _, after, ok := strings.Cut(p.Text, marker); ok {
				return after, true
			}
		}
	}
	return "", false
}

// parseRelayed reads a relayed result: JSON (ADK-JS) or a Python literal
// (ADK Python's str(dict): single quotes, None, True, False).
func parseRelayed(text string) (any, error) {
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(text), &n); err != nil || len(n.Content) != 1 {
		return nil, fmt.Errorf("its relayed result %q cannot be read", text)
	}
	var v any
	if err := pythonLiterals(n.Content[0]).Decode(&v); err != nil {
		return nil, fmt.Errorf("its relayed result %q cannot be read: %v", text, err)
	}
	if m, ok := v.(map[string]any); ok {
		return m, nil
	}
	return map[string]any{"result": v}, nil
}

// pythonLiterals turns Python's None, True and False into YAML's.
func pythonLiterals(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.ScalarNode && n.Style == 0 {
		switch n.Value {
		case "None":
			n.Tag, n.Value = "!!null", "null"
		case "True":
			n.Tag, n.Value = "!!bool", "true"
		case "False":
			n.Tag, n.Value = "!!bool", "false"
		}
	}
	for _, c := range n.Content {
		pythonLiterals(c)
	}
	return n
}

func toolNode(call cassettes.ToolCall, response any) *yaml.Node {
	c := mapping()
	if call.ID != "" {
		add(c, "id", str(call.ID))
	}
	args := any(call.Args)
	if call.Args == nil {
		args = map[string]any{}
	}
	add(c, "args", valueNode(args))
	add(c, "name", str(call.Name))
	r := mapping()
	if call.ID != "" {
		add(r, "id", str(call.ID))
	}
	add(r, "name", str(call.Name))
	add(r, "response", valueNode(response))
	t := mapping()
	add(t, "tool_call", c)
	add(t, "tool_response", r)
	return t
}

func valueNode(v any) *yaml.Node {
	var n yaml.Node
	if err := n.Encode(v); err != nil {
		return str(fmt.Sprint(v))
	}
	return &n
}
