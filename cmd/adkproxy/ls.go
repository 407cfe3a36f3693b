package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/matcher"
	"github.com/adkproxy/adkproxy/scoring"
	"github.com/urfave/cli/v2"
)

// Widths (in runes) beyond which the table cuts a value with "…". The JSON
// output is never cut.
const (
	lsUserWidth   = 50 // the user text of an invocation
	lsTextWidth   = 60 // a step's answer text
	lsValueWidth  = 30 // one argument value of a tool call
	lsCallWidth   = 60 // one tool call, name(args)
	lsListWidth   = 60 // a list: an invocation's tool calls, a step's tool results
	lsAgentsWidth = 40 // an invocation's agents
)

const lsExitStatusHelp = `EXIT STATUS:
   0    success
   64   usage error (unknown flag, missing --cassettes)
   65   a cassette is unreadable, corrupt or of an unknown version, or the folder is missing`

func lsCommand() *cli.Command {
	return &cli.Command{
		Name:  "ls",
		Usage: "list the sessions, invocations, agents, steps and tool calls in cassettes",
		Description: "Reads every cassette in the folder (version 1 files are organised into sessions and\n" +
			"invocations as replay would) and prints one block per cassette: each invocation with its user\n" +
			"text, agents, step count, tool calls and tokens, and each step with its agent, the tool results\n" +
			"it received, the tool calls and text it answered with, and its finish reason and HTTP status\n" +
			"when they are unusual. Requests that are not model calls are listed under 'other'. Long values\n" +
			"are cut with …; --json prints everything, uncut.\n\n" + lsExitStatusHelp,
		Flags: []cli.Flag{
			stringFlag("cassettes", "", "`DIR` holding the cassettes (required)"),
			boolFlag("json", "print a JSON document instead of the table"),
		},
		Action:       runLs,
		OnUsageError: commandUsageError,
	}
}

func runLs(c *cli.Context) error {
	dir, err := cassettesDir(c, "give the folder with --cassettes DIR")
	if err != nil {
		return err
	}
	loaded, err := cassettes.LoadDir(dir)
	if err != nil {
		return withCode(exitDataErr, err) // every failure here is an unreadable cassette or folder
	}
	names := make([]string, 0, len(loaded))
	for name := range loaded {
		names = append(names, name)
	}
	sort.Strings(names)
	doc := lsDoc{Cassettes: []lsCassette{}}
	for _, name := range names {
		file, err := filepath.Rel(dir, loaded[name].File)
		if err != nil {
			file = loaded[name].File
		}
		file = filepath.ToSlash(file)
		doc.Cassettes = append(doc.Cassettes, lsListCassette(name, file, loaded[name]))
	}
	var out bytes.Buffer
	if c.Bool("json") {
		enc := json.NewEncoder(&out)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(doc); err != nil {
			return err
		}
	} else {
		lsWriteTable(&out, dir, doc)
	}
	_, err = c.App.Writer.Write(out.Bytes())
	return err
}

// The JSON document of 'adkproxy ls --json'. Every key is always present
// (lists as [], a missing usage as null) except an invocation's tag.
type lsDoc struct {
	Cassettes []lsCassette `json:"cassettes"`
}

type lsCassette struct {
	Name string `json:"name"`
	// File is relative to the cassette folder, with "/" separators.
	File     string      `json:"file"`
	Sessions []lsSession `json:"sessions"`
	Other    []lsOther   `json:"other"`
}

type lsSession struct {
	ID          int            `json:"id"`
	Invocations []lsInvocation `json:"invocations"`
}

type lsInvocation struct {
	ID   int    `json:"id"`
	User string `json:"user"`
	Tag  string `json:"tag,omitempty"`
	// Agents are the distinct agents of the steps, in order of appearance.
	Agents []string `json:"agents"`
	Steps  []lsStep `json:"steps"`
}

type lsStep struct {
	Step         int            `json:"step"`
	Agent        string         `json:"agent"`
	Status       int            `json:"status"`
	ToolCalls    []lsToolCall   `json:"tool_calls"`
	ToolResults  []lsToolResult `json:"tool_results"`
	Text         string         `json:"text"`
	FinishReason string         `json:"finish_reason"`
	Usage        *lsUsage       `json:"usage"`
	LatencyMs    float64        `json:"latency_ms"`

	errorStatus string // the status of a Gemini error body ("RESOURCE_EXHAUSTED"), for the table
	reset       bool   // the connection broke during the response
}

type lsToolCall struct {
	Name string         `json:"name"`
	Args map[string]any `json:"args"`
}

type lsToolResult struct {
	Name     string         `json:"name"`
	Response map[string]any `json:"response"`
}

// lsUsage has the names the cassettes' trajectories use.
type lsUsage struct {
	Prompt     int32 `json:"prompt"`
	Candidates int32 `json:"candidates"`
	Total      int32 `json:"total"`
	Thoughts   int32 `json:"thoughts"`
	Cached     int32 `json:"cached"`
	ToolUse    int32 `json:"tool_use"`
}

type lsOther struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	Status int    `json:"status"`
}

// lsListCassette organises a cassette's exchanges the way replay sees them:
// sessions and invocations by id, steps in file order, the rest as other.
func lsListCassette(name, file string, c *cassettes.Cassette) lsCassette {
	matcher.Default().Organise(c.Exchanges) // places version 1 exchanges; placed ones stay
	out := lsCassette{Name: name, File: file, Sessions: []lsSession{}, Other: []lsOther{}}
	type invKey struct{ session, invocation int }
	invocations := map[invKey]*lsInvocation{}
	bySession := map[int][]*lsInvocation{}
	var sessionIDs []int
	for _, x := range c.Exchanges {
		p := x.Place
		if p == nil {
			out.Other = append(out.Other, lsOther{Method: x.Request.Method, Path: x.Request.Path, Status: x.Response.Status})
			continue
		}
		if _, seen := bySession[p.Session]; !seen {
			bySession[p.Session] = nil
			sessionIDs = append(sessionIDs, p.Session)
		}
		k := invKey{p.Session, p.Invocation}
		inv := invocations[k]
		if inv == nil {
			inv = &lsInvocation{ID: p.Invocation, User: p.User, Tag: p.Tag, Agents: []string{}, Steps: []lsStep{}}
			invocations[k] = inv
			bySession[p.Session] = append(bySession[p.Session], inv)
		}
		if !lsContains(inv.Agents, p.Agent) {
			inv.Agents = append(inv.Agents, p.Agent)
		}
		inv.Steps = append(inv.Steps, lsListStep(p, x))
	}
	sort.Ints(sessionIDs)
	for _, id := range sessionIDs {
		invs := bySession[id]
		sort.SliceStable(invs, func(a, b int) bool { return invs[a].ID < invs[b].ID })
		s := lsSession{ID: id, Invocations: make([]lsInvocation, 0, len(invs))}
		for _, inv := range invs {
			s.Invocations = append(s.Invocations, *inv)
		}
		out.Sessions = append(out.Sessions, s)
	}
	return out
}

func lsListStep(p *cassettes.Place, x *cassettes.Exchange) lsStep {
	t := cassettes.TrajectoryOf(x)
	s := lsStep{
		Step: p.Step, Agent: p.Agent, Status: x.Response.Status,
		ToolCalls: []lsToolCall{}, ToolResults: []lsToolResult{},
		Text: t.Text, FinishReason: t.FinishReason,
		LatencyMs: math.Round(float64(t.Latency)/float64(time.Microsecond)) / 1000,
		reset:     x.Response.End == cassettes.EndReset,
	}
	for _, tc := range t.ToolCalls {
		s.ToolCalls = append(s.ToolCalls, lsToolCall{Name: tc.Name, Args: lsNonNil(tc.Args)})
	}
	for _, tr := range t.ToolResults {
		s.ToolResults = append(s.ToolResults, lsToolResult{Name: tr.Name, Response: lsNonNil(tr.Response)})
	}
	if u := t.Usage; u != nil {
		s.Usage = &lsUsage{Prompt: u.PromptTokenCount, Candidates: u.CandidatesTokenCount, Total: u.TotalTokenCount,
			Thoughts: u.ThoughtsTokenCount, Cached: u.CachedContentTokenCount, ToolUse: u.ToolUsePromptTokenCount}
	}
	if x.Response.Status != 200 {
		s.errorStatus = lsErrorStatus(&x.Response)
	}
	return s
}

// lsErrorStatus reads the status of a Gemini error body
// ({"error": {"status": "RESOURCE_EXHAUSTED", ...}}), or "".
func lsErrorStatus(r *cassettes.Response) string {
	for _, payload := range cassettes.ResponsePayloads(r) {
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

// lsWriteTable prints one block per cassette. Lines of one kind (sessions,
// invocations, steps, other requests) are aligned across the whole block.
func lsWriteTable(w io.Writer, dir string, doc lsDoc) {
	if len(doc.Cassettes) == 0 {
		fmt.Fprintf(w, "no cassettes in %s\n", scoring.TerminalText(dir))
		return
	}
	for i, c := range doc.Cassettes {
		if i > 0 {
			fmt.Fprintln(w)
		}
		var t lsTable
		invocations, steps := 0, 0
		for _, s := range c.Sessions {
			invocations += len(s.Invocations)
			for _, inv := range s.Invocations {
				steps += len(inv.Steps)
			}
		}
		summary := []string{lsPlural(len(c.Sessions), "session"), lsPlural(invocations, "invocation"), lsPlural(steps, "step")}
		if len(c.Other) > 0 {
			summary = append(summary, lsPlural(len(c.Other), "other request"))
		}
		t.add(lsHeaderRow, fmt.Sprintf("CASSETTE %s (%s): %s", scoring.TerminalText(c.Name),
			scoring.TerminalText(filepath.Join(dir, filepath.FromSlash(c.File))), strings.Join(summary, ", ")))
		for _, s := range c.Sessions {
			t.add(lsSessionRow, "  session "+strconv.Itoa(s.ID))
			for _, inv := range s.Invocations {
				t.add(lsInvocationRow, lsInvocationCells(inv)...)
				for _, st := range inv.Steps {
					t.add(lsStepRow, lsStepCells(st)...)
				}
			}
		}
		if len(c.Other) > 0 {
			t.add(lsSessionRow, "  other")
			for _, o := range lsGroupOther(c.Other) {
				count := ""
				if o.n > 1 {
					count = fmt.Sprintf("×%d", o.n)
				}
				t.add(lsOtherRow, "    "+scoring.TerminalText(o.Method), scoring.TerminalText(o.Path), strconv.Itoa(o.Status), count)
			}
		}
		t.write(w)
	}
}

func lsInvocationCells(inv lsInvocation) []string {
	id := "    invocation " + strconv.Itoa(inv.ID)
	if inv.Tag != "" {
		id += " [" + scoring.TerminalText(inv.Tag) + "]"
	}
	var calls []string
	var tokens int64
	counted := false
	for _, st := range inv.Steps {
		for _, tc := range st.ToolCalls {
			calls = append(calls, lsFormatCall(tc))
		}
		if st.Usage != nil {
			tokens += int64(st.Usage.Total)
			counted = true
		}
	}
	tools, tokenCell := "-", "-"
	if len(calls) > 0 {
		tools = lsTruncate(strings.Join(calls, ", "), lsListWidth)
	}
	if counted {
		tokenCell = strconv.FormatInt(tokens, 10)
	}
	agents := make([]string, len(inv.Agents))
	for i, a := range inv.Agents {
		agents[i] = scoring.TerminalText(a)
	}
	return []string{id, lsQuoted(inv.User, lsUserWidth),
		"agents: " + lsTruncate(strings.Join(agents, ", "), lsAgentsWidth),
		"steps: " + strconv.Itoa(len(inv.Steps)),
		"tokens: " + tokenCell,
		"tools: " + tools} // last: the widest and most varied cell
}

// lsStepCells: the step, its agent, then what it received (←), what it
// answered (→) and anything unusual about how it ended.
func lsStepCells(st lsStep) []string {
	var what []string
	if len(st.ToolResults) > 0 {
		names := make([]string, len(st.ToolResults))
		for i, r := range st.ToolResults {
			names[i] = scoring.TerminalText(r.Name)
		}
		what = append(what, "← "+lsTruncate(strings.Join(names, ", "), lsListWidth))
	}
	var answer []string
	if st.Text != "" {
		answer = append(answer, lsQuoted(st.Text, lsTextWidth))
	}
	for _, tc := range st.ToolCalls {
		answer = append(answer, lsFormatCall(tc))
	}
	if len(answer) > 0 {
		what = append(what, "→ "+strings.Join(answer, ", "))
	} else if st.Status == 200 {
		what = append(what, "→ (no text, no tool calls)")
	}
	var notes []string
	if st.Status != 200 {
		notes = append(notes, strings.TrimSpace("HTTP "+strconv.Itoa(st.Status)+" "+scoring.TerminalText(st.errorStatus)))
	} else if st.FinishReason != "" && st.FinishReason != "STOP" {
		notes = append(notes, "finish: "+scoring.TerminalText(st.FinishReason))
	}
	if st.reset {
		notes = append(notes, "connection reset")
	}
	if len(notes) > 0 {
		what = append(what, "["+strings.Join(notes, ", ")+"]")
	}
	return []string{"      step " + strconv.Itoa(st.Step), scoring.TerminalText(st.Agent), strings.Join(what, " ")}
}

// lsFormatCall renders a tool call as name(arg=value, ...), arguments sorted
// by name and values as JSON.
func lsFormatCall(tc lsToolCall) string {
	keys := make([]string, 0, len(tc.Args))
	for k := range tc.Args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	args := make([]string, len(keys))
	for i, k := range keys {
		args[i] = scoring.TerminalText(k) + "=" + lsJSONValue(tc.Args[k], lsValueWidth)
	}
	return lsTruncate(scoring.TerminalText(tc.Name)+"("+strings.Join(args, ", ")+")", lsCallWidth)
}

// lsJSONValue renders v as JSON for the table, cut to width: a string is cut
// inside its quotes, anything else as text.
func lsJSONValue(v any, width int) string {
	if s, ok := v.(string); ok {
		return lsQuoted(s, width)
	}
	return lsTruncate(scoring.TerminalText(lsJSONText(v)), width)
}

// lsQuoted is s with whitespace collapsed, cut to width, as a JSON string.
func lsQuoted(s string, width int) string {
	return lsJSONText(lsTruncate(scoring.TerminalText(s), width-2))
}

func lsJSONText(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// lsTruncate cuts s to at most width runes, ending it with … when cut.
func lsTruncate(s string, width int) string {
	if width < 1 {
		width = 1
	}
	if utf8.RuneCountInString(s) <= width {
		return s
	}
	runes := []rune(s)
	return string(runes[:width-1]) + "…"
}

func lsPlural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

type lsOtherGroup struct {
	lsOther
	n int
}

// lsGroupOther counts identical other requests (polling, model lists), in
// order of first appearance.
func lsGroupOther(other []lsOther) []lsOtherGroup {
	var out []lsOtherGroup
	index := map[lsOther]int{}
	for _, o := range other {
		if i, ok := index[o]; ok {
			out[i].n++
			continue
		}
		index[o] = len(out)
		out = append(out, lsOtherGroup{o, 1})
	}
	return out
}

func lsContains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func lsNonNil(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// Row kinds of the table; rows of one kind share their columns.
const (
	lsHeaderRow = iota
	lsSessionRow
	lsInvocationRow
	lsStepRow
	lsOtherRow
)

// lsTable aligns the cells of each kind of row across the whole table, even
// where rows of other kinds come in between, which one tabwriter alone
// cannot do: each kind goes through its own tabwriter, and the aligned
// lines are put back in order.
type lsTable struct{ rows []lsTableRow }

type lsTableRow struct {
	kind  int
	cells []string
}

func (t *lsTable) add(kind int, cells ...string) {
	t.rows = append(t.rows, lsTableRow{kind, cells})
}

func (t *lsTable) write(w io.Writer) {
	aligned := map[int][]string{}
	for _, kind := range []int{lsHeaderRow, lsSessionRow, lsInvocationRow, lsStepRow, lsOtherRow} {
		var buf bytes.Buffer
		tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
		n := 0
		for _, r := range t.rows {
			if r.kind == kind {
				fmt.Fprintln(tw, strings.Join(r.cells, "\t"))
				n++
			}
		}
		tw.Flush()
		if n > 0 {
			aligned[kind] = strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
		}
	}
	for _, r := range t.rows {
		fmt.Fprintln(w, strings.TrimRight(aligned[r.kind][0], " "))
		aligned[r.kind] = aligned[r.kind][1:]
	}
}
