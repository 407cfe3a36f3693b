// The simulator judge's prompt: the persona's behaviors as criteria, their
// texts rendered as the Jinja templates they are (ADK's behavior texts say
// {{ stop_signal }}).

package judge

import (
	"fmt"

	"github.com/adkproxy/adkproxy/internal/base/jinja"
	"github.com/adkproxy/adkproxy/internal/data/scenarios"
	"github.com/adkproxy/adkproxy/scoring"
)

// personaCriteria is a persona as the judge prompt shows it: one
// criterion per behavior, failing on its violation rubrics.
type personaCriteria struct {
	Description string
	Criteria    []behaviorCriterion
}

type behaviorCriterion struct {
	Name        string
	Description string
	Rubrics     []string
}

// simulatorPrompt renders the judge prompt for one generated user turn:
// the user's ADK-style Jinja template for the scenario's kind (with or
// without a persona) when there is one, else adkproxy's (or the user's Go
// template).
func (j *Judge) simulatorPrompt(sc *scenarios.Scenario, history, generated, stopSignal string) (string, error) {
	kind := scoring.PerTurnUserSimulatorQualityV1
	if sc.Persona != nil {
		kind += personaSuffix
	}
	if o := j.prompts[kind]; o != nil && o.jinja != nil {
		out, err := jinja.Execute(o.jinja, adkSimulatorVars(sc, history, generated, stopSignal))
		if err != nil {
			return "", fmt.Errorf("%s: %w", o.file, err)
		}
		return out, nil
	}
	data := map[string]any{"Plan": sc.ConversationPlan, "History": history, "Generated": generated, "StopSignal": stopSignal}
	if sc.Persona != nil {
		vars := map[string]any{"stop_signal": stopSignal, "conversation_plan": sc.ConversationPlan,
			"conversation_history": history, "generated_user_response": generated}
		p := &personaCriteria{Description: sc.Persona.Description}
		for i, b := range sc.Persona.Behaviors {
			where := fmt.Sprintf("persona %q, behaviors[%d]", sc.Persona.ID, i)
			var c behaviorCriterion
			var err error
			if c.Name, err = renderJinja(b.Name, vars, where+".name"); err != nil {
				return "", err
			}
			if c.Description, err = renderJinja(b.Description, vars, where+".description"); err != nil {
				return "", err
			}
			for k, rubric := range b.ViolationRubrics {
				text, err := renderJinja(rubric, vars, fmt.Sprintf("%s.violation_rubrics[%d]", where, k))
				if err != nil {
					return "", err
				}
				c.Rubrics = append(c.Rubrics, text)
			}
			p.Criteria = append(p.Criteria, c)
		}
		data["Persona"] = p
	}
	parts, err := j.prompt(scoring.PerTurnUserSimulatorQualityV1, data, nil, nil)
	if err != nil {
		return "", err
	}
	return parts[0], nil
}

// personaSuffix names the ADK-style simulator judge template for scenarios
// with a persona (ADK has one template for each case).
const personaSuffix = "_persona"

// adkSimulatorVars are the variables ADK renders its simulator judge
// templates with: the plan, the history, the generated user turn, the stop
// signal and, with a persona, the persona (scenarios.Persona.TemplateVar).
func adkSimulatorVars(sc *scenarios.Scenario, history, generated, stopSignal string) map[string]any {
	vars := map[string]any{"conversation_plan": sc.ConversationPlan, "conversation_history": history,
		"generated_user_response": generated, "stop_signal": stopSignal}
	if p := sc.Persona; p != nil {
		vars["persona"] = p.TemplateVar()
	}
	return vars
}

// renderJinja renders one behavior text as a Jinja template with vars
// (package internal/jinja: it can include no file); where names the text
// in errors.
func renderJinja(text string, vars map[string]any, where string) (string, error) {
	out, err := jinja.Render(text, vars)
	if err != nil {
		return "", fmt.Errorf("%s: %v", where, err)
	}
	return out, nil
}
