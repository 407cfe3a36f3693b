// The simulated user's prompt: adkproxy's default and persona templates
// (its own text, structured as ADK's), or the eval config's custom
// instructions, all Jinja rendered with gonja (package internal/jinja:
// a template can include no file).

package simulate

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/nikolalohinski/gonja/v2/config"
	"github.com/nikolalohinski/gonja/v2/tokens"

	"github.com/adkproxy/adkproxy/internal/base/jinja"
	"github.com/adkproxy/adkproxy/internal/data/scenarios"
)

// StopSignal ends a simulated conversation when the user model writes it
// (in any case); the reply holding it is never sent.
const StopSignal = scenarios.StopSignal

// defaultPrompt is used with neither a persona nor custom instructions.
const defaultPrompt = `You play a user who talks to an AI agent, to test that agent. Write the user's next message in reply to the agent's last message. The conversation plan below grounds what you want; it is not a script to recite.

Work in three steps.
1. Read the agent's last message and decide what it is: a question to you, a success (it did what you asked), a failure (it could not do it), or an error (it did something wrong).
2. Choose exactly one action:
   - ANSWER: the agent asked something; answer it with information from the plan only.
   - ADVANCE: the agent succeeded; make the next request of the plan that is not yet fulfilled.
   - INTERVENE: the plan says to change your request at this point; do so.
   - CORRECT: the agent made a mistake; point it out and ask for it to be fixed.
   - END: every request of the plan is fulfilled, or the agent failed the same request more than once, or it did something wrong and says it cannot fix it, or it handed you over to a human (not to another AI agent).
3. Write the message for that action.

Rules:
- Use only information from the plan. Never invent names, numbers or other data; if the plan does not say, say you do not know.
- When answering a question, do not also advance to the next request.
- Skip requests the agent has already fulfilled.
- After a first failure, ask the agent to try again.
- Choose END only when one of its conditions holds, and then write {{ stop_signal }} and nothing else.

# Conversation Plan
{{ conversation_plan }}

# Conversation History
{{ conversation_history }}`

// personaPrompt is used with a persona and no custom instructions. Like
// ADK's it never mentions the stop signal itself: the persona's behaviors
// say when to end, their texts rendered as templates in the prompt's
// variables (render_string_filter), the description not.
const personaPrompt = `You play a user who talks to an AI agent, to test that agent. Role-play the persona described below and write the user's next message in reply to the agent's last message. The conversation plan below grounds what you want; it is not a script to recite.

# Persona Description
{{ persona.description }}
{% for b in persona.behaviors %}
## {{ b.name | render_string_filter }}
{{ b.description | render_string_filter }}

Instructions:
{{ b.get_behavior_instructions_str() | render_string_filter }}
{% endfor %}
# Conversation Plan
{{ conversation_plan }}

# Conversation History
{{ conversation_history }}`

// ErrPersonaNotReferenced: custom instructions with a persona must use it.
var ErrPersonaNotReferenced = errors.New("custom_instructions do not reference persona, and the scenario has a persona")

// prompter renders the simulated user's prompt for one conversation.
type prompter struct {
	tmpl *jinja.Template
	// where names the template in errors: its file and field.
	where   string
	persona map[string]any // nil without a persona
	plan    string
}

// templates are the prompt templates parsed so far, by source: a run's
// conversations share the few it uses (a jinja.Template renders for many
// at once).
type templates struct {
	mu     sync.Mutex
	parsed map[string]*jinja.Template
}

func (ts *templates) parse(src string) (*jinja.Template, error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if t := ts.parsed[src]; t != nil {
		return t, nil
	}
	t, err := jinja.Parse(src)
	if err != nil {
		return nil, err
	}
	if ts.parsed == nil {
		ts.parsed = map[string]*jinja.Template{}
	}
	ts.parsed[src] = t
	return t, nil
}

// newPrompter takes the template the case calls for from ts: custom
// instructions when given, else the persona or the default template.
// persona is scenarios.Persona.TemplateVar: texts as written, as ADK
// passes them.
func newPrompter(ts *templates, custom, file string, persona map[string]any, plan string) (*prompter, error) {
	src, where := defaultPrompt, "the simulated user's prompt template"
	switch {
	case custom != "":
		if persona != nil && !referencedNames(custom)["persona"] {
			return nil, ErrPersonaNotReferenced
		}
		src, where = custom, customInstructionsField(file)
	case persona != nil:
		src = personaPrompt
	}
	t, err := ts.parse(src)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	return &prompter{tmpl: t, plan: plan, where: where, persona: persona}, nil
}

// render fills the template with the history so far.
func (p *prompter) render(history string) (string, error) {
	vars := map[string]any{"stop_signal": StopSignal, "conversation_plan": p.plan, "conversation_history": history}
	if p.persona != nil {
		vars["persona"] = p.persona
	}
	out, err := jinja.Execute(p.tmpl, vars)
	if err != nil {
		return "", fmt.Errorf("rendering %s: %w", p.where, err)
	}
	return out, nil
}

// customInstructionsField names the custom instructions in errors, with
// the eval config file they came from.
func customInstructionsField(file string) string {
	if file == "" {
		return "user_simulator_config.custom_instructions"
	}
	return file + ": user_simulator_config.custom_instructions"
}

// checkCustomInstructions parses custom instructions and checks they
// reference the variables ADK requires of them.
func checkCustomInstructions(src, file string) error {
	if src == "" {
		return nil
	}
	if _, err := jinja.Parse(src); err != nil {
		return fmt.Errorf("%s: %w", customInstructionsField(file), err)
	}
	names := referencedNames(src)
	var missing []string
	for _, v := range []string{"stop_signal", "conversation_plan", "conversation_history"} {
		if !names[v] {
			missing = append(missing, v)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s must reference %s (as {{ %s }})", customInstructionsField(file), strings.Join(missing, ", "), missing[0])
	}
	return nil
}

// referencedNames are the variable names a template's expressions use
// (attribute names after a dot left out), read with gonja's lexer.
func referencedNames(src string) map[string]bool {
	names := map[string]bool{}
	stream := tokens.LexAll(src, config.New())
	var prev *tokens.Token
	for !stream.End() {
		tok := stream.Next()
		if tok.Type == tokens.Name && (prev == nil || prev.Type != tokens.Dot) {
			names[tok.Val] = true
		}
		if tok.Type != tokens.Whitespace {
			prev = tok
		}
	}
	return names
}
