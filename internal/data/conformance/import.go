// Import: one corpus case as a cassette. Each llm_recording becomes a
// model call at its place (session 1, invocation user_message_index+1,
// agent agent_name) with a Gemini API request and response; each
// tool_recording is checked against what the wire shows of it.

package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/wire"
	"github.com/adkproxy/adkproxy/matcher"
)

// Import reads a case and converts its recordings into a cassette named
// after the case. Entries it cannot convert are left out and returned as
// problems, each naming file:line; err is for a case it cannot read at all.
func Import(c Case) (*cassettes.Cassette, []Problem, error) {
	spec, err := ReadSpec(filepath.Join(c.Dir, "spec.yaml"))
	if err != nil {
		return nil, nil, err
	}
	recs, err := ReadRecordings(filepath.Join(c.Dir, c.Recordings))
	if err != nil {
		return nil, nil, err
	}
	cas, problems := Convert(c.Name, spec, recs, c.SSE)
	return cas, problems, nil
}

// Convert builds the cassette of a spec and its recordings; sse says the
// model calls were streamed (streamGenerateContent, SSE events).
func Convert(name string, spec *Spec, recs *Recordings, sse bool) (*cassettes.Cassette, []Problem) {
	d := doc{file: recs.File}
	out := &cassettes.Cassette{Name: name, Trajectories: wire.StepOf}
	var problems []Problem
	// made[i] is the exchange of recs.Entries[i], for the tool checks.
	made := make([]*cassettes.Exchange, len(recs.Entries))
	steps := map[int]int{} // user_message_index -> the invocation's steps so far
	for i, r := range recs.Entries {
		if r.LLM == nil {
			continue
		}
		if r.UserMessageIndex >= len(spec.UserMessages) {
			problems = append(problems, Problem{recs.File, r.Line, fmt.Sprintf(
				"user_message_index %d: %s has %d user message(s)", r.UserMessageIndex, spec.File, len(spec.UserMessages))})
			continue
		}
		x, err := d.exchange(r, spec, sse)
		if err != nil {
			problems = append(problems, problemOf(recs.File, r.Line, err))
			continue
		}
		x.Place.Step = steps[r.UserMessageIndex]
		steps[r.UserMessageIndex]++
		made[i] = x
		out.Exchanges = append(out.Exchanges, x)
	}
	for i, r := range recs.Entries {
		if r.Tool != nil {
			if p := checkTool(recs, made, i); p != nil {
				problems = append(problems, *p)
			}
		}
	}
	return out, problems
}

// exchange converts one llm_recording.
func (d doc) exchange(r Recording, spec *Spec, sse bool) (*cassettes.Exchange, error) {
	model, body, err := d.wireRequest(r.LLM.Request, "llm_request")
	if err != nil {
		return nil, err
	}
	streamed := sse || r.LLM.List
	x := &cassettes.Exchange{
		Request: cassettes.Request{Method: http.MethodPost, Path: "/v1beta/models/" + model + ":generateContent",
			Header: http.Header{"Content-Type": {"application/json"}}, Body: body},
		Response: cassettes.Response{Status: http.StatusOK, Header: http.Header{"Content-Type": {"application/json; charset=UTF-8"}}},
	}
	if streamed {
		x.Request.Path = "/v1beta/models/" + model + ":streamGenerateContent"
		x.Request.Query = "alt=sse"
		x.Response.Header.Set("Content-Type", "text/event-stream")
		x.Response.Events = []cassettes.Event{}
	}
	for i, n := range r.LLM.Responses {
		b, err := d.wireResponse(n, fmt.Sprintf("llm_response[%d]", i))
		if err != nil {
			return nil, err
		}
		if !streamed {
			x.Response.Body = b
			break
		}
		x.Response.Events = append(x.Response.Events, cassettes.Event{Data: append(append([]byte("data: "), b...), "\r\n\r\n"...)})
	}
	x.Place = &cassettes.Place{Session: 1, Invocation: r.UserMessageIndex + 1,
		User: UserText(spec.UserMessages[r.UserMessageIndex]), Agent: r.AgentName}
	return x, nil
}

// UserText is a user turn's text as an invocation shows it: its text
// parts joined by line breaks, as the conversation organiser reads a user
// turn off the wire (so an imported cassette and one recorded live say the
// same).
func UserText(m UserMessage) string {
	if m.Text != "" {
		return m.Text
	}
	var parts []string
	for _, p := range m.Content.Parts {
		if p != nil && p.Text != "" {
			parts = append(parts, p.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// checkTool checks that the wire shows tool_recording i: its call among
// the function calls of the agent's latest model answer, and its result
// in a later model request (of this user message, or a later one for a
// long-running tool), as a function response of that agent or as another
// agent's "For context:" relay.
// The ids are ADK's own (adk-<uuid>): ADK strips them before sending, so
// they are not on the wire and are not kept.
func checkTool(recs *Recordings, made []*cassettes.Exchange, i int) *Problem {
	r := recs.Entries[i]
	t := r.Tool
	var answered *cassettes.Exchange
	for j := i - 1; j >= 0; j-- {
		e := recs.Entries[j]
		if e.LLM != nil && e.AgentName == r.AgentName && e.UserMessageIndex == r.UserMessageIndex {
			answered = made[j]
			break
		}
	}
	if answered == nil {
		return &Problem{recs.File, t.Call.Line, fmt.Sprintf("tool_call %s of agent %s: no earlier model call of %s in user message %d (converted) made it",
			t.Call.Name, r.AgentName, r.AgentName, r.UserMessageIndex)}
	}
	found := false
	for _, c := range wire.StepOf(answered).ToolCalls {
		if c.Name == t.Call.Name && jsonEqual(c.Args, t.Call.Args) {
			found = true
			break
		}
	}
	if !found {
		return &Problem{recs.File, t.Call.Line, fmt.Sprintf("tool_call %s%s of agent %s is not among the function calls of its latest model answer",
			t.Call.Name, compact(t.Call.Args), r.AgentName)}
	}
	name := t.Response.Name
	if name == "" {
		name = t.Call.Name
	}
	for j := i + 1; j < len(recs.Entries); j++ {
		e := recs.Entries[j]
		// A long-running tool's result reaches the model with a later user
		// message: any later call may carry it.
		if e.LLM == nil || made[j] == nil {
			continue
		}
		if e.AgentName == r.AgentName {
			for _, res := range wire.StepOf(made[j]).ToolResults {
				if res.Name == name && jsonEqual(res.Response, t.Response.Response) {
					return nil
				}
			}
		}
		if bytes.Contains(made[j].Request.Body, []byte("`"+name+"` tool returned result")) {
			return nil // relayed to another agent as context
		}
	}
	return &Problem{recs.File, t.Response.Line, fmt.Sprintf("tool_response of %s (agent %s, user message %d): no later model call carries it, so a cassette cannot hold it",
		name, r.AgentName, r.UserMessageIndex)}
}

// jsonEqual compares two values as JSON (numbers by value).
func jsonEqual(a, b any) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	if err1 != nil || err2 != nil {
		return false
	}
	va, ok1 := matcher.ParseJSON(ja)
	vb, ok2 := matcher.ParseJSON(jb)
	return ok1 && ok2 && bytes.Equal(matcher.AppendCanonical(nil, va), matcher.AppendCanonical(nil, vb))
}

func compact(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// Imported is what ImportCorpus did with one case.
type Imported struct {
	Case Case
	// File is the cassette written, "" when the case could not be read.
	File string
	// Calls counts the model calls in the cassette.
	Calls    int
	Problems []Problem
}

// ImportCorpus imports every case under root into cassettes under out,
// one per case at <category>/<case>.yaml (<case>-sse.yaml for a streamed
// run). A case with problems is still written with what converted; a
// case that cannot be read at all is a Problem without a file. err is for
// a corpus with no cases or a cassette that cannot be written.
func ImportCorpus(root, out string) ([]Imported, error) {
	cases, err := Cases(root)
	if err != nil {
		return nil, err
	}
	var done []Imported
	for _, c := range cases {
		im := Imported{Case: c}
		cas, problems, err := Import(c)
		if err != nil {
			im.Problems = []Problem{problemOf(filepath.Join(c.Dir, c.Recordings), 0, err)}
			done = append(done, im)
			continue
		}
		path, err := cassettes.PathFor(out, cas.Name)
		if err != nil {
			return done, err
		}
		if err := cassettes.Save(path, cas, nil); err != nil {
			return done, err
		}
		im.File, im.Calls, im.Problems = path, len(cas.Exchanges), problems
		done = append(done, im)
	}
	return done, nil
}
