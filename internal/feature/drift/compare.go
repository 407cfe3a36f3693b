// Comparing the live run with the recording, step by step: cassettes by
// name, sessions, invocations and steps by their numbers.

package drift

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/adkproxy/adkproxy/internal/base/rouge"
	"github.com/adkproxy/adkproxy/internal/base/textfmt"
	"github.com/adkproxy/adkproxy/internal/data/recorded"
	"github.com/adkproxy/adkproxy/matcher"
)

// DefaultMinRouge is the ROUGE-1 F a live response text must reach
// against the recorded one.
const DefaultMinRouge = 0.8

// maxRequestFields bounds the request fields listed for one step.
const maxRequestFields = 10

// Compare lists what changed from the recorded run to the live one. A
// response text counts as changed below minRouge (ROUGE-1 F). Request
// fields of the history (contents) are not listed once the model behaved
// otherwise earlier in the session: they follow from its other answers.
func Compare(rec, live recorded.Run, minRouge float64) []Change {
	rc, lc := byName(rec), byName(live)
	names := slices.Sorted(maps.Keys(rc))
	for n := range lc {
		if rc[n] == nil {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	var out []Change
	for _, name := range names {
		r, l := rc[name], lc[name]
		if r == nil || l == nil {
			out = append(out, missing(name, 0, 0, r == nil, "cassette "+name))
			continue
		}
		out = append(out, compareSessions(name, r.Sessions, l.Sessions, minRouge)...)
	}
	return out
}

func byName(run recorded.Run) map[string]*recorded.Cassette {
	m := map[string]*recorded.Cassette{}
	for i := range run.Cassettes {
		m[run.Cassettes[i].Name] = &run.Cassettes[i]
	}
	return m
}

func missing(cassette string, session, invocation int, notRecorded bool, what string) Change {
	c := Change{Kind: Behaviour, What: WhatNotRun, Severity: High, Cassette: cassette, Session: session, Invocation: invocation, Step: -1, Recorded: what}
	if notRecorded {
		c.What, c.Recorded, c.Live = WhatNotRecorded, "", what
	}
	return c
}

func compareSessions(cassette string, rec, live []recorded.Session, minRouge float64) []Change {
	var out []Change
	for i := range max(len(rec), len(live)) {
		if i >= len(rec) || i >= len(live) {
			out = append(out, missing(cassette, i+1, 0, i >= len(rec), fmt.Sprintf("session %d", i+1)))
			continue
		}
		r, l := rec[i].Invocations, live[i].Invocations
		behavedOtherwise := false // the history of later calls follows from other answers
		for j := range max(len(r), len(l)) {
			if j >= len(r) || j >= len(l) {
				what := "invocation " + quotedUser(r, l, j)
				out = append(out, missing(cassette, i+1, j+1, j >= len(r), what))
				continue
			}
			out = append(out, compareInvocation(cassette, i+1, &r[j], &l[j], minRouge, &behavedOtherwise)...)
		}
	}
	return out
}

func quotedUser(r, l []recorded.Invocation, j int) string {
	if j < len(r) {
		return fmt.Sprintf("%q", textfmt.Truncate(r[j].User, 60))
	}
	return fmt.Sprintf("%q", textfmt.Truncate(l[j].User, 60))
}

func compareInvocation(cassette string, session int, r, l *recorded.Invocation, minRouge float64, behavedOtherwise *bool) []Change {
	var out []Change
	for k := range max(len(r.Steps), len(l.Steps)) {
		at := Change{Cassette: cassette, Session: session, Invocation: r.ID, Step: k}
		if k >= len(r.Steps) || k >= len(l.Steps) {
			c := at
			c.Kind, c.Severity, c.What = Behaviour, High, WhatStepAdded
			if k >= len(l.Steps) {
				c.What, c.Agent, c.Recorded = WhatStepRemoved, r.Steps[k].Agent, stepSummary(&r.Steps[k])
			} else {
				c.Agent, c.Live = l.Steps[k].Agent, stepSummary(&l.Steps[k])
			}
			out = append(out, c)
			*behavedOtherwise = true
			continue
		}
		rs, ls := &r.Steps[k], &l.Steps[k]
		at.Agent = rs.Agent
		for _, c := range requestChanges(rs, ls, *behavedOtherwise) {
			out = append(out, place(at, c))
		}
		if rs.Status == 200 && ls.Status == 200 {
			for _, c := range shapeChanges(shapeOf(&rs.Exchange.Response), shapeOf(&ls.Exchange.Response)) {
				out = append(out, place(at, c))
			}
		}
		behaviour := behaviourChanges(rs, ls, minRouge)
		for _, c := range behaviour {
			out = append(out, place(at, c))
		}
		*behavedOtherwise = *behavedOtherwise || len(behaviour) > 0
	}
	return out
}

func place(at, c Change) Change {
	c.Cassette, c.Session, c.Invocation, c.Step, c.Agent = at.Cassette, at.Session, at.Invocation, at.Step, at.Agent
	return c
}

func requestChanges(r, l *recorded.Step, afterOtherBehaviour bool) []Change {
	var out []Change
	for _, d := range matcher.Default().Diff(&r.Exchange.Request, &l.Exchange.Request) {
		if afterOtherBehaviour && (d.Path == "contents" || strings.HasPrefix(d.Path, "contents[") || strings.HasPrefix(d.Path, "contents.")) {
			continue
		}
		if len(out) == maxRequestFields {
			break
		}
		out = append(out, Change{Kind: Request, What: WhatRequestField, Severity: Medium, Path: d.Path, Recorded: d.Recorded, Live: d.Got})
	}
	return out
}

func behaviourChanges(r, l *recorded.Step, minRouge float64) []Change {
	var out []Change
	add := func(what string, sev Severity, rec, live string) {
		out = append(out, Change{Kind: Behaviour, What: what, Severity: sev, Recorded: rec, Live: live})
	}
	if r.Status != l.Status {
		add(WhatStatus, High, fmt.Sprint(r.Status), fmt.Sprint(l.Status))
	}
	if rc, lc := callsText(r), callsText(l); rc != lc {
		add(WhatToolCalls, High, rc, lc)
	}
	if r.FinishReason != l.FinishReason {
		add(WhatFinishReason, Medium, r.FinishReason, l.FinishReason)
	}
	if r.Text != "" || l.Text != "" {
		if f := rouge.Rouge1(r.Text, l.Text, false).FMeasure; f < minRouge {
			add(WhatText, Medium, textfmt.Truncate(textfmt.OneLine(r.Text), 80),
				fmt.Sprintf("%s (ROUGE-1 F %.2f < %.2f)", textfmt.Truncate(textfmt.OneLine(l.Text), 80), f, minRouge))
		}
	}
	if r.ModelVersion != l.ModelVersion {
		add(WhatModelVersion, Medium, r.ModelVersion, l.ModelVersion)
	}
	return out
}

func callsText(s *recorded.Step) string {
	calls := make([]string, len(s.ToolCalls))
	for i, c := range s.ToolCalls {
		calls[i] = textfmt.Call(c.Name, c.Args, 40)
	}
	return strings.Join(calls, ", ")
}

func stepSummary(s *recorded.Step) string {
	if c := callsText(s); c != "" {
		return "→ " + c
	}
	return "→ " + fmt.Sprintf("%q", textfmt.Truncate(textfmt.OneLine(s.Text), 60))
}
