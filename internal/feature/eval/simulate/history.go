// The conversation history as the simulated user reads it: ADK's rendering
// of the session's events, one entry per text part (and, with
// include_function_calls, per tool call and result), blank-line separated.

package simulate

import (
	"encoding/json"
	"strings"

	"github.com/adkproxy/adkproxy/internal/base/adkapi"
	"github.com/adkproxy/adkproxy/internal/base/pyjson"
	"github.com/adkproxy/adkproxy/internal/wire"
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
	for _, p := range wire.RawParts(eventContent(ev)) {
		switch {
		case p.Text != "" && !p.Thought:
			h.entries = append(h.entries, ev.Author+": "+p.Text)
		case h.functionCalls && p.Call != nil:
			h.entries = append(h.entries, ev.Author+" called tool '"+pyStr(p.Call.Name)+"' with args: "+pyRepr(p.Call.Value))
		case h.functionCalls && p.Response != nil:
			h.entries = append(h.entries, "Tool '"+pyStr(p.Response.Name)+"' returned: "+pyRepr(p.Response.Value))
		}
	}
}

// eventContent is ev's content as the server wrote it (an event adkproxy
// made itself is written out first); nil when it has none. Only the
// content is read: the rest of an event (usage, actions) is no part of
// the history.
func eventContent(ev adkapi.Event) []byte {
	if ev.Raw != nil {
		var e struct {
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(ev.Raw, &e) != nil {
			return nil
		}
		return e.Content
	}
	if ev.Content != nil {
		content, _ := json.Marshal(ev.Content)
		return content
	}
	return nil
}

// pyRepr is Python's repr of the dict ADK holds for a recorded value, its
// keys in recorded order; None when absent.
func pyRepr(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "None"
	}
	v, err := pyjson.Decode("event content", raw)
	if err != nil {
		return "None"
	}
	return pyjson.Repr(v.V)
}

// pyStr is str() of an optional string field: None when missing.
func pyStr(s *string) string {
	if s == nil {
		return "None"
	}
	return *s
}
