// Comparing two paired invocations: tool calls, tool results, the final
// response, what the model was sent, and the cost.

package rundiff

import (
	"encoding/json"
	"maps"
	"net/url"
	"slices"
	"strconv"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/adkapi"
	"github.com/adkproxy/adkproxy/internal/base/align"
	"github.com/adkproxy/adkproxy/internal/base/rouge"
	"github.com/adkproxy/adkproxy/internal/base/textfmt"
	"github.com/adkproxy/adkproxy/internal/data/recorded"
	"github.com/adkproxy/adkproxy/matcher"
)

// call is one tool call of an invocation with the agent that made it and
// the result it got (nil when none was sent back). A tool's HTTP request
// (a tool exchange the forward proxy recorded) is a call too, so it aligns
// and diffs like one: see httpCall.
type call struct {
	cassettes.ToolCall
	agent  string
	result map[string]any
	hasRes bool
	// answer is the user's recorded answer to ADK's confirmation request
	// for the call, when the client reported one.
	answer *cassettes.Confirmation
}

// callsOf lists an invocation's tool calls in file order, each with the
// result sent back later (recorded.PairResults: by id, else the k-th
// result of a name goes with the k-th call of it).
func callsOf(inv *recorded.Invocation) []call {
	var calls []call
	results := inv.Results()
	for i, s := range inv.Steps {
		for j, tc := range s.ToolCalls {
			c := call{ToolCall: tc, agent: s.Agent}
			if answer, ok := inv.ConfirmationOf(i, j); ok {
				c.answer = &answer
			}
			if r, ok := results[recorded.CallRef{Step: i, Call: j}]; ok {
				c.result, c.hasRes = r.Response, true
			}
			calls = append(calls, c)
		}
		for _, h := range s.HTTPCalls { // made by the tools those calls ran
			calls = append(calls, httpCall(h, s.Agent))
		}
	}
	return calls
}

// httpCall is a tool's HTTP request as a call: named "http METHOD
// host/path", its query parameters as arguments (a repeated one as a
// list), its status as the result; an MCP call is named "mcp SERVER
// METHOD [TOOL]" with the tool's arguments and result, an A2A call "a2a
// AGENT METHOD" with the texts sent and answered.
func httpCall(h *recorded.HTTPCall, agent string) call {
	if h.MCP != nil { // an MCP server's method, or tool by name, its arguments and result
		c := call{ToolCall: cassettes.ToolCall{Name: "mcp " + h.MCP.Server + " " + h.MCP.Method}, agent: agent}
		if h.MCP.Name != "" {
			c.Name += " " + h.MCP.Name
		}
		if v, ok := matcher.ParseJSON(h.MCP.Args); ok {
			c.Args, _ = v.(map[string]any)
		}
		switch {
		case h.MCP.Error != "":
			c.result, c.hasRes = map[string]any{"error": h.MCP.Error}, true
		default:
			if v, ok := matcher.ParseJSON(h.MCP.Result); ok {
				c.result, c.hasRes = map[string]any{"result": v}, true
			}
		}
		return c
	}
	if h.A2A != nil { // a remote agent's method, the text sent and answered
		c := call{ToolCall: cassettes.ToolCall{Name: "a2a " + h.A2A.Agent + " " + h.A2A.Method}, agent: agent, hasRes: true,
			result: map[string]any{"text": h.A2A.Result}}
		if h.A2A.Text != "" {
			c.Args = map[string]any{"text": h.A2A.Text}
		}
		if h.A2A.Error != "" {
			c.result["error"] = h.A2A.Error
		}
		return c
	}
	target := cassettes.HTTPCall{Method: h.Method, Scheme: h.Scheme, Host: h.Host, Path: h.Path}.Target()
	query, _ := url.ParseQuery(h.Query)
	return call{ToolCall: cassettes.ToolCall{Name: "http " + h.Method + " " + target, Args: matcher.QueryValue(query)}, agent: agent,
		result: map[string]any{"status": json.Number(strconv.Itoa(h.Status))}, hasRes: true}
}

func diffInvocation(o, n *recorded.Invocation, opt *Options) InvocationDiff {
	d := InvocationDiff{OldID: o.ID, NewID: n.ID, User: o.User, Tools: []ToolStep{}, Changes: []Change{},
		Old: o, New: n, Cost: Cost{Old: figuresOf(o), New: figuresOf(n)}}
	if n.User != o.User {
		d.NewUser = n.User
	}
	d.Tools, d.Changes = diffTools(callsOf(o), callsOf(n), opt)
	or, nr := finalResponses(o, n)
	if or != "" && nr != "" {
		f := rouge.Rouge1(or, nr, rouge.UseStemmerFor(nr, or)).FMeasure
		d.Similarity = &f
	}
	if or != nr {
		d.Changes = append(d.Changes, Change{Kind: ResponseChanged, Old: or, New: nr, Words: matcher.WordDiff(or, nr)})
	}
	d.Changes = append(d.Changes, diffSent(o, n)...)
	d.Status = Same
	if len(d.Changes) > 0 || d.NewUser != "" {
		d.Status = Changed
	}
	return d
}

// finalResponses are the final responses to compare. Parallel agents
// finish in any order, and ADK's final response is whichever answered
// last: when the two runs' last answers come from different agents and
// OLD also has an answer from NEW's final agent, that agent's answers are
// compared.
func finalResponses(o, n *recorded.Invocation) (string, string) {
	of, nf := o.FinalStep(), n.FinalStep()
	if of < 0 || nf < 0 || o.Steps[of].Agent == n.Steps[nf].Agent {
		return o.FinalResponse(), n.FinalResponse()
	}
	if i := o.FinalStepOf(n.Steps[nf].Agent); i >= 0 {
		return o.Steps[i].Text, n.Steps[nf].Text
	}
	return o.Steps[of].Text, n.Steps[nf].Text
}

// diffTools aligns each agent's calls (agents in order of appearance, so
// parallel sub-agents interleaving differently is no change) and lists the
// tool, argument and result changes.
func diffTools(old, new []call, opt *Options) ([]ToolStep, []Change) {
	var agents []string
	for _, c := range slices.Concat(old, new) {
		if !slices.Contains(agents, c.agent) {
			agents = append(agents, c.agent)
		}
	}
	steps := []ToolStep{}
	var toolChanges, resultChanges []Change
	for _, agent := range agents {
		oi, ni := indexesOf(old, agent), indexesOf(new, agent)
		argDiff := func(a, b int) []matcher.Difference { return opt.argsDiff(old[a], new[b]) }
		// Identical calls are kept first (so a swap reads as a move, not
		// as two argument changes), then calls of the same name pair up.
		weight := func(a, b int) int32 {
			switch {
			case old[a].Name != new[b].Name:
				return 0
			case len(argDiff(a, b)) == 0:
				return 1 << 20
			}
			return 1
		}
		equal := func(a, b int) bool { return old[a].Name == new[b].Name && len(argDiff(a, b)) == 0 }
		ops := align.AlignWeighted(oi, ni, weight, equal)
		moved := findMoves(ops, oi, ni, equal)
		for _, op := range ops {
			switch {
			case op.Op == align.Keep || op.Op == align.Insert && moved[op.New] >= 0:
				b, status := ni[op.New], Same
				var a int
				if op.Op == align.Keep {
					a = oi[op.Old]
				} else {
					a, status = oi[moved[op.New]], Moved
					toolChanges = append(toolChanges, Change{Kind: ToolMoved, Agent: agent, Tool: new[b].Name,
						Old: position(a), New: position(b)})
				}
				var argChanges []Change
				for _, diff := range argDiff(a, b) {
					if status == Same {
						status = string(ArgsChanged)
					}
					argChanges = append(argChanges, changeOf(ArgsChanged, agent, new[b].Name, diff))
				}
				toolChanges = append(toolChanges, argChanges...)
				resultChanges = append(resultChanges, opt.resultDiff(agent, old[a], new[b])...)
				steps = append(steps, ToolStep{Status: status, Agent: agent, Name: new[b].Name, Args: new[b].Args, OldIndex: a, NewIndex: b, ArgChanges: argChanges})
			case op.Op == align.Insert:
				b := ni[op.New]
				toolChanges = append(toolChanges, Change{Kind: ToolAdded, Agent: agent, Tool: new[b].Name, New: callText(new[b])})
				steps = append(steps, ToolStep{Status: Added, Agent: agent, Name: new[b].Name, Args: new[b].Args, OldIndex: -1, NewIndex: b})
			case slices.Contains(moved, op.Old):
				// shown where it moved to
			default:
				a := oi[op.Old]
				toolChanges = append(toolChanges, Change{Kind: ToolRemoved, Agent: agent, Tool: old[a].Name, Old: callText(old[a])})
				steps = append(steps, ToolStep{Status: Removed, Agent: agent, Name: old[a].Name, Args: old[a].Args, OldIndex: a, NewIndex: -1})
			}
		}
	}
	return steps, append(append([]Change{}, toolChanges...), resultChanges...)
}

// findMoves pairs deleted and inserted calls that are equal: moved[j] is
// the index (into oi) of the call that moved to ni[j], or -1.
func findMoves(ops []align.Edit, oi, ni []int, equal func(a, b int) bool) []int {
	moved := make([]int, len(ni))
	for j := range moved {
		moved[j] = -1
	}
	used := map[int]bool{}
	for _, ins := range ops {
		if ins.Op != align.Insert {
			continue
		}
		for _, del := range ops {
			if del.Op == align.Delete && !used[del.Old] && equal(oi[del.Old], ni[ins.New]) {
				used[del.Old], moved[ins.New] = true, del.Old
				break
			}
		}
	}
	return moved
}

func indexesOf(calls []call, agent string) []int {
	var out []int
	for i, c := range calls {
		if c.agent == agent {
			out = append(out, i)
		}
	}
	return out
}

// argsDiff lists the differing arguments of two calls of one tool, ignore
// paths left out and configured argument matchers applied (NEW's value is
// the actual one, OLD's the expected one).
func (opt *Options) argsDiff(a, b call) []matcher.Difference {
	if a.Name != b.Name {
		return nil
	}
	oa, na := opt.cleaned(a.Args), opt.cleaned(b.Args)
	if len(opt.ArgMatchers) > 0 {
		for _, k := range slices.Collect(maps.Keys(union(oa, na))) {
			ov, inO := oa[k]
			nv, inN := na[k]
			if configured, ok := opt.ArgMatchers.Configured(a.Name, k, nv, inN, ov, inO); configured && ok {
				delete(oa, k)
				delete(na, k)
			}
		}
	}
	return matcher.DiffJSON("", oa, na)
}

func (opt *Options) resultDiff(agent string, a, b call) []Change {
	// Recorded answers on both sides decide; otherwise ADK's refusal
	// result tells a refusal from an approval.
	reported := a.answer != nil && b.answer != nil
	if reported && a.answer.Confirmed != b.answer.Confirmed {
		return []Change{{Kind: ConfirmationChanged, Agent: agent, Tool: b.Name, Path: "confirmation", Old: a.answer.Decision(), New: b.answer.Decision()}}
	}
	var out []Change
	if reported {
		out = append(out, payloadChanges(agent, b.Name, a.answer.Payload, b.answer.Payload)...)
	}
	if !a.hasRes || !b.hasRes {
		return out
	}
	if ra, rb := adkapi.IsRefusal(a.Name, a.result), adkapi.IsRefusal(b.Name, b.result); !reported && ra != rb {
		return []Change{{Kind: ConfirmationChanged, Agent: agent, Tool: b.Name, Path: "confirmation", Old: answerOf(ra), New: answerOf(rb)}}
	}
	for _, diff := range matcher.DiffJSON("", opt.cleaned(a.result), opt.cleaned(b.result)) {
		out = append(out, changeOf(ResultChanged, agent, b.Name, diff))
	}
	return out
}

// cleaned is a copy of m (never nil) with exact numbers (so that 3 and 3.0
// are equal and 64.4 stays 64.4) and the ignore paths removed.
func (opt *Options) cleaned(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	b, _ := json.Marshal(m)
	v, _ := matcher.ParseJSON(b)
	out, _ := v.(map[string]any)
	for _, p := range opt.Ignore {
		p.Remove(out)
	}
	return out
}

func union(a, b map[string]any) map[string]any {
	out := maps.Clone(a)
	maps.Copy(out, b)
	return out
}

func changeOf(kind Kind, agent, tool string, d matcher.Difference) Change {
	return Change{Kind: kind, Agent: agent, Tool: tool, Path: d.Path, Old: d.Recorded, New: d.Got, Words: d.Words}
}

// position names the place of a call in its invocation, from 1.
func position(i int) string { return "call " + strconv.Itoa(i+1) }

// callText is a call as people read it: name(key=value, ...).
func callText(c call) string { return textfmt.Call(c.Name, c.Args, callValueWidth) }

// callValueWidth bounds one argument value in a change's text.
const callValueWidth = 60

// answerOf says how the user answered ADK's confirmation of a call, as
// its result shows: a call that ran where the other run's was refused was
// approved.
func answerOf(refused bool) string {
	if refused {
		return "refused"
	}
	return "approved"
}

// payloadChanges compares the payloads of two recorded answers: one that
// only one answer has is added or removed whole.
func payloadChanges(agent, tool string, old, new any) []Change {
	const path = "confirmation.payload"
	switch {
	case old == nil && new == nil:
		return nil
	case old == nil:
		return []Change{{Kind: ConfirmationChanged, Agent: agent, Tool: tool, Path: path, New: textfmt.JSON(new)}}
	case new == nil:
		return []Change{{Kind: ConfirmationChanged, Agent: agent, Tool: tool, Path: path, Old: textfmt.JSON(old)}}
	}
	var out []Change
	for _, d := range matcher.DiffJSON(path, old, new) {
		out = append(out, changeOf(ConfirmationChanged, agent, tool, d))
	}
	return out
}
