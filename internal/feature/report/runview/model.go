// The model of a run: what each cassette recorded, grouped for people.

package runview

import (
	"encoding/json"
	"io"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/textfmt"
	"github.com/adkproxy/adkproxy/internal/data/conversation"
	"github.com/adkproxy/adkproxy/internal/wire"
)

// Run is a folder of cassettes, sorted by name. Every JSON key is always
// present (lists as [], a missing usage as null) except an invocation's tag.
type Run struct {
	Cassettes []Cassette `json:"cassettes"`
}

// Cassette is one cassette's sessions and the requests that are not model
// calls.
type Cassette struct {
	Name string `json:"name"`
	// File is relative to the cassette folder, with "/" separators.
	File     string    `json:"file"`
	Sessions []Session `json:"sessions"`
	Other    []Other   `json:"other"`
}

// Session is one conversation, its invocations by id.
type Session struct {
	ID          int          `json:"id"`
	Invocations []Invocation `json:"invocations"`
}

// Invocation is one user turn and the steps taken about it.
type Invocation struct {
	ID   int    `json:"id"`
	User string `json:"user"`
	Tag  string `json:"tag,omitempty"`
	// Agents are the distinct agents of the steps, in order of appearance.
	Agents []string `json:"agents"`
	Steps  []Step   `json:"steps"`
	// Refused are the tool calls the user refused when ADK asked to
	// confirm them, read from the results ADK sent the model.
	Refused []Refusal `json:"refused"`
	// Confirmations are the user's answers to ADK's confirmation requests
	// as the client that answered reported them to the proxy (approvals
	// too, which the model wire does not show), filed on the calls.
	Confirmations []Confirmation `json:"confirmations"`
}

// Step is one model call, in file order within its invocation.
type Step struct {
	Step         int                    `json:"step"`
	Agent        string                 `json:"agent"`
	Status       int                    `json:"status"`
	ToolCalls    []cassettes.ToolCall   `json:"tool_calls"`
	ToolResults  []cassettes.ToolResult `json:"tool_results"`
	Text         string                 `json:"text"`
	FinishReason string                 `json:"finish_reason"`
	Usage        *Usage                 `json:"usage"`
	LatencyMs    float64                `json:"latency_ms"`
	// HTTPCalls are the requests the step's tools made to other hosts
	// (tool exchanges filed under this step), in file order.
	HTTPCalls []HTTPCall `json:"http_calls"`

	// Latency is how long the answer took, unrounded.
	Latency time.Duration `json:"-"`
	// Model is the model that answered (the response's modelVersion, or
	// the one named in the request path).
	Model string `json:"-"`
	// ErrorStatus is the status of a Gemini error body
	// ("RESOURCE_EXHAUSTED"), or "".
	ErrorStatus string `json:"-"`
	// Reset: the connection broke during the response.
	Reset bool `json:"-"`
	// Exchange is what the step was read from: its request holds what the
	// model was sent (generation config, system instruction, tools).
	Exchange *cassettes.Exchange `json:"-"`
}

// MarshalJSON writes a step's tool calls and results as the view shows
// them: without their ids (they differ every run), absent arguments and
// responses as {}.
func (s Step) MarshalJSON() ([]byte, error) {
	type call struct {
		Name string         `json:"name"`
		Args map[string]any `json:"args"`
	}
	type result struct {
		Name     string         `json:"name"`
		Response map[string]any `json:"response"`
	}
	type plain Step
	out := struct {
		plain
		ToolCalls   []call   `json:"tool_calls"`
		ToolResults []result `json:"tool_results"`
	}{plain: plain(s), ToolCalls: []call{}, ToolResults: []result{}}
	for _, c := range s.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, call{c.Name, nonNil(c.Args)})
	}
	for _, r := range s.ToolResults {
		out.ToolResults = append(out.ToolResults, result{r.Name, nonNil(r.Response)})
	}
	return textfmt.CompactJSON(out)
}

// WriteJSON writes the run as the indented JSON document of 'adkproxy ls
// --json', HTML characters unescaped.
func WriteJSON(w io.Writer, run Run) error {
	b, err := textfmt.IndentedJSON(run)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// Usage has the names the cassettes' trajectories use.
type Usage struct {
	Prompt     int32 `json:"prompt"`
	Candidates int32 `json:"candidates"`
	Total      int32 `json:"total"`
	Thoughts   int32 `json:"thoughts"`
	Cached     int32 `json:"cached"`
	ToolUse    int32 `json:"tool_use"`
}

// Other is a request that is not a model call (model lists, token counts).
type Other struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	Status int    `json:"status"`
}

// Build reads loaded cassettes (as cassettes.LoadDir returns them from
// dir) into a run, sorted by cassette name. Version 1 exchanges are placed
// as replay would place them, which fills in their Place.
func Build(dir string, loaded map[string]*cassettes.Cassette) Run {
	run := Run{Cassettes: []Cassette{}}
	for _, name := range slices.Sorted(maps.Keys(loaded)) {
		file, err := filepath.Rel(dir, loaded[name].File)
		if err != nil {
			file = loaded[name].File
		}
		run.Cassettes = append(run.Cassettes, CassetteOf(name, filepath.ToSlash(file), loaded[name]))
	}
	return run
}

// CassetteOf reads one cassette: sessions and invocations by id, steps in
// file order, the rest as other.
func CassetteOf(name, file string, c *cassettes.Cassette) Cassette {
	out := Cassette{Name: name, File: file, Sessions: []Session{}, Other: []Other{}}
	sessions, other := conversation.Group(c)
	for _, s := range sessions {
		vs := Session{ID: s.ID, Invocations: make([]Invocation, 0, len(s.Invocations))}
		for _, inv := range s.Invocations {
			vi := Invocation{ID: inv.ID, User: inv.User, Tag: inv.Tag, Agents: []string{}, Steps: make([]Step, 0, len(inv.Steps))}
			for _, x := range inv.Steps {
				if !slices.Contains(vi.Agents, x.Place.Agent) {
					vi.Agents = append(vi.Agents, x.Place.Agent)
				}
				vi.Steps = append(vi.Steps, stepOf(x))
			}
			fileHTTPCalls(vi.Steps, inv.HTTPCalls)
			vi.Refused = refusalsOf(&vi)
			vi.Confirmations = confirmationsOf(&vi)
			vs.Invocations = append(vs.Invocations, vi)
		}
		out.Sessions = append(out.Sessions, vs)
	}
	for _, x := range other {
		out.Other = append(out.Other, otherOf(x))
	}
	return out
}

func stepOf(x *cassettes.Exchange) Step {
	t := wire.StepOf(x)
	s := Step{
		Step: x.Place.Step, Agent: x.Place.Agent, Status: x.Response.Status,
		ToolCalls: []cassettes.ToolCall{}, ToolResults: []cassettes.ToolResult{}, HTTPCalls: []HTTPCall{},
		Text: t.Text, FinishReason: t.FinishReason,
		LatencyMs: math.Round(float64(t.Latency)/float64(time.Microsecond)) / 1000,
		Latency:   t.Latency,
		Model:     t.ModelVersion,
		Reset:     x.Response.End == cassettes.EndReset,
		Exchange:  x,
	}
	if s.Model == "" {
		s.Model = conversation.ModelOfPath(x.Request.Path)
	}
	s.ToolCalls = append(s.ToolCalls, t.ToolCalls...)
	s.ToolResults = append(s.ToolResults, t.ToolResults...)
	if u := t.Usage; u != nil {
		s.Usage = &Usage{Prompt: u.Prompt, Candidates: u.Candidates, Total: u.Total,
			Thoughts: u.Thoughts, Cached: u.Cached, ToolUse: u.ToolUse}
	}
	if x.Response.Status != 200 {
		s.ErrorStatus = errorStatus(&x.Response)
	}
	return s
}

// FinalStep is the index of the step that gave the final response: the
// last one that answered with text and no tool call, what the user was told
// (ADK's rule). It is -1 when no step did.
func (inv *Invocation) FinalStep() int {
	ts := make([]cassettes.Trajectory, len(inv.Steps))
	for i, s := range inv.Steps {
		ts[i] = cassettes.Trajectory{Text: s.Text, ToolCalls: s.ToolCalls}
	}
	return wire.FinalStep(ts)
}

// FinalResponse is the text of FinalStep, or "".
func (inv *Invocation) FinalResponse() string {
	if i := inv.FinalStep(); i >= 0 {
		return inv.Steps[i].Text
	}
	return ""
}

// Usage sums the usage of the steps; ok is false when no step reported
// any.
func (inv *Invocation) Usage() (sum Usage, ok bool) {
	for _, s := range inv.Steps {
		if u := s.Usage; u != nil {
			sum = Usage{sum.Prompt + u.Prompt, sum.Candidates + u.Candidates, sum.Total + u.Total,
				sum.Thoughts + u.Thoughts, sum.Cached + u.Cached, sum.ToolUse + u.ToolUse}
			ok = true
		}
	}
	return sum, ok
}

// Latency sums how long the steps' answers took.
func (inv *Invocation) Latency() time.Duration {
	var d time.Duration
	for _, s := range inv.Steps {
		d += s.Latency
	}
	return d
}

// errorStatus reads the status of a Gemini error body
// ({"error": {"status": "RESOURCE_EXHAUSTED", ...}}), or "".
func errorStatus(r *cassettes.Response) string {
	for _, payload := range wire.Payloads(r) {
		var body struct {
			Error struct {
				Status string `json:"status"`
			} `json:"error"`
		}
		if json.Unmarshal(payload, &body) == nil && body.Error.Status != "" {
			return body.Error.Status
		}
	}
	return ""
}

func nonNil(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}
