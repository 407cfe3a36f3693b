// The eval-set case that holds a conversation_scenario, as
// `adk eval_set add_eval_case` writes it and an eval set file holds it.

package scenarios

import (
	"encoding/json"
	"time"
)

// EvalCase is ADK's EvalCase for a scenario: its id, the scenario, the
// session it runs in, and the case's rubrics.
type EvalCase struct {
	EvalID       string
	Scenario     Scenario
	SessionInput *SessionInput // nil: DefaultSessionInput
	// Rubrics are EvalCase.rubrics as written (JSON), for the
	// rubric-based metrics; nil for none.
	Rubrics json.RawMessage
	// CreationTimestamp is seconds since the epoch.
	CreationTimestamp float64
}

// NewEvalCase is the case `adk eval_set add_eval_case` makes of a
// scenario: eval_id is the scenario's ID.
func NewEvalCase(s Scenario, si *SessionInput, now time.Time) EvalCase {
	return EvalCase{EvalID: s.ID(), Scenario: s, SessionInput: si, CreationTimestamp: float64(now.UnixMicro()) / 1e6}
}

// MarshalJSON writes the case as ADK's local eval-set files hold it:
// snake_case, unset fields left out, the persona written out in full.
func (c EvalCase) MarshalJSON() ([]byte, error) {
	type scenario struct {
		StartingPrompt   string   `json:"starting_prompt"`
		ConversationPlan string   `json:"conversation_plan"`
		UserPersona      *Persona `json:"user_persona,omitempty"`
	}
	return json.Marshal(struct {
		EvalID            string          `json:"eval_id"`
		Scenario          scenario        `json:"conversation_scenario"`
		SessionInput      *SessionInput   `json:"session_input,omitempty"`
		Rubrics           json.RawMessage `json:"rubrics,omitempty"`
		CreationTimestamp float64         `json:"creation_timestamp"`
	}{c.EvalID, scenario{c.Scenario.StartingPrompt, c.Scenario.ConversationPlan, c.Scenario.Persona},
		c.SessionInput, c.Rubrics, c.CreationTimestamp})
}

// ParseEvalCase reads one eval case that holds a conversation_scenario;
// name and field say where it is, for errors ("home.evalset.json",
// "eval_cases[2]"). Keys other than eval_id, conversation_scenario,
// session_input and rubrics are allowed and ignored (ADK allows extra keys).
func ParseEvalCase(name, field string, data []byte) (EvalCase, error) {
	x, err := decode(name, data)
	if err != nil {
		return EvalCase{}, err
	}
	x.path = field
	o, err := x.object()
	if err != nil {
		return EvalCase{}, err
	}
	var c EvalCase
	idv, err := x.required(o, "eval_id", "an eval case needs eval_id")
	if err != nil {
		return c, err
	}
	if c.EvalID, err = idv.str(); err != nil {
		return c, err
	}
	if conv, ok := x.pyField(o, "conversation"); ok {
		return c, conv.errorf("the case has a static conversation, not a conversation_scenario")
	}
	sv, err := x.required(o, "conversation_scenario", "an eval case needs conversation or conversation_scenario")
	if err != nil {
		return c, err
	}
	if c.Scenario, err = parseScenario(sv); err != nil {
		return c, err
	}
	if siv, ok := x.pyField(o, "session_input"); ok {
		si, err := parseSessionInput(siv)
		if err != nil {
			return c, err
		}
		c.SessionInput = &si
	}
	if rv, ok := x.pyField(o, "rubrics"); ok {
		if _, err := rv.list(); err != nil {
			return c, err
		}
		c.Rubrics, _ = json.Marshal(rv.v)
	}
	if tv, ok := x.pyField(o, "creation_timestamp"); ok {
		n, isNum := tv.v.(json.Number)
		f, err := n.Float64()
		if !isNum || err != nil {
			return c, tv.errorf("want a number (seconds since the epoch), got %s", kind(tv.v))
		}
		c.CreationTimestamp = f
	}
	return c, nil
}

// Input is the session input the case runs in (DefaultSessionInput when
// it has none).
func (c *EvalCase) Input() SessionInput {
	if c.SessionInput != nil {
		return *c.SessionInput
	}
	return DefaultSessionInput()
}
