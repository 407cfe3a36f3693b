// What a step's model was given besides the conversation.

package recorded

import "github.com/adkproxy/adkproxy/internal/wire"

// Sent is the part of a model call that an agent's definition decides
// (wire.Setup): the model asked for, the system instruction, the
// generation config and the tools. Comparing runs compares it per agent,
// once per invocation.
type Sent = wire.Setup

// Sent reads what the step's request gave the model (wire.SetupOf).
func (s *Step) Sent() Sent { return wire.SetupOf(&s.Exchange.Request) }
