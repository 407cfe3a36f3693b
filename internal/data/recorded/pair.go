// Pairing a tool result with the call it answers: the one rule scoring's
// tool success rate, the run diff's results and ADK's refusals share.

package recorded

import "github.com/adkproxy/adkproxy/cassettes"

// CallRef names a tool call of an invocation: Steps[Step].ToolCalls[Call].
// Step is -1 for no call.
type CallRef struct{ Step, Call int }

// A Turn is what pairing reads of a step: the tool results sent with its
// request, then the tool calls its answer made.
type Turn struct {
	Results []cassettes.ToolResult
	Calls   []cassettes.ToolCall
}

// PairResults files each result of the turns on the call it answers, a
// call of an earlier turn; out[i][k] is the call result k of turn i
// answers ({-1, -1} when none does). A result goes with the unanswered call
// of its id. Failing that, when it or the call has no id (ADK's history to
// the model drops them, and they differ between runs), it goes with the
// earliest unanswered call of its name, results in the order they were
// sent: parallel calls of one tool are answered in the order they were
// made. A call is answered at most once.
func PairResults(turns []Turn) [][]CallRef {
	out := make([][]CallRef, len(turns))
	answered := map[CallRef]bool{}
	for i, t := range turns {
		out[i] = make([]CallRef, len(t.Results))
		for k := range out[i] {
			out[i][k] = CallRef{-1, -1}
		}
		for k, r := range t.Results { // by id first, so a call without one does not take another's result
			if r.ID != "" {
				out[i][k] = earliest(turns[:i], answered, func(c cassettes.ToolCall) bool { return c.ID == r.ID })
			}
		}
		for k, r := range t.Results {
			if out[i][k].Step < 0 {
				out[i][k] = earliest(turns[:i], answered, func(c cassettes.ToolCall) bool {
					return c.Name == r.Name && (c.ID == "" || r.ID == "")
				})
			}
		}
	}
	return out
}

// earliest finds the first unanswered call of turns that match accepts,
// marking it answered.
func earliest(turns []Turn, answered map[CallRef]bool, match func(cassettes.ToolCall) bool) CallRef {
	for i, t := range turns {
		for j, c := range t.Calls {
			if ref := (CallRef{i, j}); !answered[ref] && match(c) {
				answered[ref] = true
				return ref
			}
		}
	}
	return CallRef{-1, -1}
}

// Turns are the invocation's steps as pairing reads them.
func (inv *Invocation) Turns() []Turn {
	turns := make([]Turn, len(inv.Steps))
	for i, s := range inv.Steps {
		turns[i] = Turn{Results: s.ToolResults, Calls: s.ToolCalls}
	}
	return turns
}

// Results is the result of each answered tool call of the invocation, by
// PairResults.
func (inv *Invocation) Results() map[CallRef]cassettes.ToolResult {
	out := map[CallRef]cassettes.ToolResult{}
	for i, answers := range PairResults(inv.Turns()) {
		for k, ref := range answers {
			if ref.Step >= 0 {
				out[ref] = inv.Steps[i].ToolResults[k]
			}
		}
	}
	return out
}
