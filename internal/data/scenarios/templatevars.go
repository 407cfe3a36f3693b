// A persona as ADK's Jinja templates see it (the simulated user's prompt
// and the simulator judge's).

package scenarios

import "strings"

// TemplateVar is the persona as ADK's UserPersona reads in a template: id,
// description and behaviors, each with name, description,
// behavior_instructions, violation_rubrics and the two methods
// get_behavior_instructions_str() and get_violation_rubrics_str() ("  * "
// per line, lines joined by "\n"). Texts are as written: a template that
// wants {{ stop_signal }} in them rendered passes them through
// render_string_filter, as ADK's own templates do.
func (p *Persona) TemplateVar() map[string]any {
	behaviors := make([]any, len(p.Behaviors))
	for i, b := range p.Behaviors {
		instructions, rubrics := bullets(b.Instructions), bullets(b.ViolationRubrics)
		behaviors[i] = map[string]any{"name": b.Name, "description": b.Description,
			"behavior_instructions": anyList(b.Instructions), "violation_rubrics": anyList(b.ViolationRubrics),
			"get_behavior_instructions_str": func() string { return instructions },
			"get_violation_rubrics_str":     func() string { return rubrics }}
	}
	return map[string]any{"id": p.ID, "description": p.Description, "behaviors": behaviors}
}

func bullets(lines []string) string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = "  * " + l
	}
	return strings.Join(out, "\n")
}

func anyList(list []string) []any {
	out := make([]any, len(list))
	for i, s := range list {
		out[i] = s
	}
	return out
}
