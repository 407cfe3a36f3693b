// What ADK's judges read of a model call besides the conversation: the
// agent's system instruction and tool declarations (ADK's app details),
// and the function calls and responses as recorded, keys in wire order.

package scoring

import (
	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/wire"
)

// stepDetails fills what ADK's judges read of step's model call x (as
// wire.RawOf reads it); the raw calls and results only when they are one
// for one with those read.
func stepDetails(step *Step, x *cassettes.Exchange) {
	raw := wire.RawOf(x)
	step.Instructions, step.Tools = raw.Instructions, raw.Tools
	if len(raw.Calls) == len(step.ToolCalls) && len(raw.Calls) > 0 {
		step.CallsJSON = raw.Calls
	}
	if len(raw.Results) == len(step.ToolResults) && len(raw.Results) > 0 {
		step.ResultsJSON = raw.Results
	}
}
