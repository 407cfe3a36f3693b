// The import: read the export, redact, rebuild the model calls, write the
// cassette and the eval set.

package otlpimport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/adkproxy/adkproxy/internal/base/userfile"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/textfmt"
	"github.com/adkproxy/adkproxy/internal/data/conformance"
	"github.com/adkproxy/adkproxy/internal/feature/report/otlpexport"
	"github.com/adkproxy/adkproxy/internal/wire"
	"github.com/adkproxy/adkproxy/scoring"
)

// ErrInput marks an export that cannot be read or holds nothing to make
// a case from.
var ErrInput = errors.New("bad OTLP input")

// Options shape an import.
type Options struct {
	// Out is the folder the cassette and the eval set go to.
	Out string
	// Name names the cassette and the eval set; "" takes the input file's
	// name without its extensions.
	Name string
	// Patterns are the user's regular expressions of more values to replace.
	Patterns []string
	// KeepIDs writes session and invocation ids as read (personal data the
	// rules find in them still replaced); otherwise an id that does not
	// look machine-made becomes a placeholder.
	KeepIDs bool
}

// Result is what an import wrote and what it could not use.
type Result struct {
	// Cassette is "" when no model call could be rebuilt: the eval set is
	// then written alone.
	Cassette string `json:"cassette"`
	EvalSet  string `json:"eval_set"`
	// Sessions and Invocations count the eval set's, Calls the cassette's
	// model calls.
	Sessions     int           `json:"sessions"`
	Invocations  int           `json:"invocations"`
	Calls        int           `json:"model_calls"`
	SessionIDs   []SessionID   `json:"session_ids"`
	Replacements []Replacement `json:"replacements"`
	Missing      []Missing     `json:"missing"`
	evalSessions []scoring.Session
}

// SessionID is the id a session of the eval set had in the trace, as
// written: a placeholder unless it looks machine-made or KeepIDs is set.
type SessionID struct {
	Session int    `json:"session"`
	ID      string `json:"id"`
}

// Missing is what one span lacks, and what that costs the case.
type Missing struct {
	// Span is the file and the span ("f.json: resourceSpans[0].scopeSpans[0].spans[3] (call_llm)").
	Span string `json:"span"`
	// Fields are the attributes it lacks; none when its kind of span
	// carries no such attribute at all.
	Fields []string `json:"fields"`
	Effect string   `json:"effect"`
}

func (m Missing) String() string {
	if len(m.Fields) == 0 {
		return m.Span + ": " + m.Effect
	}
	return m.Span + ": no " + strings.Join(m.Fields, " and ") + "; " + m.Effect
}

// Import reads file and writes <Out>/<name>.yaml (when a model call could
// be rebuilt) and <Out>/<name>.evalset.json. Errors about the input wrap
// ErrInput and name the file and the field.
func Import(file string, opts Options) (*Result, error) {
	data, err := userfile.Read(file)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInput, err)
	}
	r, err := newRedactor(opts.Patterns)
	if err != nil {
		return nil, err
	}
	r.keepIDs = opts.KeepIDs
	name := opts.Name
	if name == "" {
		name = strings.SplitN(filepath.Base(file), ".", 2)[0]
	}
	cas, res, err := Convert(file, data, name, r)
	if err != nil {
		return nil, err
	}
	if err := write(cas, name, opts.Out, res); err != nil {
		return nil, err
	}
	return res, nil
}

// Convert builds the cassette and the eval set's sessions from an
// export's bytes; file names it in errors. Invocations are grouped into
// sessions by their session ids as read, before any id is replaced.
func Convert(file string, data []byte, name string, r *redactor) (*cassettes.Cassette, *Result, error) {
	req, err := readExport(file, data)
	if err != nil {
		return nil, nil, err
	}
	invs, found, err := invocations(req)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %s: %v", ErrInput, file, err)
	}
	if !found {
		return nil, nil, fmt.Errorf("%w: %s: no ADK span (invocation, invoke_agent, call_llm, execute_tool) in resourceSpans[].scopeSpans[].spans[]; export ADK's traces (the gcp.vertex.agent scope)", ErrInput, file)
	}
	if len(invs) == 0 {
		return nil, nil, fmt.Errorf("%w: %s: no call_llm or execute_tool span: ADK's spans hold no model call or tool run to make a case from", ErrInput, file)
	}
	cas := &cassettes.Cassette{Name: name, Trajectories: wire.StepOf}
	res := &Result{}
	sessions := map[string]int{}
	perSession := map[int]int{}
	var built []*builtInvocation
	for _, inv := range invs {
		if _, ok := sessions[inv.session]; !ok {
			sessions[inv.session] = len(sessions) + 1
			res.SessionIDs = append(res.SessionIDs, SessionID{Session: len(sessions),
				ID: r.id(inv.session, "session_id", file+": trace "+inv.trace+" "+attrSession, r.keepIDs)})
		}
		session := sessions[inv.session]
		perSession[session]++
		b, err := addInvocation(cas, res, file, inv, cassettes.Place{Session: session, Invocation: perSession[session]}, r)
		if err != nil {
			return nil, nil, err
		}
		built = append(built, b)
	}
	if err := evalSessions(res, cas, built, name); err != nil {
		return nil, nil, fmt.Errorf("%w: %s: %v", ErrInput, file, err)
	}
	res.Calls = len(cas.Exchanges)
	for i := range res.Missing {
		if res.Missing[i].Fields == nil {
			res.Missing[i].Fields = []string{} // "fields": [] in the report
		}
	}
	for _, rep := range r.order {
		res.Replacements = append(res.Replacements, *rep)
	}
	return cas, res, nil
}

// readExport reads one OTLP/JSON request, or several one after another
// (a collector's file exporter writes one a line), as one.
func readExport(file string, data []byte) (*coltracepb.ExportTraceServiceRequest, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	all := &coltracepb.ExportTraceServiceRequest{}
	for n := 1; ; n++ {
		where := file
		if n > 1 {
			rest := data[d.InputOffset():]
			at := len(data) - len(bytes.TrimLeft(rest, " \t\r\n"))
			where = fmt.Sprintf("%s: request %d (line %d)", file, n, 1+bytes.Count(data[:at], []byte("\n")))
		}
		var raw json.RawMessage
		err := d.Decode(&raw)
		if err == io.EOF && n > 1 {
			return all, nil
		}
		if err == io.EOF {
			return nil, fmt.Errorf("%w: %s: empty; want OTLP/JSON ({\"resourceSpans\": [...]})", ErrInput, file)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %s: OTLP/JSON: %v", ErrInput, where, err)
		}
		req, err := otlpexport.UnmarshalJSON(raw)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrInput, where, err)
		}
		all.ResourceSpans = append(all.ResourceSpans, req.ResourceSpans...)
	}
}

// builtInvocation is one trace read: its place, whether every model call
// is in the cassette, and what its spans say for the eval set.
type builtInvocation struct {
	place    cassettes.Place
	complete bool
	eval     scoring.Invocation
}

// addInvocation rebuilds one trace's model calls into cas (those whose
// spans carry both bodies) and reads what the eval set needs from every
// span: the user text, the tool calls and results, the final answer.
func addInvocation(cas *cassettes.Cassette, res *Result, file string, inv *invocation, place cassettes.Place, r *redactor) (*builtInvocation, error) {
	tag := r.id(inv.id, "invocation_id", file+": trace "+inv.trace+" "+attrInvoc, r.keepIDs)
	b := &builtInvocation{place: place, complete: len(inv.calls) > 0}
	ev := &b.eval
	// views are what each call's bodies say, one side or both.
	views := make([]*wire.Step, len(inv.calls))
	var missing []Missing
	step := 0
	for i, c := range inv.calls {
		where := file + ": " + c.where
		if c.gen {
			b.complete = false
			v, user := messagesView(r, c, where)
			views[i] = v
			if ev.UserText == "" {
				ev.UserText = user
			}
			var lacks []string
			for _, k := range []struct {
				key string
				v   []any
			}{{attrInputMsgs, c.input}, {attrOutputMsgs, c.output}} {
				if k.v == nil {
					lacks = append(lacks, k.key)
				}
			}
			missing = append(missing, Missing{Span: where, Fields: lacks, Effect: "a generate_content span without a call_llm " +
				"(ADK Go, ADK's newer conventions) carries no request body to rebuild, only the messages: this model call is not in the cassette"})
			continue
		}
		request, response, err := redactBodies(r, c, where)
		if err != nil {
			return nil, err
		}
		if request != nil || response != nil {
			v, user, err := view(where, c, request, response)
			if err != nil {
				return nil, err
			}
			views[i] = v
			if ev.UserText == "" {
				ev.UserText = user
			}
		}
		var lacks []string
		if request == nil {
			lacks = append(lacks, attrRequest)
		}
		if response == nil && c.failed == "" {
			lacks = append(lacks, attrResponse)
		}
		switch {
		case c.failed != "":
			b.complete = false
			missing = append(missing, Missing{Span: where, Fields: lacks, Effect: fmt.Sprintf("the model call failed (%s): no answer to replay, not in the cassette", c.failed)})
			continue
		case len(lacks) > 0:
			b.complete = false
			missing = append(missing, Missing{Span: where, Fields: lacks,
				Effect: "ADK writes them only when it captures message content; this model call is not in the cassette"})
			continue
		}
		x, err := conformance.ExchangeFromJSON(where, request, response)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInput, err)
		}
		if step == 0 {
			place.User = userText(x.Request.Body) // the turn that started the invocation
		}
		p := place
		p.Step, p.Agent, p.Tag = step, c.agent, tag
		x.Place = &p
		cas.Exchanges = append(cas.Exchanges, x)
		step++
	}
	switch {
	case len(inv.calls) == 0:
		missing = append(missing, Missing{Span: file + ": trace " + inv.trace,
			Effect: "no call_llm span: the eval case's invocation has no user text and no final response"})
	case ev.UserText == "":
		field := attrRequest
		if inv.calls[0].gen {
			field = attrInputMsgs
		}
		missing = append(missing, Missing{Span: file + ": " + inv.calls[0].where, Fields: []string{field},
			Effect: "no span of the trace carries the user's text: the eval case's invocation has none"})
	}
	readTools(ev, inv, views, file, r, &missing)
	readAnswers(ev, inv, views, file, &missing)
	if len(missing) > 0 {
		b.complete = false
	}
	for _, h := range inv.http {
		missing = append(missing, Missing{Span: file + ": " + h, Effect: "a tool's HTTP exchange, written by adkproxy's forward proxy: " +
			"the span carries its method, URL and status but no headers or bodies, so it is not in the cassette and a replay does not serve it"})
	}
	res.Missing = append(res.Missing, missing...)
	return b, nil
}

// redactBodies redacts a call's bodies and encodes them; nil for one the
// span does not carry.
func redactBodies(r *redactor, c modelCall, where string) (request, response []byte, err error) {
	if c.request != nil {
		if request, err = textfmt.CompactJSON(r.value(c.request, where+" "+attrRequest)); err != nil {
			return nil, nil, err
		}
	}
	if c.response != nil {
		if response, err = textfmt.CompactJSON(r.value(c.response, where+" "+attrResponse)); err != nil {
			return nil, nil, err
		}
	}
	return request, response, nil
}

// view reads what a call's bodies say when one of them may be missing,
// the missing side read as an empty one: the request gives the user text
// and the tool results sent, the response the tool calls and the text.
func view(where string, c modelCall, request, response []byte) (*wire.Step, string, error) {
	if request == nil {
		request, _ = textfmt.CompactJSON(map[string]any{"model": firstOf(c.model, "unknown"), "contents": []any{}})
	}
	if response == nil {
		response = []byte("{}")
	}
	x, err := conformance.ExchangeFromJSON(where, request, response)
	if err != nil {
		return nil, "", fmt.Errorf("%w: %v", ErrInput, err)
	}
	step := wire.StepOf(x)
	return &step, userText(x.Request.Body), nil
}

// messagesView reads a generate_content span's OpenTelemetry GenAI
// messages ([{role, parts: [{type: "text", content} | {type:
// "tool_call", id, name, arguments} | …]}]), redacted: the user text is
// the last user message's text of the input, the text and tool calls
// those of the output.
func messagesView(r *redactor, c modelCall, where string) (*wire.Step, string) {
	text := func(msg map[string]any) (string, []cassettes.ToolCall) {
		var texts []string
		var calls []cassettes.ToolCall
		parts, _ := msg["parts"].([]any)
		for _, p := range parts {
			part, _ := p.(map[string]any)
			switch part["type"] {
			case "text":
				if s, ok := part["content"].(string); ok && s != "" {
					texts = append(texts, s)
				}
			case "tool_call":
				name, _ := part["name"].(string)
				id, _ := part["id"].(string)
				args, _ := part["arguments"].(map[string]any)
				calls = append(calls, cassettes.ToolCall{ID: id, Name: name, Args: args})
			}
		}
		return strings.Join(texts, "\n"), calls
	}
	user := ""
	input, _ := r.value(c.input, where+" "+attrInputMsgs).([]any)
	for i := len(input) - 1; i >= 0; i-- {
		msg, _ := input[i].(map[string]any)
		if t, _ := text(msg); msg["role"] == "user" && t != "" {
			user = t
			break
		}
	}
	step := &wire.Step{}
	output, _ := r.value(c.output, where+" "+attrOutputMsgs).([]any)
	var texts []string
	for _, m := range output {
		msg, _ := m.(map[string]any)
		t, calls := text(msg)
		if t != "" {
			texts = append(texts, t)
		}
		step.ToolCalls = append(step.ToolCalls, calls...)
	}
	step.Text = strings.Join(texts, "\n")
	return step, user
}

// readTools fills the invocation's tool calls and results from its
// execute_tool spans, in the order they started. An argument or a result
// a span lacks is taken from the model call that asked for it or was sent
// it, by call id, when their bodies are there, and is otherwise listed as
// missing. A trace without execute_tool spans takes them from the bodies.
func readTools(ev *scoring.Invocation, inv *invocation, views []*wire.Step, file string, r *redactor, missing *[]Missing) {
	calls, results := map[string]cassettes.ToolCall{}, map[string]cassettes.ToolResult{}
	for i, v := range views {
		if v == nil {
			continue
		}
		if len(inv.tools) == 0 {
			ev.ToolCalls = append(ev.ToolCalls, v.ToolCalls...)
			if i > 0 {
				ev.ToolResults = append(ev.ToolResults, v.ToolResults...)
			}
		}
		for _, c := range v.ToolCalls {
			if c.ID != "" {
				calls[c.ID] = c
			}
		}
		for _, res := range v.ToolResults {
			if res.ID != "" {
				results[res.ID] = res
			}
		}
	}
	for i, t := range inv.tools {
		where := file + ": " + t.where
		call := cassettes.ToolCall{ID: t.id, Name: r.text(t.name, where+" "+attrToolName)}
		var lacks, effects []string
		switch {
		case t.args != nil:
			call.Args, _ = r.value(t.args, where+" "+t.argsKey).(map[string]any)
		case t.id != "" && calls[t.id].Name != "":
			call.Args = calls[t.id].Args
		default:
			lacks = append(lacks, attrToolArgs)
			effects = append(effects, fmt.Sprintf("tool_uses[%d] (%s) has no args", i, call.Name))
		}
		ev.ToolCalls = append(ev.ToolCalls, call)
		result := cassettes.ToolResult{ID: t.id, Name: call.Name}
		switch {
		case t.response != nil:
			result.Response, _ = r.value(t.response, where+" "+t.responseKey).(map[string]any)
			ev.ToolResults = append(ev.ToolResults, result)
		case t.id != "" && results[t.id].Name != "":
			ev.ToolResults = append(ev.ToolResults, results[t.id])
		case t.failed != "":
			effects = append(effects, fmt.Sprintf("the tool failed (%s): tool_responses has no result of %s", t.failed, call.Name))
		default:
			lacks = append(lacks, attrToolResp)
			effects = append(effects, fmt.Sprintf("tool_responses has no result of %s", call.Name))
		}
		if len(effects) > 0 {
			*missing = append(*missing, Missing{Span: where, Fields: lacks, Effect: "the eval case's " + strings.Join(effects, ", and its ")})
		}
	}
}

// readAnswers fills the final response (the last model call's text, when
// it asked for no tool) and the other texts, with their agents.
func readAnswers(ev *scoring.Invocation, inv *invocation, views []*wire.Step, file string, missing *[]Missing) {
	last := len(views) - 1
	for i, v := range views {
		if v == nil || v.Text == "" {
			continue
		}
		if i == last && len(v.ToolCalls) == 0 {
			ev.FinalResponse = v.Text
			continue
		}
		ev.IntermediateResponses = append(ev.IntermediateResponses, scoring.AuthoredText{Author: inv.calls[i].agent, Text: v.Text})
	}
	if last >= 0 && !inv.calls[last].answered() {
		field := attrResponse
		if inv.calls[last].gen {
			field = attrOutputMsgs
		}
		*missing = append(*missing, Missing{Span: file + ": " + inv.calls[last].where, Fields: []string{field},
			Effect: "it is the trace's last model call: the eval case's invocation has no final response"})
	}
}

// evalSessions makes the eval set's sessions: an invocation whose every
// span was read whole as the cassette records it (what score reads of a
// replay), any other as its spans say. Every invocation is kept, one with
// nothing in it too, so that the case has as many as the conversation
// had; it is an error when none has a user text, a tool call or an answer.
func evalSessions(res *Result, cas *cassettes.Cassette, built []*builtInvocation, name string) error {
	fromCassette := map[[2]int]scoring.Invocation{}
	for _, s := range scoring.SessionsOf(map[string]*cassettes.Cassette{name: cas}) {
		for _, inv := range s.Invocations {
			n, _ := strconv.Atoi(inv.ID[strings.LastIndex(inv.ID, "/")+1:])
			fromCassette[[2]int{s.ID, n}] = inv
		}
	}
	var out []scoring.Session
	something := false
	for _, b := range built {
		inv := b.eval
		inv.ID = fmt.Sprintf("%s/%d/%d", name, b.place.Session, b.place.Invocation)
		if c, ok := fromCassette[[2]int{b.place.Session, b.place.Invocation}]; ok && b.complete {
			inv = c
		}
		if inv.UserText != "" || len(inv.ToolCalls) > 0 || inv.FinalResponse != "" || len(inv.IntermediateResponses) > 0 {
			something = true
		}
		if len(out) == 0 || out[len(out)-1].ID != b.place.Session {
			out = append(out, scoring.Session{Cassette: name, ID: b.place.Session})
		}
		out[len(out)-1].Invocations = append(out[len(out)-1].Invocations, inv)
		res.Invocations++
	}
	if !something {
		var why []string
		for _, m := range res.Missing {
			why = append(why, m.String())
		}
		return fmt.Errorf("nothing to make a case from: no span carries a user text, a tool call or an answer (%s)", strings.Join(why, "; "))
	}
	res.Sessions, res.evalSessions = len(out), out
	return nil
}

// userText is the text of the last user turn in a request: what started
// the invocation.
func userText(body []byte) string {
	var req struct {
		Contents []struct {
			Role  string `json:"role"`
			Parts []struct {
				Text *string `json:"text"`
			} `json:"parts"`
		} `json:"contents"`
	}
	if json.Unmarshal(body, &req) != nil {
		return ""
	}
	for i := len(req.Contents) - 1; i >= 0; i-- {
		c := req.Contents[i]
		var texts []string
		for _, p := range c.Parts {
			if p.Text != nil && *p.Text != "" {
				texts = append(texts, *p.Text)
			}
		}
		if c.Role == "user" && len(texts) > 0 {
			return strings.Join(texts, "\n")
		}
	}
	return ""
}

// write saves the cassette (when it holds a model call) and the eval set.
func write(cas *cassettes.Cassette, name, out string, res *Result) error {
	path, err := cassettes.PathFor(out, name)
	if err != nil {
		return fmt.Errorf("%w: cassette name %q: %v", ErrInput, name, err)
	}
	var b bytes.Buffer
	if err := scoring.WriteEvalSet(&b, name, res.evalSessions); err != nil {
		return err
	}
	if len(cas.Exchanges) > 0 {
		if err := cassettes.Save(path, cas, nil); err != nil {
			return err
		}
		res.Cassette = path
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("%w: %s: %v", cassettes.ErrWrite, out, err)
	}
	evalPath := filepath.Join(out, name+".evalset.json")
	if err := cassettes.WriteFileAtomic(evalPath, b.Bytes()); err != nil {
		return fmt.Errorf("%w: %s: %v", cassettes.ErrWrite, evalPath, err)
	}
	res.EvalSet = evalPath
	return nil
}
