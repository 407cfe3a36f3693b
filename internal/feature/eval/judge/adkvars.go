// The values of ADK's template variables, formatted as ADK formats them
// for its judges, so that a user's copy of ADK's prompt text (score
// --judge-prompts DIR, <kind>.txt) sends the judge what adk eval sends:
// the tool calls and responses, the tool declarations and developer
// instructions of the agents (from the recorded model requests), the
// rubric list, and the sentences.

package judge

import (
	"encoding/json"
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/adkversion"
	"github.com/adkproxy/adkproxy/internal/base/pyjson"
	"github.com/adkproxy/adkproxy/internal/base/textfmt"
	"github.com/adkproxy/adkproxy/internal/wire"
	"github.com/adkproxy/adkproxy/scoring"
)

// adkNoSteps and adkNoTools are ADK's texts for an invocation without
// tool calls and for missing app details.
const (
	adkNoSteps = "No intermediate steps were taken."
	adkNoTools = "Agent has no tools."
)

// adkRubricList is ADK's list of rubrics as the release v writes it: newer
// ADK one line per rubric, "*  [id: <id>] <text>", joined by line breaks;
// ADK 1.18 the texts alone joined by "\n*  " (the template's line gives
// the first its place, with no mark before it).
func adkRubricList(rubrics []rubric, v adkversion.Version) string {
	lines := make([]string, len(rubrics))
	for i, rb := range rubrics {
		lines[i] = rb.Text
		if v.RubricIDsInPrompts() {
			lines[i] = "*  [id: " + rb.ID + "] " + rb.Text
		}
	}
	if !v.RubricIDsInPrompts() {
		return strings.Join(lines, "\n*  ")
	}
	return strings.Join(lines, "\n")
}

// adkSentences are the segmenter's sentences as ADK hands them to the
// validator: each in <sentence> tags, one per line.
func adkSentences(sentences []string) string {
	lines := make([]string, len(sentences))
	for i, s := range sentences {
		lines[i] = "<sentence>" + s + "</sentence>"
	}
	return strings.Join(lines, "\n")
}

// adkCall is one tool call with its response (nil: none) as ADK pairs
// them, each as the object genai's FunctionCall / FunctionResponse dump.
type adkCall struct {
	call, response *pyjson.Object
}

// adkToolCalls pairs inv's tool calls with their responses as ADK does:
// every call in order, the response with the same id (the last one with
// it). A call without an id (ADK gives every call one, adk-<uuid>, and
// strips it from the model requests, so no recording holds it) pairs with
// the first unpaired response without one of its name, as ADK's ids pair
// the parallel calls of one step.
func adkToolCalls(inv *scoring.Invocation, v adkversion.Version) []adkCall {
	calls, _ := adkCalls(inv)
	byID := map[string]*pyjson.Object{}
	var noID []*pyjson.Object
	for _, r := range adkToolResults(inv, v) {
		id, _ := r.Val("id").(string)
		if id == "" {
			noID = append(noID, r)
			continue
		}
		byID[id] = r
	}
	paired := make([]bool, len(noID))
	out := make([]adkCall, len(calls))
	for i, c := range calls {
		out[i].call = c
		if id, _ := c.Val("id").(string); id != "" {
			out[i].response = byID[id]
			continue
		}
		for k, r := range noID {
			if !paired[k] && r.Val("name") == c.Val("name") {
				paired[k], out[i].response = true, r
				break
			}
		}
	}
	return out
}

// adkResult is one recorded tool response as genai's FunctionResponse dump
// gives it; a transfer_to_agent response no recording holds (scoring gives
// it {}) is ADK's for the release v (adkversion.TransferReturnsNull).
func adkResult(raw json.RawMessage, r cassettes.ToolResult, v adkversion.Version) *pyjson.Object {
	if len(raw) == 0 && r.Name == transferTool && len(r.Response) == 0 && v.TransferReturnsNull() {
		r.Response = map[string]any{"result": nil}
	}
	return genaiValue("FunctionResponse", raw, r)
}

// transferTool is ADK's tool for handing the conversation to another agent.
const transferTool = "transfer_to_agent"

// adkCalls are inv's tool calls as genai FunctionCall objects, in order,
// with the step each belongs to (-1 without recorded steps). A call
// recorded without an id (the Gemini API returns none; ADK gives it the id
// its response then carries) takes the id of the first unclaimed response
// of its name.
func adkCalls(inv *scoring.Invocation) ([]*pyjson.Object, []int) {
	var calls []*pyjson.Object
	var names []string
	var stepOf []int
	for s, st := range inv.Steps {
		for i, c := range st.ToolCalls {
			var raw json.RawMessage
			if i < len(st.CallsJSON) {
				raw = st.CallsJSON[i]
			}
			calls = append(calls, genaiValue("FunctionCall", raw, c))
			names = append(names, c.Name)
			stepOf = append(stepOf, s)
		}
	}
	if len(inv.Steps) == 0 {
		for _, c := range inv.ToolCalls {
			calls = append(calls, genaiValue("FunctionCall", nil, c))
			names = append(names, c.Name)
			stepOf = append(stepOf, -1)
		}
	}
	claimed := map[string]bool{}
	for _, c := range calls {
		if id, _ := c.Val("id").(string); id != "" {
			claimed[id] = true
		}
	}
	for i, c := range calls {
		if id, _ := c.Val("id").(string); id != "" {
			continue
		}
		for _, r := range inv.ToolResults {
			if r.ID != "" && r.Name == names[i] && !claimed[r.ID] {
				claimed[r.ID] = true
				calls[i] = withFirst(c, "id", r.ID)
				break
			}
		}
	}
	return calls, stepOf
}

// adkToolResults are inv's tool responses as genai FunctionResponse
// objects, with the recorded key order where the step kept it.
func adkToolResults(inv *scoring.Invocation, v adkversion.Version) []*pyjson.Object {
	type recorded struct {
		r    cassettes.ToolResult
		raw  json.RawMessage
		used bool
	}
	var pool []*recorded
	for _, st := range inv.Steps {
		for i, r := range st.ToolResults {
			var raw json.RawMessage
			if i < len(st.ResultsJSON) {
				raw = st.ResultsJSON[i]
			}
			pool = append(pool, &recorded{r: r, raw: raw})
		}
	}
	out := make([]*pyjson.Object, len(inv.ToolResults))
	for i, r := range inv.ToolResults {
		var raw json.RawMessage
		for _, p := range pool {
			if !p.used && p.r.ID == r.ID && p.r.Name == r.Name {
				p.used, raw = true, p.raw
				break
			}
		}
		out[i] = adkResult(raw, r, v)
	}
	return out
}

// withFirst is o with key set to v in first place.
func withFirst(o *pyjson.Object, key string, v any) *pyjson.Object {
	out := pyjson.NewObject()
	out.Set(key, v)
	for _, k := range o.Keys() {
		if k != key {
			out.Set(k, o.Val(k))
		}
	}
	return out
}

// adkToolSteps is ADK's rendering of an invocation's tool calls and
// responses for the rubric judges ({response_steps}, {tool_usage}): a
// pydantic JSON dump, two-space indented, of {"tool_calls_and_response":
// [{"step": n from 0, "tool_call": FunctionCall, "tool_response":
// FunctionResponse or the string "None"}]}, unset fields left out; without
// any call, "No intermediate steps were taken.".
func adkToolSteps(inv *scoring.Invocation, v adkversion.Version) string {
	pairs := adkToolCalls(inv, v)
	if len(pairs) == 0 {
		return adkNoSteps
	}
	list := make([]any, len(pairs))
	for i, p := range pairs {
		o := pyjson.NewObject()
		o.Set("step", i)
		o.Set("tool_call", p.call)
		if p.response != nil {
			o.Set("tool_response", p.response)
		} else {
			o.Set("tool_response", "None")
		}
		list[i] = o
	}
	top := pyjson.NewObject()
	top.Set("tool_calls_and_response", list)
	return pyjson.Indent(top, false)
}

// adkEvent is one event of an invocation as ADK's hallucination judge
// reads it: its text, function calls and function responses.
type adkEvent struct {
	text           string
	calls, results []any
}

// adkStepEvents are the events of step s of inv (calls as adkCalls gives
// them): its function responses, then its answer (text and calls) unless
// it is the final response, then the response of each transfer_to_agent
// call of it that the next step's request does not hold (ADK relays a
// handoff to the agent taking over as text, while its events hold the
// function response; adkResult gives its value).
func adkStepEvents(inv *scoring.Invocation, s int, calls []*pyjson.Object, stepOf []int, final int, v adkversion.Version) []adkEvent {
	st := &inv.Steps[s]
	var out []adkEvent
	if len(st.ToolResults) > 0 {
		e := adkEvent{}
		for i, r := range st.ToolResults {
			var raw json.RawMessage
			if i < len(st.ResultsJSON) {
				raw = st.ResultsJSON[i]
			}
			e.results = append(e.results, adkResult(raw, r, v))
		}
		out = append(out, e)
	}
	e := adkEvent{}
	if s != final {
		e.text = st.Text
	}
	for i, c := range calls {
		if stepOf[i] == s {
			e.calls = append(e.calls, c)
		}
	}
	if e.text != "" || len(e.calls) > 0 {
		out = append(out, e)
	}
	relayed := adkEvent{}
	for _, c := range st.ToolCalls {
		if c.Name != transferTool {
			continue
		}
		answered := false
		if s+1 < len(inv.Steps) {
			for _, r := range inv.Steps[s+1].ToolResults {
				answered = answered || r.Name == transferTool && r.ID == c.ID
			}
		}
		if !answered {
			relayed.results = append(relayed.results, adkResult(nil, cassettes.ToolResult{ID: c.ID, Name: transferTool, Response: map[string]any{}}, v))
		}
	}
	if len(relayed.results) > 0 {
		out = append(out, relayed)
	}
	return out
}

// adkHallucinationContext is ADK's {context} of the sentence validator:
// "Developer instructions:" (each agent's "<name>:\n<instructions>",
// blank-line separated), "User prompt:", "Tool definitions:" (as
// {tool_declarations}), then per earlier event its text, "tool_calls:" and
// "tool_outputs:" with Python's json.dumps(indent=2) of the genai dumps
// (non-ASCII escaped); the pieces joined by line breaks.
func adkHallucinationContext(inv *scoring.Invocation, events []adkEvent) string {
	dev, tools := "", adkNoTools
	if len(inv.Steps) > 0 {
		var ins []string
		for _, a := range adkAppDetails(inv) {
			if a.instructions != "" {
				ins = append(ins, a.name+":\n"+a.instructions)
			}
		}
		dev, tools = strings.Join(ins, "\n\n"), adkToolDeclarations(inv)
	}
	parts := []string{"Developer instructions:\n" + dev + "\n", "User prompt:\n" + inv.UserText + "\n", "Tool definitions:", tools + "\n"}
	for _, e := range events {
		if e.text != "" {
			parts = append(parts, e.text+"\n")
		}
		if len(e.calls) > 0 {
			parts = append(parts, "tool_calls:", pyjson.Indent(e.calls, true)+"\n")
		}
		if len(e.results) > 0 {
			parts = append(parts, "tool_outputs:", pyjson.Indent(e.results, true)+"\n")
		}
	}
	return strings.Join(parts, "\n")
}

// adkAgent is what ADK's app details hold of one agent.
type adkAgent struct {
	name, instructions string
	tools              []any
}

// adkAppDetails are the agents of inv in the order they first made a model
// call, each with the instructions and tools of that first request.
func adkAppDetails(inv *scoring.Invocation) []adkAgent {
	var out []adkAgent
	seen := map[string]bool{}
	for _, st := range inv.Steps {
		if seen[st.Agent] {
			continue
		}
		seen[st.Agent] = true
		a := adkAgent{name: st.Agent, instructions: st.Instructions, tools: []any{}}
		if len(st.Tools) > 0 {
			if v, err := pyjson.Decode("tools", st.Tools); err == nil {
				if list, ok := v.V.([]any); ok {
					for _, t := range list {
						a.tools = append(a.tools, genaiModel("Tool", t))
					}
				}
			}
		}
		out = append(out, a)
	}
	return out
}

// adkToolDeclarations is ADK's {tool_declarations}: a pydantic JSON dump,
// two-space indented, of {"tool_declarations": {<agent>: [Tool, …]}},
// each Tool as genai dumps it (snake_case names in genai's field order).
func adkToolDeclarations(inv *scoring.Invocation) string {
	if len(inv.Steps) == 0 {
		return adkNoTools // no recorded model request: no app details
	}
	byAgent := pyjson.NewObject()
	for _, a := range adkAppDetails(inv) {
		byAgent.Set(a.name, a.tools)
	}
	top := pyjson.NewObject()
	top.Set("tool_declarations", byAgent)
	return pyjson.Indent(top, false)
}

// adkDeveloperInstructions is ADK's {developer_instructions} of the final
// response judge: the instructions of the agent that wrote the
// invocation's first event other than the final response; "" when the
// final response is all there is.
func adkDeveloperInstructions(inv *scoring.Invocation) string {
	final := finalStep(inv)
	for i, st := range inv.Steps {
		if len(st.ToolCalls) > 0 || len(st.ToolResults) > 0 || (i != final && st.Text != "") {
			for _, a := range adkAppDetails(inv) {
				if a.name == st.Agent {
					return a.instructions
				}
			}
		}
	}
	return ""
}

// finalStep is the index of the step that gave the final response, by
// the one rule of it (wire.FinalStep), -1 without one.
func finalStep(inv *scoring.Invocation) int {
	steps := make([]wire.Step, len(inv.Steps))
	for i, st := range inv.Steps {
		steps[i] = wire.Step{Text: st.Text, ToolCalls: st.ToolCalls}
	}
	return wire.FinalStep(steps)
}

// genaiFields are, per genai model ADK dumps, its fields in genai's order
// and the model of those that hold one ("[]X" a list of X, "{}X" a map to
// X, "" a value whose keys are data, kept as they are).
var genaiFields = map[string][][2]string{
	"FunctionCall": {{"id", ""}, {"args", ""}, {"name", ""}, {"partial_args", "[]*"}, {"will_continue", ""}},
	"FunctionResponse": {{"will_continue", ""}, {"scheduling", ""}, {"parts", "[]*"}, {"id", ""},
		{"name", ""}, {"response", ""}},
	"Tool": {{"retrieval", "*"}, {"computer_use", "*"}, {"file_search", "*"}, {"google_search", "*"},
		{"google_maps", "*"}, {"code_execution", "*"}, {"enterprise_web_search", "*"},
		{"function_declarations", "[]FunctionDeclaration"}, {"google_search_retrieval", "*"},
		{"parallel_ai_search", "*"}, {"url_context", "*"}, {"mcp_servers", "[]*"}, {"exa_ai_search", "*"}},
	"FunctionDeclaration": {{"description", ""}, {"name", ""}, {"parameters", "Schema"},
		{"parameters_json_schema", ""}, {"response", "Schema"}, {"response_json_schema", ""}, {"behavior", ""}},
	"Schema": {{"additional_properties", ""}, {"defs", "{}Schema"}, {"ref", ""}, {"any_of", "[]Schema"},
		{"default", ""}, {"description", ""}, {"enum", ""}, {"example", ""}, {"format", ""},
		{"items", "Schema"}, {"max_items", "int"}, {"max_length", "int"}, {"max_properties", "int"},
		{"maximum", ""}, {"min_items", "int"}, {"min_length", "int"}, {"min_properties", "int"},
		{"minimum", ""}, {"nullable", ""}, {"pattern", ""}, {"properties", "{}Schema"},
		{"property_ordering", ""}, {"required", ""}, {"title", ""}, {"type", ""}},
}

// genaiModel turns a decoded wire object (camelCase names) into the object
// genai's pydantic dump of model gives: snake_case field names in the
// model's field order (fields genai does not list after them, in wire
// order), nulls left out. "*" is a model adkproxy does not list: only its
// names are re-spelled, at every depth.
func genaiModel(model string, v any) any {
	o, ok := v.(*pyjson.Object)
	if !ok {
		if list, ok := v.([]any); ok && model == "*" {
			out := make([]any, len(list))
			for i, e := range list {
				out[i] = genaiModel(model, e)
			}
			return out
		}
		return v
	}
	byName := map[string]any{}
	var order []string
	for _, k := range o.Keys() {
		if val := o.Val(k); val != nil {
			name := textfmt.Snake(strings.TrimPrefix(k, "$"))
			byName[name] = val
			order = append(order, name)
		}
	}
	out := pyjson.NewObject()
	fields := genaiFields[model]
	known := map[string]bool{}
	for _, f := range fields {
		known[f[0]] = true
		if val, ok := byName[f[0]]; ok {
			out.Set(f[0], genaiField(f[1], val))
		}
	}
	for _, name := range order {
		if !known[name] {
			kind := ""
			if model == "*" {
				kind = "*"
			}
			out.Set(name, genaiField(kind, byName[name]))
		}
	}
	return out
}

func genaiField(kind string, v any) any {
	switch {
	case kind == "":
		return v
	case kind == "int":
		// int64 fields travel as strings in protobuf's JSON; genai holds ints.
		if s, ok := v.(string); ok {
			if _, err := json.Number(s).Int64(); err == nil {
				return json.Number(s)
			}
		}
		return v
	case strings.HasPrefix(kind, "[]"):
		list, ok := v.([]any)
		if !ok {
			return v
		}
		out := make([]any, len(list))
		for i, e := range list {
			out[i] = genaiModel(kind[2:], e)
		}
		return out
	case strings.HasPrefix(kind, "{}"):
		o, ok := v.(*pyjson.Object)
		if !ok {
			return v
		}
		out := pyjson.NewObject()
		for _, k := range o.Keys() {
			out.Set(k, genaiModel(kind[2:], o.Val(k)))
		}
		return out
	}
	return genaiModel(kind, v)
}

// genaiValue is a recorded function call or response as genai's dump of
// model gives it: from its wire JSON when there, else from what was read
// (object keys then sorted).
func genaiValue(model string, raw json.RawMessage, read any) *pyjson.Object {
	if len(raw) > 0 {
		if v, err := pyjson.Decode(model, raw); err == nil {
			if o, ok := genaiModel(model, v.V).(*pyjson.Object); ok {
				return o
			}
		}
	}
	data, _ := json.Marshal(read)
	v, err := pyjson.Decode(model, data)
	if err != nil {
		return pyjson.NewObject()
	}
	o, _ := genaiModel(model, v.V).(*pyjson.Object)
	if o == nil {
		return pyjson.NewObject()
	}
	return o
}
