// Sessions and events as the servers send them: decoded where a caller
// needs a field, raw JSON kept for everything else.

package adkapi

import (
	"context"
	"encoding/json"
	"net/http"

	"google.golang.org/genai"
)

// Session is an ADK session as GET …/sessions/{id} returns it.
type Session struct {
	ID             string         `json:"id"`
	AppName        string         `json:"appName"`
	UserID         string         `json:"userId"`
	State          map[string]any `json:"state"`
	Events         []Event        `json:"events"`
	LastUpdateTime float64        `json:"lastUpdateTime"`
	// Raw is the session exactly as the server sent it.
	Raw json.RawMessage `json:"-"`
}

// UnmarshalJSON decodes the known fields and keeps the raw JSON.
func (s *Session) UnmarshalJSON(b []byte) error {
	type plain Session
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*s = Session(p)
	s.Raw = append(json.RawMessage(nil), b...)
	return nil
}

// MarshalJSON writes the session as the server sent it when it came from
// one, otherwise its fields.
func (s Session) MarshalJSON() ([]byte, error) {
	if s.Raw != nil {
		return s.Raw, nil
	}
	type plain Session
	return json.Marshal(plain(s))
}

// Event is one ADK event. The decoded fields are those callers look at;
// Raw holds everything the server sent, and is what MarshalJSON writes.
type Event struct {
	ID           string         `json:"id"`
	InvocationID string         `json:"invocationId"`
	Author       string         `json:"author"`
	Branch       string         `json:"branch,omitempty"`
	Timestamp    float64        `json:"timestamp"`
	Partial      bool           `json:"partial,omitempty"`
	Content      *genai.Content `json:"content,omitempty"`
	Actions      EventActions   `json:"actions"`
	ErrorCode    string         `json:"errorCode,omitempty"`
	ErrorMessage string         `json:"errorMessage,omitempty"`
	// LongRunningToolIDs are the ids of the function calls in this event
	// that a later turn answers.
	LongRunningToolIDs []string `json:"longRunningToolIds,omitempty"`
	// Raw is the event exactly as the server sent it.
	Raw json.RawMessage `json:"-"`
}

// EventActions are the parts of an event's actions callers look at.
type EventActions struct {
	StateDelta      map[string]any `json:"stateDelta,omitempty"`
	TransferToAgent string         `json:"transferToAgent,omitempty"`
	Escalate        bool           `json:"escalate,omitempty"`
}

// UnmarshalJSON decodes the known fields and keeps the raw JSON.
func (e *Event) UnmarshalJSON(b []byte) error {
	type plain Event
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		// ADK for Python writes bytes as URL-safe base64.
		p = plain{}
		if err2 := json.Unmarshal(stdBase64JSON(b), &p); err2 != nil {
			return err
		}
	}
	*e = Event(p)
	e.Raw = append(json.RawMessage(nil), b...)
	return nil
}

// MarshalJSON writes the event as the server sent it when it came from one.
func (e Event) MarshalJSON() ([]byte, error) {
	if e.Raw != nil {
		return e.Raw, nil
	}
	type plain Event
	return json.Marshal(plain(e))
}

// FunctionCalls returns the function calls in the event's content.
func (e *Event) FunctionCalls() []*genai.FunctionCall {
	if e.Content == nil {
		return nil
	}
	var calls []*genai.FunctionCall
	for _, p := range e.Content.Parts {
		if p != nil && p.FunctionCall != nil {
			calls = append(calls, p.FunctionCall)
		}
	}
	return calls
}

// CreateSession creates a session for user in app with the initial state
// (nil for none) and returns it as the server answered.
func (c *Client) CreateSession(ctx context.Context, app, user string, state map[string]any) (*Session, error) {
	if state == nil {
		state = map[string]any{}
	}
	var s Session
	err := c.getJSON(ctx, http.MethodPost, c.url("apps", app, "users", user, "sessions"), map[string]any{"state": state}, &s)
	if err != nil {
		return nil, err
	}
	return &s, nil
}

// GetSession returns the session with all its events.
func (c *Client) GetSession(ctx context.Context, app, user, id string) (*Session, error) {
	var s Session
	if err := c.getJSON(ctx, http.MethodGet, c.url("apps", app, "users", user, "sessions", id), nil, &s); err != nil {
		return nil, err
	}
	return &s, nil
}
