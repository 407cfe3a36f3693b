// Judging the session: adkconformance's comparison, worded for a report,
// with the event fields the user chose to leave out taken out first.

package conformancerun

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/adkproxy/adkproxy/adkapi"
	"github.com/adkproxy/adkproxy/adkconformance"
	"github.com/adkproxy/adkproxy/scoring"
)

// compareSession returns the first difference between the server's session
// and the recorded one as a sentence, or "" when they are equal. ignore
// names top-level event fields (camelCase) left out on both sides.
func compareSession(want *adkconformance.Session, got *adkapi.Session, ignore []string) string {
	raw := got.Raw
	if len(ignore) > 0 {
		want, raw = withoutEventFields(want, got, ignore)
	}
	diff, err := adkconformance.CompareSession(raw, want, adkconformance.CompareOptions{})
	switch {
	case err != nil:
		return fmt.Sprintf("the server's session cannot be compared: %v", err)
	case diff == nil:
		return ""
	}
	return diff.String()
}

// withoutEventFields copies both sessions without the ignored event
// fields: the recorded one's snake_case keys are matched by their
// camelCase form.
func withoutEventFields(want *adkconformance.Session, got *adkapi.Session, ignore []string) (*adkconformance.Session, json.RawMessage) {
	w := *want
	w.Events = nil
	for _, e := range want.Events {
		e = maps.Clone(e)
		maps.DeleteFunc(e, func(k string, _ any) bool { return slices.Contains(ignore, scoring.ToCamel(k)) })
		w.Events = append(w.Events, e)
	}
	var events []json.RawMessage
	for _, e := range got.Events {
		var m map[string]json.RawMessage
		if json.Unmarshal(e.Raw, &m) != nil {
			events = append(events, e.Raw) // compared as it is; CompareSession says what is wrong
			continue
		}
		for _, f := range ignore {
			delete(m, f)
		}
		b, _ := json.Marshal(m) // raw values always marshal
		events = append(events, b)
	}
	var session map[string]json.RawMessage
	if json.Unmarshal(got.Raw, &session) != nil {
		return &w, got.Raw
	}
	session["events"], _ = json.Marshal(events)
	b, _ := json.Marshal(session)
	return &w, b
}
