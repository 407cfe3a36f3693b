// The JSON Document of 'adkproxy ls --json': the run, every key always
// present (lists as [], a missing usage as null) except an invocation's tag.

package runview

import (
	"io"
	"math"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/textfmt"
	"github.com/adkproxy/adkproxy/internal/data/recorded"
	"github.com/adkproxy/adkproxy/internal/wire"
)

// WriteJSON writes the run as the indented JSON Document of 'adkproxy ls
// --json', HTML characters unescaped.
func WriteJSON(w io.Writer, run recorded.Run) error {
	b, err := textfmt.IndentedJSON(DocumentOf(run))
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// Document is the run as 'adkproxy ls --json' writes it (DocumentOf).
type Document struct {
	Cassettes []CassetteDoc `json:"cassettes"`
}

// CassetteDoc is a cassette in the document.
type CassetteDoc struct {
	Name       string         `json:"name"`
	File       string         `json:"file"`
	Provenance *ProvenanceDoc `json:"provenance"`
	Sessions   []SessionDoc   `json:"sessions"`
	Other      []Other        `json:"other"`
}

// SessionDoc is a session in the document.
type SessionDoc struct {
	ID          int             `json:"id"`
	Invocations []InvocationDoc `json:"invocations"`
}

// InvocationDoc is an invocation in the document.
type InvocationDoc struct {
	ID            int               `json:"id"`
	User          string            `json:"user"`
	Tag           string            `json:"tag,omitempty"`
	Agents        []string          `json:"agents"`
	Steps         []StepDoc         `json:"steps"`
	Refused       []RefusalDoc      `json:"refused"`
	Confirmations []ConfirmationDoc `json:"confirmations"`
}

// StepDoc is a step in the document; see MarshalJSON.
type StepDoc struct {
	Step         int                    `json:"step"`
	Agent        string                 `json:"agent"`
	Status       int                    `json:"status"`
	ToolCalls    []cassettes.ToolCall   `json:"tool_calls"`
	ToolResults  []cassettes.ToolResult `json:"tool_results"`
	Text         string                 `json:"text"`
	FinishReason string                 `json:"finish_reason"`
	Usage        *UsageDoc              `json:"usage"`
	LatencyMs    float64                `json:"latency_ms"`
	HTTPCalls    []HTTPCallDoc          `json:"http_calls"`
}

// UsageDoc is a step's usage in the document.
type UsageDoc struct {
	Prompt     int32 `json:"prompt"`
	Candidates int32 `json:"candidates"`
	Total      int32 `json:"total"`
	Thoughts   int32 `json:"thoughts"`
	Cached     int32 `json:"cached"`
	ToolUse    int32 `json:"tool_use"`
}

// HTTPCallDoc is a tool's request to another host in the document.
type HTTPCallDoc struct {
	Method string `json:"method"`
	Scheme string `json:"scheme"`
	Host   string `json:"host"`
	Path   string `json:"path"`
	Query  string `json:"query"`
	Status int    `json:"status"`
	// MCP is the call read as MCP, when it is one.
	MCP *wire.MCPCall `json:"mcp,omitempty"`
	// A2A is the call read as a call to a remote agent, when it is one.
	A2A *wire.A2ACall `json:"a2a,omitempty"`
}

// DocumentOf is the run's document.
func DocumentOf(run recorded.Run) Document {
	doc := Document{Cassettes: make([]CassetteDoc, 0, len(run.Cassettes))}
	for _, c := range run.Cassettes {
		cd := CassetteDoc{Name: c.Name, File: c.File, Provenance: provenanceDocOf(c.Provenance), Sessions: make([]SessionDoc, 0, len(c.Sessions)), Other: othersOf(c.Other)}
		for _, s := range c.Sessions {
			sd := SessionDoc{ID: s.ID, Invocations: make([]InvocationDoc, 0, len(s.Invocations))}
			for i := range s.Invocations {
				sd.Invocations = append(sd.Invocations, invocationDocOf(&s.Invocations[i]))
			}
			cd.Sessions = append(cd.Sessions, sd)
		}
		doc.Cassettes = append(doc.Cassettes, cd)
	}
	return doc
}

func invocationDocOf(inv *recorded.Invocation) InvocationDoc {
	d := InvocationDoc{ID: inv.ID, User: inv.User, Tag: inv.Tag, Agents: inv.Agents, Steps: make([]StepDoc, 0, len(inv.Steps)),
		Refused: make([]RefusalDoc, 0, len(inv.Refused)), Confirmations: make([]ConfirmationDoc, 0, len(inv.Confirmations))}
	if d.Agents == nil {
		d.Agents = []string{}
	}
	for i := range inv.Steps {
		s := &inv.Steps[i]
		sd := StepDoc{Step: s.Number, Agent: s.Agent, Status: s.Status, ToolCalls: s.ToolCalls, ToolResults: s.ToolResults,
			Text: s.Text, FinishReason: s.FinishReason, LatencyMs: latencyMs(s.Latency), HTTPCalls: make([]HTTPCallDoc, 0, len(s.HTTPCalls))}
		if u := s.Usage; u != nil {
			sd.Usage = &UsageDoc{u.Prompt, u.Candidates, u.Total, u.Thoughts, u.Cached, u.ToolUse}
		}
		for _, h := range s.HTTPCalls {
			sd.HTTPCalls = append(sd.HTTPCalls, HTTPCallDoc{h.Method, h.Scheme, h.Host, h.Path, h.Query, h.Status, h.MCP, h.A2A})
		}
		d.Steps = append(d.Steps, sd)
	}
	for _, r := range inv.Refused {
		d.Refused = append(d.Refused, RefusalDoc(r))
	}
	for _, c := range inv.Confirmations {
		d.Confirmations = append(d.Confirmations, ConfirmationDoc(c))
	}
	return d
}

// latencyMs is a latency in milliseconds to the microsecond.
func latencyMs(d time.Duration) float64 {
	return math.Round(float64(d)/float64(time.Microsecond)) / 1000
}

// MarshalJSON writes a step's tool calls and results as the view shows
// them: without their ids (they differ every run), absent arguments and
// responses as {}.
func (s StepDoc) MarshalJSON() ([]byte, error) {
	type call struct {
		Name string         `json:"name"`
		Args map[string]any `json:"args"`
	}
	type result struct {
		Name     string         `json:"name"`
		Response map[string]any `json:"response"`
	}
	type plain StepDoc
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

// RefusalDoc is a refused call in the document, written as ls shows
// calls: its name and arguments, without its id.
type RefusalDoc recorded.Refusal

// MarshalJSON writes the refusal as the document shows it.

func (r RefusalDoc) MarshalJSON() ([]byte, error) {
	return textfmt.CompactJSON(struct {
		Step int            `json:"step"`
		Call int            `json:"call"`
		Name string         `json:"name"`
		Args map[string]any `json:"args"`
	}{r.Step, r.Call, r.ToolCall.Name, nonNil(r.ToolCall.Args)})
}

// ConfirmationDoc is an answer in the document: the confirmed call as ls
// shows calls, then the answer.
type ConfirmationDoc recorded.Confirmation

// MarshalJSON writes the answer as the document shows it.

func (c ConfirmationDoc) MarshalJSON() ([]byte, error) {
	return textfmt.CompactJSON(struct {
		Step     int            `json:"step"`
		Call     int            `json:"call"`
		Name     string         `json:"name"`
		Args     map[string]any `json:"args"`
		Decision string         `json:"decision"`
		Payload  any            `json:"payload"`
		Shape    string         `json:"shape"`
		Hint     string         `json:"hint"`
	}{c.Step, c.Call, c.Answer.Tool, nonNil(c.Answer.Args), c.Answer.Decision(), c.Answer.Payload, c.Answer.Shape, c.Answer.Hint})
}

// Other is a request that is not a model call (model lists, token
// counts); a tool exchange's path names its scheme and host too.
// MCPStream is the MCP server whose HTTP+SSE stream the request opened
// (its answers are the results of the server's POSTs), else "".
type Other struct {
	Method    string `json:"method"`
	Path      string `json:"path"`
	Status    int    `json:"status"`
	MCPStream string `json:"mcp_stream,omitempty"`
}

func othersOf(xs []*cassettes.Exchange) []Other {
	out := make([]Other, 0, len(xs))
	for _, x := range xs {
		o := Other{Method: x.Request.Method, Path: x.Request.Path, Status: x.Response.Status}
		if x.IsTool() {
			o.Path = x.Request.Scheme + "://" + x.Request.Host + x.Request.Path
		}
		o.MCPStream, _ = wire.MCPStreamServer(x)
		out = append(out, o)
	}
	return out
}

func nonNil(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}
