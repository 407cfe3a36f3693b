// Expectations: ADK eval sets (read by internal/data/evalset) or a golden
// run's sessions, as the eval cases scoring compares.

package scoring

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/evalset"
)

// Expected holds expectations: eval cases from ADK EvalSet files or a
// golden run's sessions.
type Expected struct {
	// EvalSetID is the eval set's eval_set_id; for a folder of several eval
	// sets with different ids, or a golden run, the folder's name.
	EvalSetID string
	Cases     []ExpectedCase
}

// ExpectedCase is one eval case (or one golden session).
type ExpectedCase struct {
	ID          string
	Invocations []Invocation
	// EvalSetID and File say where the case came from.
	EvalSetID string
	File      string
	// Scenario is the case's conversation_scenario (JSON) when it has one
	// instead of a conversation; Invocations are then nil. It was checked
	// as ADK's ConversationScenario when the eval set was read.
	Scenario json.RawMessage
	// Rubrics are the case's own rubrics (EvalCase.rubrics, as JSON),
	// which the rubric-based judged metrics apply to every invocation.
	Rubrics json.RawMessage
	// SessionInput is the case's session_input (the user and the initial
	// state of the session it runs in) as JSON, nil when it has none: ADK
	// then uses its defaults, adkproxy simulate its --session-input. It was
	// checked when the eval set was read, as Scenario was.
	SessionInput json.RawMessage
}

// LoadExpected reads expectations from path:
//
//   - an eval set file (*.evalset.json, *.test.json, or any JSON file named
//     explicitly): ADK's EvalSet in snake_case or camelCase; for *.test.json
//     also the formats older ADK releases read (AgentEvaluator falls back to
//     them when a file is not an EvalSet): a bare list of eval cases in the
//     pre-1.0 shape [{"name", "data": [{"query", "expected_tool_use":
//     [{"tool_name", "tool_input"}], "expected_intermediate_agent_responses",
//     "reference"}], "initial_session"}], a bare list of turns
//     [{"query", …}] (one case named after the file, without .test.json),
//     or a bare list of EvalCase objects;
//   - a folder holding such files (searched recursively, in path order);
//   - otherwise a folder of cassettes (or one cassette file): a golden run,
//     where each recorded session becomes a case whose ID is the cassette
//     name, or "name/<session id>" when the cassette holds several
//     sessions; the eval set id is the folder's (or file's) name.
//
// As in adk eval, "PATH:ID,ID…" keeps only the eval cases with those
// eval_ids (an unknown id is an error naming it).
func LoadExpected(path string) (*Expected, error) {
	path, ids := evalset.SplitCaseSelection(path)
	e, err := loadExpected(path)
	if err != nil || ids == nil {
		return e, err
	}
	all := make([]string, 0, len(e.Cases))
	for _, c := range e.Cases {
		all = append(all, c.ID)
	}
	wanted, err := evalset.Selection(path, all, ids)
	if err != nil {
		return nil, fmt.Errorf("expectations: %w", err)
	}
	kept := e.Cases[:0:0]
	for _, c := range e.Cases {
		if wanted[c.ID] {
			kept = append(kept, c)
		}
	}
	e.Cases = kept
	return e, nil
}

func loadExpected(path string) (*Expected, error) {
	if strings.HasSuffix(path, cassettes.Extension) {
		if info, err := os.Stat(path); err == nil && !info.IsDir() {
			c, err := cassettes.Load(path)
			if err != nil {
				return nil, err
			}
			name := c.Name
			if name == "" {
				name = cassettes.NameFromPath(filepath.Dir(path), path)
			}
			return goldenOf(map[string]*cassettes.Cassette{name: c}, strings.TrimSuffix(filepath.Base(path), cassettes.Extension))
		}
	}
	sets, err := evalset.Load(path)
	var fileErr *fs.PathError
	switch {
	case errors.Is(err, evalset.ErrNoEvalSets):
		return loadGolden(path)
	case errors.As(err, &fileErr): // a parse error names its file already
		return nil, fmt.Errorf("expectations: %w", err)
	case err != nil:
		return nil, err
	}
	out := &Expected{}
	ids := map[string]bool{}
	for _, set := range sets {
		ids[set.EvalSetID] = true
		out.EvalSetID = set.EvalSetID
		out.Cases = append(out.Cases, expectedCases(set)...)
	}
	if len(ids) > 1 {
		out.EvalSetID = filepath.Base(filepath.Clean(path))
	}
	return out, nil
}

func loadGolden(dir string) (*Expected, error) {
	cs, err := cassettes.LoadDir(dir)
	if err != nil {
		return nil, err
	}
	if len(cs) == 0 {
		return nil, fmt.Errorf("expectations: %s holds no eval set files (*.evalset.json, *.test.json) and no cassettes", dir)
	}
	return goldenOf(cs, filepath.Base(filepath.Clean(dir)))
}

func goldenOf(cs map[string]*cassettes.Cassette, evalSetID string) (*Expected, error) {
	sessions := SessionsOf(cs)
	ids := sessionIDs(sessions)
	out := &Expected{EvalSetID: evalSetID}
	for i, s := range sessions {
		file := ""
		if c := cs[s.Cassette]; c != nil {
			file = c.File
		}
		out.Cases = append(out.Cases, ExpectedCase{ID: ids[i], Invocations: s.Invocations, EvalSetID: out.EvalSetID, File: file})
	}
	return out, nil
}

// sessionIDs names sessions as cases: the cassette name, or
// "name/<session id>" when the cassette holds several sessions.
func sessionIDs(sessions []Session) []string {
	count := map[string]int{}
	for _, s := range sessions {
		count[s.Cassette]++
	}
	ids := make([]string, len(sessions))
	for i, s := range sessions {
		ids[i] = s.Cassette
		if count[s.Cassette] > 1 {
			ids[i] = s.Cassette + "/" + strconv.Itoa(s.ID)
		}
	}
	return ids
}

// expectedCases are the eval cases of set as scoring compares them.
func expectedCases(set *evalset.EvalSet) []ExpectedCase {
	out := make([]ExpectedCase, 0, len(set.EvalCases))
	for _, ec := range set.EvalCases {
		c := ExpectedCase{ID: ec.EvalID, EvalSetID: set.EvalSetID, File: set.File, Rubrics: ec.Rubrics,
			Scenario: evalset.RawJSON(ec.Scenario), SessionInput: evalset.RawJSON(ec.SessionInput)}
		if ec.Conversation != nil {
			c.Invocations = make([]Invocation, 0, len(ec.Conversation))
			for _, inv := range ec.Conversation {
				c.Invocations = append(c.Invocations, expectedInvocation(inv))
			}
		}
		out = append(out, c)
	}
	return out
}

// expectedInvocation reads an invocation as ADK's evaluation compares it:
// its contents' text, and in the invocation_events form the tool calls
// and results of every event, in order, and the text of each event that
// has some.
func expectedInvocation(inv evalset.Invocation) Invocation {
	out := Invocation{ID: inv.InvocationID, UserText: inv.UserContent.Text(), Rubrics: inv.Rubrics}
	if inv.FinalResponse != nil {
		out.FinalResponse = inv.FinalResponse.Text()
	}
	d := inv.IntermediateData
	if d.Events == nil {
		out.ToolCalls, out.ToolResults = d.ToolUses, d.ToolResponses
		for _, r := range d.IntermediateResponses {
			out.IntermediateResponses = append(out.IntermediateResponses, AuthoredText{Author: r.Author, Text: evalset.Content{Parts: r.Parts}.Text()})
		}
		return out
	}
	for _, e := range d.Events {
		for _, p := range e.Content.Parts {
			if p.FunctionCall != nil {
				out.ToolCalls = append(out.ToolCalls, *p.FunctionCall)
			}
			if p.FunctionResponse != nil {
				out.ToolResults = append(out.ToolResults, *p.FunctionResponse)
			}
		}
		if t := e.Content.Text(); t != "" {
			out.IntermediateResponses = append(out.IntermediateResponses, AuthoredText{Author: e.Author, Text: t})
		}
	}
	return out
}
