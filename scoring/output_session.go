// The recorded session as ADK's Session, for an EvalCaseResult's
// session_details and user_id.

package scoring

import (
	"fmt"

	"github.com/adkproxy/adkproxy/internal/data/scenarios"
)

// outSession is ADK's Session (adk sessions/session.py) as model_dump
// writes it: the session the case ran in, with its events.
type outSession struct {
	ID             string         `json:"id"`
	AppName        string         `json:"app_name"`
	UserID         string         `json:"user_id"`
	State          map[string]any `json:"state"`
	Events         []outEvent     `json:"events"`
	LastUpdateTime float64        `json:"last_update_time"`
}

// outEvent is an ADK Event as the session holds it: a user message, a
// model answer (text and function calls) or the function responses sent
// back, each with its invocation.
type outEvent struct {
	ID           string          `json:"id"`
	InvocationID string          `json:"invocation_id"`
	Author       string          `json:"author"`
	Content      outEventContent `json:"content"`
	Timestamp    float64         `json:"timestamp"`
}

type outEventContent struct {
	Parts []map[string]any `json:"parts"`
	Role  string           `json:"role"`
}

// outSessionDetails is the case's session as ADK's EvalCaseResult carries
// it (session_details), and its user_id: the eval case's session_input
// user, else ADK's default test_user_id. The app is app when given, else
// the session_input's. Events are rebuilt from the recorded model calls, in
// order: the user's message, then per model call the function responses
// its request sent and its answer. Ids and timestamps are derived, never
// invented, so the same cassettes give the same file. Nil without a
// recorded session.
func outSessionDetails(app string, c CaseResult) (*outSession, string) {
	in := scenarios.DefaultSessionInput()
	if c.Case != nil && c.Case.SessionInput != nil {
		// Checked when read: an error cannot happen here, and would leave
		// the defaults.
		si, _ := scenarios.ParseSessionInput("session_input", c.Case.SessionInput)
		if si.UserID != "" {
			in.UserID = si.UserID
		}
		if si.AppName != "" {
			in.AppName = si.AppName
		}
		if si.State != nil {
			in.State = si.State
		}
	}
	if app != "" {
		in.AppName = app
	}
	if c.Case == nil || c.Case.Session == nil {
		return nil, in.UserID
	}
	s := &outSession{ID: outSessionID(c), AppName: in.AppName, UserID: in.UserID, State: in.State, Events: []outEvent{}}
	for _, inv := range c.Case.Actual {
		add := func(author, role string, parts []map[string]any) {
			if len(parts) == 0 {
				return
			}
			s.Events = append(s.Events, outEvent{ID: fmt.Sprintf("%s/%d", inv.ID, len(s.Events)+1), InvocationID: inv.ID,
				Author: author, Content: outEventContent{Parts: parts, Role: role}})
		}
		add("user", "user", []map[string]any{{"text": inv.UserText}})
		for _, st := range inv.Steps {
			author := st.Agent
			if author == "" {
				author = "agent"
			}
			// A model call's request carries the responses to the calls
			// before it: they come first.
			var responses []map[string]any
			for _, tr := range st.ToolResults {
				responses = append(responses, map[string]any{"function_response": map[string]any{"id": tr.ID, "name": tr.Name, "response": tr.Response}})
			}
			add(author, "user", responses)
			var parts []map[string]any
			if st.Text != "" {
				parts = append(parts, map[string]any{"text": st.Text})
			}
			for _, tc := range st.ToolCalls {
				parts = append(parts, map[string]any{"function_call": map[string]any{"id": tc.ID, "name": tc.Name, "args": tc.Args}})
			}
			add(author, "model", parts)
		}
	}
	return s, in.UserID
}
