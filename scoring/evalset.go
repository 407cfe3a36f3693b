// Expectations: loading ADK EvalSet files (or a golden run's sessions) into
// eval cases, and parsing ADK's EvalCase and Invocation JSON.

package scoring

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/eval/scenarios"
	"github.com/adkproxy/adkproxy/internal/pyjson"
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
	path, ids := splitCaseSelection(path)
	e, err := loadExpected(path)
	if err != nil || ids == nil {
		return e, err
	}
	if err := e.selectCases(path, ids); err != nil {
		return nil, fmt.Errorf("expectations: %w", err)
	}
	return e, nil
}

func loadExpected(path string) (*Expected, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("expectations: %w", err)
	}
	if !info.IsDir() {
		if strings.HasSuffix(path, cassettes.Extension) {
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
		return loadEvalSetFile(path)
	}
	var files []string
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != path && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			return nil
		}
		if n := d.Name(); strings.HasSuffix(n, ".evalset.json") || strings.HasSuffix(n, ".test.json") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("expectations: %w", err)
	}
	if len(files) == 0 {
		return loadGolden(path)
	}
	sort.Strings(files)
	out := &Expected{}
	ids := map[string]bool{}
	for _, f := range files {
		e, err := loadEvalSetFile(f)
		if err != nil {
			return nil, err
		}
		ids[e.EvalSetID] = true
		out.EvalSetID = e.EvalSetID
		out.Cases = append(out.Cases, e.Cases...)
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

func loadEvalSetFile(path string) (*Expected, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("expectations: %w", err)
	}
	return ParseEvalSet(path, data)
}

// ParseEvalSet reads an eval set (see LoadExpected for the accepted
// shapes); name is used in errors, which give the JSON path:
// `home.evalset.json: eval_cases[1].conversation[0].user_content: missing`.
func ParseEvalSet(name string, data []byte) (*Expected, error) {
	root, err := pyjson.Decode(name, data)
	if err != nil {
		return nil, err
	}
	v := root.V
	if list, ok := v.([]any); ok {
		return parseLegacyList(root, list)
	}
	o, err := root.Object()
	if err != nil {
		return nil, root.Errorf("expected an EvalSet object (or, in older *.test.json files, a list), got %s", pyjson.Describe(v))
	}
	idn, ok := root.PyField(o, "eval_set_id")
	if !ok {
		return nil, idn.Errorf("missing: an EvalSet needs eval_set_id")
	}
	id, err := idn.Str()
	if err != nil {
		return nil, err
	}
	out := &Expected{EvalSetID: id}
	cn, ok := root.PyField(o, "eval_cases")
	if !ok {
		return nil, cn.Errorf("missing: an EvalSet needs eval_cases")
	}
	cases, err := cn.List()
	if err != nil {
		return nil, err
	}
	for i := range cases {
		ec, err := parseEvalCase(cn.Elem(cases, i))
		if err != nil {
			return nil, err
		}
		ec.EvalSetID, ec.File = id, name
		out.Cases = append(out.Cases, ec)
	}
	return out, nil
}

func parseEvalCase(n pyjson.Value) (ExpectedCase, error) {
	o, err := n.Object()
	if err != nil {
		return ExpectedCase{}, err
	}
	idn, ok := n.PyField(o, "eval_id")
	if !ok {
		return ExpectedCase{}, idn.Errorf("missing: an eval case needs eval_id")
	}
	id, err := idn.Str()
	if err != nil {
		return ExpectedCase{}, err
	}
	ec := ExpectedCase{ID: id}
	if rb, ok := n.PyField(o, "rubrics"); ok && rb.V != nil {
		if _, err := rb.List(); err != nil {
			return ec, err
		}
		ec.Rubrics, _ = json.Marshal(pyjson.Plain(rb.V))
	}
	if sn, ok := n.PyField(o, "session_input"); ok && sn.V != nil {
		raw, _ := json.Marshal(pyjson.Plain(sn.V))
		if _, err := scenarios.ParseSessionInputField(sn.File, sn.Path, raw); err != nil {
			return ec, err
		}
		ec.SessionInput = raw
	}
	conv, hasConv := n.PyField(o, "conversation")
	scen, hasScen := n.PyField(o, "conversation_scenario")
	hasConv = hasConv && conv.V != nil
	hasScen = hasScen && scen.V != nil
	switch {
	case hasConv && hasScen:
		return ec, n.Errorf("has both conversation and conversation_scenario; an eval case has exactly one")
	case hasScen:
		if _, err := scen.Object(); err != nil {
			return ec, err
		}
		ec.Scenario, _ = json.Marshal(pyjson.Plain(scen.V))
		if _, err := scenarios.ParseScenario(scen.File, scen.Path, ec.Scenario); err != nil {
			return ec, err
		}
		return ec, nil
	case !hasConv:
		return ec, n.Errorf("has neither conversation nor conversation_scenario")
	}
	list, err := conv.List()
	if err != nil {
		return ec, err
	}
	ec.Invocations = []Invocation{}
	for i := range list {
		inv, err := parseInvocation(conv.Elem(list, i))
		if err != nil {
			return ec, err
		}
		ec.Invocations = append(ec.Invocations, inv)
	}
	return ec, nil
}

// parseInvocation reads ADK's Invocation. intermediate_data comes in two
// forms, told apart by the invocation_events key: A (the documented one)
// {tool_uses, tool_responses, intermediate_responses: [[author, [parts]]]},
// and B (newer ADK) {invocation_events: [{author, content}]}, whose tool
// calls are every function_call part of every event, in order.
func parseInvocation(n pyjson.Value) (Invocation, error) {
	o, err := n.Object()
	if err != nil {
		return Invocation{}, err
	}
	var inv Invocation
	if idn, ok := n.PyField(o, "invocation_id"); ok {
		if inv.ID, err = idn.OptStr(); err != nil {
			return inv, err
		}
	}
	uc, ok := n.PyField(o, "user_content")
	if !ok || uc.V == nil {
		return inv, uc.Errorf("missing: an invocation needs user_content")
	}
	user, err := parseContent(uc)
	if err != nil {
		return inv, err
	}
	inv.UserText = user.text()
	if fr, ok := n.PyField(o, "final_response"); ok && fr.V != nil {
		c, err := parseContent(fr)
		if err != nil {
			return inv, err
		}
		inv.FinalResponse = c.text()
	}
	if rb, ok := n.PyField(o, "rubrics"); ok && rb.V != nil {
		if _, err := rb.List(); err != nil {
			return inv, err
		}
		inv.Rubrics, _ = json.Marshal(pyjson.Plain(rb.V))
	}
	idata, ok := n.PyField(o, "intermediate_data")
	if !ok || idata.V == nil {
		return inv, nil
	}
	ido, err := idata.Object()
	if err != nil {
		return inv, err
	}
	if ev, ok := idata.PyField(ido, "invocation_events"); ok {
		events, err := ev.List()
		if err != nil {
			return inv, err
		}
		for i := range events {
			en := ev.Elem(events, i)
			eo, err := en.Object()
			if err != nil {
				return inv, err
			}
			author := ""
			if an, ok := en.Field(eo, "author"); ok {
				if author, err = an.OptStr(); err != nil {
					return inv, err
				}
			}
			cn, ok := en.Field(eo, "content")
			if !ok || cn.V == nil {
				continue
			}
			c, err := parseContent(cn)
			if err != nil {
				return inv, err
			}
			inv.ToolCalls = append(inv.ToolCalls, c.calls...)
			inv.ToolResults = append(inv.ToolResults, c.results...)
			if t := c.text(); len(c.texts) > 0 {
				inv.IntermediateResponses = append(inv.IntermediateResponses, AuthoredText{Author: author, Text: t})
			}
		}
		return inv, nil
	}
	if tu, ok := idata.PyField(ido, "tool_uses"); ok && tu.V != nil {
		list, err := tu.List()
		if err != nil {
			return inv, err
		}
		for i := range list {
			c, err := parseFunctionCall(tu.Elem(list, i))
			if err != nil {
				return inv, err
			}
			inv.ToolCalls = append(inv.ToolCalls, c)
		}
	}
	if tr, ok := idata.PyField(ido, "tool_responses"); ok && tr.V != nil {
		list, err := tr.List()
		if err != nil {
			return inv, err
		}
		for i := range list {
			r, err := parseFunctionResponse(tr.Elem(list, i))
			if err != nil {
				return inv, err
			}
			inv.ToolResults = append(inv.ToolResults, r)
		}
	}
	if ir, ok := idata.PyField(ido, "intermediate_responses"); ok && ir.V != nil {
		list, err := ir.List()
		if err != nil {
			return inv, err
		}
		for i := range list {
			en := ir.Elem(list, i)
			pair, err := en.List()
			if err != nil || len(pair) != 2 {
				return inv, en.Errorf("expected [author, [parts…]], got %s", pyjson.Describe(en.V))
			}
			author, err := en.Elem(pair, 0).OptStr()
			if err != nil {
				return inv, err
			}
			c, err := parseParts(en.Elem(pair, 1))
			if err != nil {
				return inv, err
			}
			inv.IntermediateResponses = append(inv.IntermediateResponses, AuthoredText{Author: author, Text: c.text()})
		}
	}
	return inv, nil
}
