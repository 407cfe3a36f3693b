// Comparing a session an ADK API server returned with the recorded
// generated-session.yaml, by ADK's stripping rules.
//
// This reads ADK's session format, not model or tool traffic: events are
// what an ADK API server stores and returns (its /sessions documents and
// the corpus's YAML), compared field by field as documents. Their parts
// spell functionCall and functionResponse as genai's Part does, but no
// exchange adkproxy recorded is read here, so the keys stay here rather
// than in internal/wire (TestWireKeysOnlyInWire names this file).

package conformance

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/adkproxy/adkproxy/internal/base/textfmt"
	"github.com/adkproxy/adkproxy/matcher"
)

// CompareOptions choose what a comparison leaves out beyond ADK's rules.
type CompareOptions struct {
	// DropFunctionParts also leaves out functionCall and functionResponse
	// parts, as ADK-JS's in-process conformance comparison does.
	DropFunctionParts bool
	// Ignore are more event fields to leave out, as dotted camelCase paths
	// within an event ("avgLogprobs", "usageMetadata.trafficType"); a list
	// on the way applies the rest of the path to each of its elements
	// ("content.parts.thought").
	Ignore []string
}

// SessionDiff is the first difference between two sessions.
type SessionDiff struct {
	// Event is the index of the first differing event; -1 when every event
	// is equal and the state differs.
	Event int `json:"event"`
	// Path is the field in that event (camelCase, e.g.
	// content.parts[0].text), or "" when the event is missing or extra.
	Path string `json:"path"`
	// Want is the recorded value, Got the server's, as compact JSON ("" when absent).
	Want string `json:"want,omitempty"`
	Got  string `json:"got,omitempty"`
	// Line is the line of the recorded event in generated-session.yaml.
	Line int `json:"line,omitempty"`
	// Detail reads as a sentence.
	Detail string `json:"detail"`
}

func (d *SessionDiff) String() string { return d.Detail }

// eventIgnored are event fields that differ every run (ADK's rules);
// longRunningToolIds holds the ids of run-made function calls, which
// are stripped too.
var eventIgnored = map[string]bool{"id": true, "timestamp": true, "invocationId": true, "longRunningToolIds": true}

// dataFields are the fields whose values are data, not ADK's own: their
// keys are compared as written, never respelled, so a tool that takes
// agentName where ADK Python's takes agent_name shows as a difference.
// Each is named by the field that holds it ("" at the top of an event).
var dataFields = map[[2]string]bool{
	{"functionCall", "args"}: true, {"functionResponse", "response"}: true,
	{"actions", "stateDelta"}: true, {"actions", "artifactDelta"}: true,
	{"actions", "requestedAuthConfigs"}: true, {"actions", "requestedToolConfirmations"}: true,
	{"", "customMetadata"}: true,
}

// CompareSession compares a session as an ADK API server returns it (JSON:
// the session object with its events, or the list of events) with the
// recorded one. ADK's own field names (of events, contents, parts) are
// read camelCase on both sides (ADK Python dumps snake_case); keys inside
// data (tool arguments and results, state, state deltas) are compared as
// written. Left out is what ADK's comparison strips: event ids,
// timestamps, invocation ids, function call and response ids, long-running
// tool ids and thought signatures.
// Nulls, empty objects and empty lists count as absent, as languages dump
// defaults differently. It returns nil when the sessions are equal.
func CompareSession(got []byte, want *Session, opt CompareOptions) (*SessionDiff, error) {
	doc, ok := matcher.ParseJSON(got)
	if !ok {
		return nil, fmt.Errorf("the session is not JSON (want the session object or its list of events)")
	}
	var gotEvents []any
	var gotState any
	hasState := false
	switch v := doc.(type) {
	case []any:
		gotEvents = v
	case map[string]any:
		events, ok := v["events"].([]any)
		if !ok && v["events"] != nil {
			return nil, fmt.Errorf("the session's events are not a list")
		}
		gotEvents = events
		gotState, hasState = v["state"]
	}
	for i := 0; i < len(gotEvents) || i < len(want.Events); i++ {
		switch {
		case i >= len(gotEvents):
			return &SessionDiff{Event: i, Line: want.EventLines[i], Want: compactJSON(normalizedEvent(want.Events[i], opt)),
				Detail: fmt.Sprintf("event %d (%s:%d, author %v) is missing: the server's session has %d event(s), the recording %d",
					i, want.File, want.EventLines[i], want.Events[i]["author"], len(gotEvents), len(want.Events))}, nil
		case i >= len(want.Events):
			return &SessionDiff{Event: i, Got: compactJSON(normalizedEvent(gotEvents[i], opt)),
				Detail: fmt.Sprintf("event %d is extra: the server's session has %d event(s), the recording (%s) %d",
					i, len(gotEvents), want.File, len(want.Events))}, nil
		}
		w, g := normalizedEvent(want.Events[i], opt), normalizedEvent(gotEvents[i], opt)
		if diffs := matcher.DiffJSON("", w, g); len(diffs) > 0 {
			d := diffs[0]
			return &SessionDiff{Event: i, Path: d.Path, Want: d.Recorded, Got: d.Got, Line: want.EventLines[i],
				Detail: fmt.Sprintf("event %d (%s:%d, author %v): %s", i, want.File, want.EventLines[i], want.Events[i]["author"], d)}, nil
		}
	}
	if hasState {
		w, g := normalized(want.Fields["state"], "", true, opt), normalized(gotState, "", true, opt)
		if w == nil {
			w = map[string]any{}
		}
		if g == nil {
			g = map[string]any{}
		}
		if diffs := matcher.DiffJSON("state", w, g); len(diffs) > 0 {
			return &SessionDiff{Event: -1, Path: diffs[0].Path, Want: diffs[0].Recorded, Got: diffs[0].Got,
				Detail: fmt.Sprintf("every event is equal; the state differs (%s): %s", want.File, diffs[0])}, nil
		}
	}
	return nil, nil
}

// normalizedEvent is an event as compared: camelCase keys, ADK's volatile
// fields out, numbers as json.Number.
func normalizedEvent(e any, opt CompareOptions) any {
	m, ok := e.(map[string]any)
	if !ok {
		return normalized(e, "", false, opt)
	}
	kept := map[string]any{}
	for k, v := range m {
		if !eventIgnored[textfmt.Camel(k)] {
			kept[k] = v
		}
	}
	n := normalized(kept, "", false, opt)
	for _, path := range opt.Ignore {
		drop(n, strings.Split(path, "."))
	}
	return n
}

// drop removes the field at path below v (maps by key, lists element by
// element).
func drop(v any, path []string) {
	switch x := v.(type) {
	case map[string]any:
		if len(path) == 1 {
			delete(x, path[0])
			return
		}
		drop(x[path[0]], path[1:])
	case []any:
		for _, item := range x {
			drop(item, path)
		}
	}
}

// normalized rewrites v (below the key parent, camelCase; data when data
// is set) and gives its numbers the same type whichever side it came from.
func normalized(v any, parent string, data bool, opt CompareOptions) any {
	out := norm(v, parent, data, opt)
	if out == nil {
		return nil
	}
	b, err := json.Marshal(out)
	if err != nil {
		return fmt.Sprint(out)
	}
	if v2, ok := matcher.ParseJSON(b); ok {
		return v2
	}
	var scalar any
	json.Unmarshal(b, &scalar) //nolint:errcheck // b is what Marshal just wrote
	return scalar
}

// norm drops what the comparison ignores and turns ADK's field names to
// camelCase; inside data (data set) keys stay as written.
func norm(v any, parent string, data bool, opt CompareOptions) any {
	var out any
	switch x := v.(type) {
	case map[string]any:
		m := map[string]any{}
		for k, val := range x {
			ck, inData := k, data
			if !data {
				ck = textfmt.Camel(k)
				if ck == "thoughtSignature" || ck == "id" && (parent == "functionCall" || parent == "functionResponse") {
					continue
				}
				inData = dataFields[[2]string{parent, ck}]
			}
			if n := norm(val, ck, inData, opt); n != nil {
				m[ck] = n
			}
		}
		if len(m) > 0 {
			out = m
		}
	case []any:
		var list []any
		for _, item := range x {
			if !data && parent == "parts" && opt.DropFunctionParts && isFunctionPart(item) {
				continue
			}
			if n := norm(item, "", data, opt); n != nil {
				list = append(list, n)
			}
		}
		if len(list) > 0 {
			out = list
		}
	default:
		out = x
	}
	return out
}

func isFunctionPart(p any) bool {
	m, ok := p.(map[string]any)
	if !ok {
		return false
	}
	for k := range m {
		if ck := textfmt.Camel(k); ck == "functionCall" || ck == "functionResponse" {
			return true
		}
	}
	return false
}

func compactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSpace(string(b))
}
