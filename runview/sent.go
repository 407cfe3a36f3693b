// What a step's model was given besides the conversation.

package runview

import (
	"strings"

	"github.com/adkproxy/adkproxy/conversation"
	"github.com/adkproxy/adkproxy/matcher"
)

// Sent is the part of a model call that an agent's definition decides:
// the model asked for, the system instruction, the generation config and
// the tools. Comparing runs compares it per agent, once per invocation.
type Sent struct {
	Model string
	// SystemInstruction is the instruction's texts joined by line breaks.
	SystemInstruction string
	// GenerationConfig is nil when none was sent.
	GenerationConfig map[string]any
	// Tools are as sent: function declarations and built-in tools.
	Tools []any
}

// Sent reads what the step's request gave the model. A body that is not a
// JSON object gives the model alone.
func (s *Step) Sent() Sent {
	out := Sent{Model: conversation.ModelOfPath(s.Exchange.Request.Path)}
	v, _ := matcher.ParseJSON(s.Exchange.Request.Body)
	req, _ := v.(map[string]any)
	out.SystemInstruction = strings.Join(conversation.InstructionTexts(req["systemInstruction"]), "\n")
	out.GenerationConfig, _ = req["generationConfig"].(map[string]any)
	out.Tools, _ = req["tools"].([]any)
	return out
}
