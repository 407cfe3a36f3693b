// The scenario and persona types, reading them from JSON as ADK's pydantic
// models do, and ADK's scenario id.

package scenarios

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/adkproxy/adkproxy/internal/base/pyjson"
)

// StopSignal is what the simulated user writes to end a conversation, and
// the pyjson.Value of the {{ stop_signal }} placeholder in behavior texts.
const StopSignal = "</finished>"

// Scenario is ADK's ConversationScenario.
type Scenario struct {
	// StartingPrompt is sent verbatim as the first user message.
	StartingPrompt string
	// ConversationPlan is what the simulated user pursues, in order.
	ConversationPlan string
	// Persona is nil for none. A persona id in the file is resolved to
	// the pre-built persona (Prebuilt) when the scenario is read.
	Persona *Persona
}

// Persona is ADK's UserPersona: how the simulated user behaves.
type Persona struct {
	ID          string     `json:"id"`
	Description string     `json:"description"`
	Behaviors   []Behavior `json:"behaviors"`
}

// Behavior is ADK's UserBehavior: one trait of a persona, what the
// simulated user is told to do and the rubrics a judge fails it by.
type Behavior struct {
	Name             string   `json:"name"`
	Description      string   `json:"description"`
	Instructions     []string `json:"behavior_instructions"`
	ViolationRubrics []string `json:"violation_rubrics"`
}

// ID is ADK's scenario id, the eval_id `adk eval_set add_eval_case` gives
// the scenario's case: the first 8 hex digits of the SHA-256 of Python's
// json.dumps(scenario.model_dump(), sort_keys=True). A pre-built persona
// takes part expanded to its full text, so for one the id matches ADK's
// only if the text does; adkproxy's catalogue is its own wording, so
// scenarios with a pre-built persona get ids of their own (custom personas
// and no persona give ADK's ids).
func (s *Scenario) ID() string {
	sum := sha256.Sum256([]byte(s.pythonJSON()))
	return hex.EncodeToString(sum[:])[:8]
}

// pythonJSON is json.dumps(model_dump(), sort_keys=True): snake_case keys
// in sorted order, ", " and ": " separators, non-ASCII escaped.
func (s *Scenario) pythonJSON() string {
	var persona any // None
	if p := s.Persona; p != nil {
		behaviors := make([]any, len(p.Behaviors))
		for i, bh := range p.Behaviors {
			behaviors[i] = map[string]any{"behavior_instructions": bh.Instructions, "description": bh.Description,
				"name": bh.Name, "violation_rubrics": bh.ViolationRubrics}
		}
		persona = map[string]any{"behaviors": behaviors, "description": p.Description, "id": p.ID}
	}
	return pyjson.Dumps(map[string]any{"conversation_plan": s.ConversationPlan, "starting_prompt": s.StartingPrompt,
		"user_persona": persona}, true)
}

// parseScenario reads a ConversationScenario: both casings, unknown keys
// rejected, user_persona null, a pre-built persona id, or a persona object.
func parseScenario(x pyjson.Value) (Scenario, error) {
	o, err := x.Object()
	if err != nil {
		return Scenario{}, err
	}
	if err := x.CheckPyKeys(o, "starting_prompt", "conversation_plan", "user_persona"); err != nil {
		return Scenario{}, err
	}
	var s Scenario
	sp, err := x.Required(o, "starting_prompt", "a scenario needs the first user message")
	if err != nil {
		return s, err
	}
	if s.StartingPrompt, err = sp.Str(); err != nil {
		return s, err
	}
	if strings.TrimSpace(s.StartingPrompt) == "" {
		return s, sp.Errorf("empty: the starting prompt is sent as the first user message")
	}
	cp, err := x.Required(o, "conversation_plan", "a scenario needs the plan the simulated user follows")
	if err != nil {
		return s, err
	}
	if s.ConversationPlan, err = cp.Str(); err != nil {
		return s, err
	}
	if up, ok := x.PyField(o, "user_persona"); ok && up.V != nil {
		p, err := parsePersonaRef(up)
		if err != nil {
			return s, err
		}
		s.Persona = &p
	}
	return s, nil
}

// parsePersonaRef reads a persona id (resolved in the persona registry
// file, else the pre-built catalogue) or a persona object.
func parsePersonaRef(x pyjson.Value) (Persona, error) {
	if id, ok := x.V.(string); ok {
		if p, ok := registered(id); ok {
			return p, nil
		}
		p, ok := Prebuilt(id)
		if !ok {
			return Persona{}, x.Errorf("unknown persona id %q (pre-built: %s); give a custom persona as an object {\"id\", \"description\", \"behaviors\"}",
				id, strings.Join(PersonaIDs(), ", "))
		}
		return p, nil
	}
	return parsePersona(x)
}

// parsePersona reads a UserPersona object: snake_case keys only, all
// fields required, unknown keys ignored (as ADK's plain pydantic model).
func parsePersona(x pyjson.Value) (Persona, error) {
	o, err := x.Object()
	if err != nil {
		return Persona{}, x.Errorf("want a persona id or a persona object, got %s", pyjson.Describe(x.V))
	}
	var p Persona
	idv, ok := x.Field(o, "id")
	if !ok || idv.V == nil {
		return p, idv.Errorf("missing: a persona needs an id")
	}
	if p.ID, err = idv.Str(); err != nil {
		return p, err
	}
	dv, ok := x.Field(o, "description")
	if !ok || dv.V == nil {
		return p, dv.Errorf("missing: a persona needs a description")
	}
	if p.Description, err = dv.Str(); err != nil {
		return p, err
	}
	bv, ok := x.Field(o, "behaviors")
	if !ok || bv.V == nil {
		return p, bv.Errorf("missing: a persona needs a list of behaviors")
	}
	items, err := bv.List()
	if err != nil {
		return p, err
	}
	for i := range items {
		b, err := parseBehavior(bv.Elem(items, i))
		if err != nil {
			return p, err
		}
		p.Behaviors = append(p.Behaviors, b)
	}
	return p, nil
}

func parseBehavior(x pyjson.Value) (Behavior, error) {
	o, err := x.Object()
	if err != nil {
		return Behavior{}, err
	}
	var b Behavior
	for _, f := range []struct {
		key string
		dst *string
	}{{"name", &b.Name}, {"description", &b.Description}} {
		v, ok := x.Field(o, f.key)
		if !ok || v.V == nil {
			return b, v.Errorf("missing: a behavior needs %s", f.key)
		}
		if *f.dst, err = v.Str(); err != nil {
			return b, err
		}
	}
	for _, f := range []struct {
		key string
		dst *[]string
	}{{"behavior_instructions", &b.Instructions}, {"violation_rubrics", &b.ViolationRubrics}} {
		v, ok := x.Field(o, f.key)
		if !ok || v.V == nil {
			return b, v.Errorf("missing: a behavior needs %s (a list of strings)", f.key)
		}
		if *f.dst, err = v.Strings(); err != nil {
			return b, err
		}
	}
	return b, nil
}

// ParseScenario reads one conversation_scenario object; name and field
// say where it came from, for errors ("home.evalset.json",
// "eval_cases[2].conversation_scenario").
func ParseScenario(name, field string, data []byte) (Scenario, error) {
	x, err := pyjson.Decode(name, data)
	if err != nil {
		return Scenario{}, err
	}
	x.Path = field
	return parseScenario(x)
}
