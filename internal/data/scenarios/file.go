// The files `adk eval_set add_eval_case` takes: the {"scenarios": [...]}
// file and the session_input file.

package scenarios

import (
	"encoding/json"
	"fmt"

	"github.com/adkproxy/adkproxy/internal/base/pyjson"
	"github.com/adkproxy/adkproxy/internal/base/userfile"
)

// LoadFile reads a scenarios file: {"scenarios": [ConversationScenario…]}
// (ADK's ConversationScenarios; no other key).
func LoadFile(path string) ([]Scenario, error) {
	data, err := userfile.Read(path)
	if err != nil {
		return nil, fmt.Errorf("scenarios: %w", err)
	}
	return ParseFile(path, data)
}

// ParseFile reads a scenarios file's content; name is used in errors.
func ParseFile(name string, data []byte) ([]Scenario, error) {
	x, err := pyjson.Decode(name, data)
	if err != nil {
		return nil, err
	}
	o, err := x.Object()
	if err != nil {
		return nil, x.Errorf(`want {"scenarios": [...]}, got %s`, pyjson.Describe(x.V))
	}
	if err := x.CheckPyKeys(o, "scenarios"); err != nil {
		return nil, err
	}
	sv, ok := x.Field(o, "scenarios")
	if !ok || sv.V == nil {
		return nil, sv.Errorf(`missing: a scenarios file is {"scenarios": [{"starting_prompt", "conversation_plan", "user_persona"?}, ...]}`)
	}
	items, err := sv.List()
	if err != nil {
		return nil, err
	}
	out := make([]Scenario, 0, len(items))
	for i := range items {
		s, err := parseScenario(sv.Elem(items, i))
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// SessionInput is ADK's SessionInput: the session a scenario runs in.
type SessionInput struct {
	AppName string
	UserID  string
	// State is the session's initial state ({} when not given).
	State map[string]any
}

// DefaultSessionInput is what ADK uses without a session input: app
// "EvaluationGenerator", user "test_user_id", empty state.
func DefaultSessionInput() SessionInput {
	return SessionInput{AppName: "EvaluationGenerator", UserID: "test_user_id", State: map[string]any{}}
}

// MarshalJSON writes ADK's snake_case form.
func (si SessionInput) MarshalJSON() ([]byte, error) {
	state := si.State
	if state == nil {
		state = map[string]any{}
	}
	return json.Marshal(struct {
		AppName string         `json:"app_name"`
		UserID  string         `json:"user_id"`
		State   map[string]any `json:"state"`
	}{si.AppName, si.UserID, state})
}

// LoadSessionInput reads a session_input file.
func LoadSessionInput(path string) (SessionInput, error) {
	data, err := userfile.Read(path)
	if err != nil {
		return SessionInput{}, fmt.Errorf("session input: %w", err)
	}
	return ParseSessionInput(path, data)
}

// ParseSessionInput reads a session input: app_name/appName and
// user_id/userId required, state an object (default {}); other keys are
// allowed and ignored, as ADK allows them.
func ParseSessionInput(name string, data []byte) (SessionInput, error) {
	return ParseSessionInputField(name, "", data)
}

// ParseSessionInputField reads a session input held in field of file
// name (an eval case's session_input), naming the field in errors.
func ParseSessionInputField(name, field string, data []byte) (SessionInput, error) {
	x, err := pyjson.Decode(name, data)
	if err != nil {
		return SessionInput{}, err
	}
	x.Path = field
	return parseSessionInput(x)
}

func parseSessionInput(x pyjson.Value) (SessionInput, error) {
	o, err := x.Object()
	if err != nil {
		return SessionInput{}, x.Errorf(`want {"app_name", "user_id", "state"?}, got %s`, pyjson.Describe(x.V))
	}
	si := SessionInput{State: map[string]any{}}
	an, err := x.Required(o, "app_name", "a session input needs the app name")
	if err != nil {
		return si, err
	}
	if si.AppName, err = an.Str(); err != nil {
		return si, err
	}
	un, err := x.Required(o, "user_id", "a session input needs the user id")
	if err != nil {
		return si, err
	}
	if si.UserID, err = un.Str(); err != nil {
		return si, err
	}
	if sv, ok := x.Field(o, "state"); ok && sv.V != nil {
		if _, err := sv.Object(); err != nil {
			return si, err
		}
		si.State = pyjson.Plain(sv.V).(map[string]any)
	}
	return si, nil
}
