// Conversations: the user turns to send, from a spec or an eval set.

package drive

import (
	"fmt"
	"path/filepath"

	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/internal/data/conformance"
	"github.com/adkproxy/adkproxy/internal/data/evalset"
	"github.com/adkproxy/adkproxy/internal/data/scenarios"
)

// Conversation is a session to play: its initial state and user turns.
type Conversation struct {
	// Name says where it came from: a spec file, or eval set and case.
	Name         string
	InitialState map[string]any
	// UserID, when set, is the session's user instead of the Driver's
	// (an eval case's session_input names one).
	UserID string
	Turns  []Turn
}

// Run is run k of n of the conversation, named so (numruns.Repeat).
func (c Conversation) Run(k, n int) Conversation {
	c.Name = fmt.Sprintf("%s (run %d of %d)", c.Name, k, n)
	return c
}

// Turn is one user message.
type Turn struct {
	// Where names the turn in errors, e.g. "spec.yaml:12" or "case c1, invocation 2".
	Where      string
	Content    *genai.Content
	StateDelta map[string]any
}

// FromSpec is the conversation of a conformance case's spec.yaml.
func FromSpec(s *conformance.Spec) Conversation {
	c := Conversation{Name: s.File, InitialState: s.InitialState}
	for i, m := range s.UserMessages {
		c.Turns = append(c.Turns, Turn{
			Where:      fmt.Sprintf("%s:%d (user_messages[%d])", s.File, m.Line, i),
			Content:    m.Content,
			StateDelta: m.StateDelta,
		})
	}
	return c
}

// FromEvalSet is one conversation per eval case with a fixed conversation,
// each turn its invocation's user text, its user and initial state the
// case's session_input when it has one. Cases with a
// conversation_scenario (a simulated user) have no fixed turns: they are
// returned in skipped, with the reason.
func FromEvalSet(sets []*evalset.EvalSet) (convs []Conversation, skipped []string) {
	for _, set := range sets {
		for _, ec := range set.EvalCases {
			name := ec.EvalID
			if set.File != "" {
				name = filepath.Base(set.File) + ": case " + ec.EvalID
			}
			if ec.Conversation == nil {
				skipped = append(skipped, name+": it has a conversation_scenario, not fixed user turns")
				continue
			}
			if len(ec.Conversation) == 0 {
				skipped = append(skipped, name+": its conversation is empty")
				continue
			}
			c := Conversation{Name: name}
			if ec.SessionInput != nil { // ADK: the case's session runs with its session_input
				si, err := scenarios.ParseSessionInputField(set.File, "case "+ec.EvalID+": session_input", evalset.RawJSON(ec.SessionInput))
				if err != nil { // checked when the eval set was read
					skipped = append(skipped, name+": "+err.Error())
					continue
				}
				c.UserID, c.InitialState = si.UserID, si.State
			}
			for i, inv := range ec.Conversation {
				c.Turns = append(c.Turns, Turn{
					Where:   fmt.Sprintf("%s, invocation %d", name, i+1),
					Content: genai.NewContentFromText(inv.UserContent.Text(), genai.RoleUser),
				})
			}
			convs = append(convs, c)
		}
	}
	return convs, skipped
}
