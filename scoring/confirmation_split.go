// ADK 1.18's invocations at a tool confirmation: the user's answer starts
// a new invocation there, so with adk_version 1.18 a recorded invocation
// is cut where ADK asked to confirm a call, as ADK 1.18's own eval view of
// the session has it.

package scoring

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/textfmt"
)

// confirmationHint is the hint ADK 1.18 puts in its adk_request_confirmation
// call for a tool declared with require_confirmation.
const confirmationHint = "Please approve or reject the tool call %s() by responding with a FunctionResponse with an expected ToolConfirmation payload."

// splitConfirmations gives c the invocations ADK 1.18 sees: every recorded
// invocation with a call ADK asked to confirm, and a step after it, is cut
// after that call's step. The part that asked ends with ADK's
// adk_request_confirmation call beside the call it asks about (ADK 1.18's
// trajectory holds it); the next part has no user text (the user's message
// is the answer) and holds the steps after it. A call was asked about when
// the recording says so (the user's recorded answer or ADK's refusal) or
// when the eval case's adk_request_confirmation calls name its tool. The
// unequal-count failure of the pairing is then judged again.
func splitConfirmations(c *Case) {
	asked := confirmedTools(c.Expected)
	var out []Invocation
	for i := range c.Actual {
		out = append(out, splitInvocation(&c.Actual[i], asked)...)
	}
	if len(out) == len(c.Actual) {
		return
	}
	old := c.countFailure()
	c.Actual = out
	if c.Expected == nil {
		return // nothing to pair with
	}
	now := c.countFailure()
	switch {
	case old == "" && now != "":
		c.Failure = strings.TrimPrefix(c.Failure+"; "+now, "; ")
	case old != "" && strings.Contains(c.Failure, old):
		c.Failure = strings.Trim(strings.Replace(c.Failure, old, now, 1), "; ")
	}
}

// countFailure is the pairing's failure for unequal invocation counts; ""
// when they are equal or there is nothing to pair.
func (c *Case) countFailure() string {
	if c.Scenario != nil || c.Session == nil || len(c.Expected) == len(c.Actual) {
		return ""
	}
	return fmt.Sprintf("the eval case has %s, the recorded session %s (cassette %q, session %d) has %d: invocations pair in order, so the counts must be equal",
		textfmt.Plural(len(c.Expected), "invocation"), c.sessionName, c.Session.Cassette, c.Session.ID, len(c.Actual))
}

// confirmedTools are the tools whose calls the eval case's
// adk_request_confirmation calls ask about (originalFunctionCall.name).
func confirmedTools(expected []Invocation) map[string]bool {
	out := map[string]bool{}
	for _, inv := range expected {
		for _, call := range inv.ToolCalls {
			if call.Name != confirmationTool {
				continue
			}
			if orig, ok := call.Args["originalFunctionCall"].(map[string]any); ok {
				if name, ok := orig["name"].(string); ok {
					out[name] = true
				}
			}
		}
	}
	return out
}

// splitInvocation cuts inv after each step (but the last) with a call
// asked about; inv itself when there is none.
func splitInvocation(inv *Invocation, asked map[string]bool) []Invocation {
	var parts []Invocation
	start := 0
	for i := range inv.Steps {
		if i == len(inv.Steps)-1 {
			break
		}
		var questions []cassettes.ToolCall
		for k, call := range inv.Steps[i].ToolCalls {
			if asked[call.Name] || inv.askedAt[[2]int{i, k}] {
				questions = append(questions, confirmationCall(call))
			}
		}
		if len(questions) == 0 {
			continue
		}
		part := invocationOfSteps(inv, start, i+1)
		part.ToolCalls = append(part.ToolCalls, questions...)
		parts = append(parts, part)
		start = i + 1
	}
	if len(parts) == 0 {
		return []Invocation{*inv}
	}
	return append(parts, invocationOfSteps(inv, start, len(inv.Steps)))
}

// invocationOfSteps is the part of inv made of its steps [from, to): the
// first part keeps the user's text, the invocation's id and its tool HTTP
// calls; a later one has no user text and the id "<id>/<from>".
func invocationOfSteps(inv *Invocation, from, to int) Invocation {
	part := Invocation{ID: inv.ID, UserText: inv.UserText, Steps: inv.Steps[from:to:to], Rubrics: inv.Rubrics}
	if from == 0 {
		part.ToolHTTP, part.Elapsed = inv.ToolHTTP, inv.Elapsed
	} else {
		part.ID, part.UserText = inv.ID+"/"+strconv.Itoa(from), ""
	}
	final := -1
	if last := to - 1; len(inv.Steps[last].ToolCalls) == 0 {
		final = last
		part.FinalResponse = inv.Steps[last].Text
	}
	for i := from; i < to; i++ {
		st := &inv.Steps[i]
		part.ToolCalls = append(part.ToolCalls, st.ToolCalls...)
		part.ToolResults = append(part.ToolResults, st.ToolResults...)
		if i != final && st.Text != "" {
			part.IntermediateResponses = append(part.IntermediateResponses, AuthoredText{Author: st.Agent, Text: st.Text})
		}
	}
	return part
}

// confirmationCall is ADK 1.18's adk_request_confirmation call about call,
// without the ids ADK gives both (new every run).
func confirmationCall(call cassettes.ToolCall) cassettes.ToolCall {
	orig := map[string]any{"name": call.Name}
	if call.Args != nil {
		orig["args"] = call.Args
	}
	return cassettes.ToolCall{Name: confirmationTool, Args: map[string]any{
		"originalFunctionCall": orig,
		"toolConfirmation":     map[string]any{"hint": strings.Replace(confirmationHint, "%s", call.Name, 1), "confirmed": false},
	}}
}
