// Conformance replay of an agent used as a tool (ADK's AgentTool): ADK
// records the tool's result, not the sub-agent's model calls, so the
// sub-agent's call is answered with that result as its final text.

package proxy

import (
	"encoding/json"
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/conversation"
	"github.com/adkproxy/adkproxy/internal/wire"
	"github.com/adkproxy/adkproxy/matcher"
)

// toolResults are the function results a recorded invocation's model
// calls carry, by tool name and canonical arguments.
type toolResults map[string]any

func toolKey(name, args string) string { return name + "\x00" + args }

// addRequest notes the results in a recorded request's history: each
// functionResponse answers the earliest unanswered functionCall of its name
// before it.
func (tr toolResults) addRequest(body []byte) {
	v, ok := matcher.ParseJSON(body)
	if !ok {
		return
	}
	pending := map[string][]string{} // name -> canonical args, oldest first
	for _, c := range wire.HistoryOf(v) {
		wire.EachPart(c, func(_ string, _ bool, fc, fr map[string]any) {
			if fc != nil {
				name, _ := fc["name"].(string)
				args := fc["args"]
				if args == nil {
					args = map[string]any{}
				}
				pending[name] = append(pending[name], string(matcher.AppendCanonical(nil, args)))
			}
			if fr != nil {
				name, _ := fr["name"].(string)
				if q := pending[name]; len(q) > 0 {
					tr[toolKey(name, q[0])] = fr["response"]
					pending[name] = q[1:]
				}
			}
		})
	}
}

// agentToolAnswer is the answer to a model call of an agent used as a
// tool: the recorded result of the call that handed it its task, as the
// agent's final text (a {"result": text} result gives text; any other, its
// JSON). ok is false when nothing recorded names this call.
func (tr toolResults) agentToolAnswer(call *conversation.Call, agent, path string) (resp *cassettes.Response, ok bool) {
	args := call.TaskArgs
	if args == "" {
		args = call.AgentToolArgs()
	}
	if args == "" || agent == "" {
		return nil, false
	}
	result, ok := tr[toolKey(agent, args)]
	if !ok {
		return nil, false
	}
	m, _ := result.(map[string]any)
	text, isText := m["result"].(string)
	if !isText || len(m) != 1 {
		b, _ := json.Marshal(result)
		text = string(b)
	}
	body := wire.TextAnswer(text)
	r := &cassettes.Response{Status: 200, Header: map[string][]string{"Content-Type": {"application/json; charset=UTF-8"}}, End: cassettes.EndComplete}
	if strings.HasSuffix(path, ":streamGenerateContent") {
		r.Header.Set("Content-Type", "text/event-stream")
		r.Events = []cassettes.Event{{Data: append(append([]byte("data: "), body...), "\r\n\r\n"...)}}
	} else {
		r.Body = body
	}
	return r, true
}
