// The conversation history as the simulated user reads it: ADK's rendering
// of the session's events, one entry per text part (and, with
// include_function_calls, per tool call and result), blank-line separated.

package simulate

import (
	"encoding/json"
	"strings"

	"github.com/adkproxy/adkproxy/internal/base/adkapi"
	"github.com/adkproxy/adkproxy/internal/base/pyjson"
)

// history is the conversation so far as the simulated user reads it:
// "<author>: <text>" per non-thought text part, and with functionCalls
// also "<author> called tool '<name>' with args: <args>" and "Tool
// '<name>' returned: <response>", the values as Python's repr of the
// dicts ADK holds (pyjson.Repr), read from each event's content as the
// server sent it, so keys keep their recorded order. Events never change,
// so each is read and rendered once, when a prompt first needs it: not
// again every turn, and never for a conversation that renders no prompt
// (a static one) or after its last prompt.
type history struct {
	functionCalls bool
	unread        []adkapi.Event
	entries       []string
}

// add puts ev after the events so far.
func (h *history) add(ev adkapi.Event) { h.unread = append(h.unread, ev) }

// String is the history in the prompt: its entries, blank-line separated.
func (h *history) String() string {
	for _, ev := range h.unread {
		h.render(ev)
	}
	h.unread = h.unread[:0]
	return strings.Join(h.entries, "\n\n")
}

// render adds ev's entries.
func (h *history) render(ev adkapi.Event) {
	for _, p := range eventParts(ev) {
		text, _ := p.Val("text").(string)
		call, response := partField(p, "functionCall", "function_call"), partField(p, "functionResponse", "function_response")
		switch {
		case text != "" && !truthy(p.Val("thought")):
			h.entries = append(h.entries, ev.Author+": "+text)
		case h.functionCalls && call != nil:
			h.entries = append(h.entries, ev.Author+" called tool '"+pyStr(call.Val("name"))+"' with args: "+pyjson.Repr(call.Val("args")))
		case h.functionCalls && response != nil:
			h.entries = append(h.entries, "Tool '"+pyStr(response.Val("name"))+"' returned: "+pyjson.Repr(response.Val("response")))
		}
	}
}

// eventParts are the parts of ev's content, objects keeping their keys in
// the order the server wrote them (an event adkproxy made itself is
// written out first). Only the content is read in order: the rest of an
// event (usage, actions) is no part of the history.
func eventParts(ev adkapi.Event) []*pyjson.Object {
	var content []byte
	if ev.Raw != nil {
		var e struct {
			Content json.RawMessage `json:"content"`
		}
		if err := json.Unmarshal(ev.Raw, &e); err != nil {
			return nil
		}
		content = e.Content
	} else if ev.Content != nil {
		var err error
		if content, err = json.Marshal(ev.Content); err != nil {
			return nil
		}
	}
	if len(content) == 0 {
		return nil
	}
	v, err := pyjson.Decode("event content", content)
	if err != nil {
		return nil
	}
	c, _ := v.V.(*pyjson.Object)
	if c == nil {
		return nil
	}
	list, _ := c.Val("parts").([]any)
	var parts []*pyjson.Object
	for _, p := range list {
		if o, ok := p.(*pyjson.Object); ok {
			parts = append(parts, o)
		}
	}
	return parts
}

// partField is a part's field under either spelling, nil when absent or
// null.
func partField(p *pyjson.Object, camel, snake string) *pyjson.Object {
	for _, k := range []string{camel, snake} {
		if o, ok := p.Val(k).(*pyjson.Object); ok {
			return o
		}
	}
	return nil
}

// truthy is Python's truth of a part's boolean field.
func truthy(v any) bool {
	b, _ := v.(bool)
	return b
}

// pyStr is str() of an optional string field: None when missing.
func pyStr(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return "None"
}
