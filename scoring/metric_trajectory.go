// The tool-trajectory metrics: ADK's tool_trajectory_avg_score, adkproxy's
// trajectory precision, recall and F1, and single_tool_use.

package scoring

import (
	"fmt"
	"sort"
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/rouge"
	"github.com/adkproxy/adkproxy/internal/base/textfmt"
)

// toolTrajectory computes ToolTrajectoryAvgScore (see there).
func toolTrajectory(cfg *Config, cr *Criterion, c *Case, m *MetricResult) {
	// ADK 1.18 has no ignore_args: its criterion keeps the key unread.
	ignoreArgs := cr.IgnoreArgs && cfg.adk().HasIgnoreArgs()
	m.Details = map[string]any{"match_type": cr.MatchType.String(), "ignore_args": ignoreArgs}
	if _, named := cr.Fields["match_type"].(string); named && !cfg.adk().MatchTypeByName() {
		m.Reason = "ADK 1.18 reads match_type as a number only (0 EXACT, 1 IN_ORDER, 2 ANY_ORDER): its evaluator fails on a name, leaving the metric NOT_EVALUATED; write the number"
		return
	}
	n := min(len(c.Actual), len(c.Expected))
	if n == 0 {
		m.Reason = "no invocations to compare"
		return
	}
	eq := func(a, e cassettes.ToolCall) bool {
		return a.Name == e.Name && (ignoreArgs || argsEqual(a.Args, e.Args))
	}
	m.PerInvocation = make([]InvocationScore, 0, n)
	for i := range n {
		actual, expected := c.Actual[i].ToolCalls, c.Expected[i].ToolCalls
		if !cfg.adk().ConfirmationStartsInvocation() {
			// ADK 1.18's trajectory holds its adk_request_confirmation
			// calls (splitConfirmations adds them to the recorded ones).
			expected = modelCalls(expected)
		}
		var ok bool
		var why string
		switch cr.MatchType {
		case InOrder:
			ok, why = inOrder(actual, expected, eq)
		case AnyOrder:
			ok, why = anyOrder(actual, expected, eq)
		default:
			ok, why = exactMatch(actual, expected, eq)
		}
		s := InvocationScore{Index: i, Score: Float(0)}
		if ok {
			s.Score = Float(1)
		} else {
			s.Reason = fmt.Sprintf("invocation %d: %s", i+1, why)
		}
		m.PerInvocation = append(m.PerInvocation, s)
	}
	m.Score = meanOf(m.PerInvocation)
}

func exactMatch(actual, expected []cassettes.ToolCall, eq func(a, e cassettes.ToolCall) bool) (bool, string) {
	if len(actual) != len(expected) {
		return false, "expected " + countedCalls(expected) + ", got " + countedCalls(actual)
	}
	for i := range actual {
		if !eq(actual[i], expected[i]) {
			where := ""
			if len(actual) > 1 {
				where = fmt.Sprintf("call %d: ", i+1)
			}
			return false, where + "expected " + formatCall(expected[i]) + ", got " + formatCall(actual[i]) + argsHint(actual[i], expected[i])
		}
	}
	return true, ""
}

// countedCalls: "no tool calls", "1 tool call [a()]", "2 tool calls [a(), b()]".
func countedCalls(calls []cassettes.ToolCall) string {
	if len(calls) == 0 {
		return "no tool calls"
	}
	return textfmt.Plural(len(calls), "tool call") + " " + formatCalls(calls)
}

func inOrder(actual, expected []cassettes.ToolCall, eq func(a, e cassettes.ToolCall) bool) (bool, string) {
	if len(expected) == 0 {
		return true, ""
	}
	if len(actual) == 0 {
		return false, "expected " + formatCalls(expected) + " in order, got no tool calls"
	}
	k := 0
	for _, a := range actual {
		if eq(a, expected[k]) {
			k++
			if k == len(expected) {
				return true, ""
			}
		}
	}
	return false, fmt.Sprintf("expected %s in order, got %s: %s (expected call %d of %d) not found%s",
		formatCalls(expected), formatCalls(actual), formatCall(expected[k]), k+1, len(expected), afterWhat(k, expected))
}

func afterWhat(k int, expected []cassettes.ToolCall) string {
	if k == 0 {
		return ""
	}
	return " after " + formatCall(expected[k-1])
}

func anyOrder(actual, expected []cassettes.ToolCall, eq func(a, e cassettes.ToolCall) bool) (bool, string) {
	if len(expected) == 0 {
		return true, ""
	}
	if len(actual) == 0 {
		return false, "expected " + formatCalls(expected) + " in any order, got no tool calls"
	}
	used := make([]bool, len(actual))
	for _, e := range expected {
		found := false
		for i, a := range actual {
			if !used[i] && eq(a, e) {
				used[i], found = true, true
				break
			}
		}
		if !found {
			return false, fmt.Sprintf("expected %s in any order, got %s: %s not found%s", formatCalls(expected), formatCalls(actual),
				formatCall(e), closest(e, actual, used))
		}
	}
	return true, ""
}

// closest names an unused actual call of the same tool, if any, to point
// at the arguments that differ.
func closest(e cassettes.ToolCall, actual []cassettes.ToolCall, used []bool) string {
	for i, a := range actual {
		if a.Name == e.Name && !used[i] {
			return " (closest: " + formatCall(a) + argsHint(a, e) + ")"
		}
	}
	return ""
}

// argsHint names the arguments that differ between two calls of the same
// tool: "; args differ: city", or "; args null vs {}".
func argsHint(a, e cassettes.ToolCall) string {
	if a.Name != e.Name {
		return ""
	}
	if (a.Args == nil) != (e.Args == nil) {
		return "; args null vs an object (Python None ≠ {})"
	}
	var keys []string
	for k, v := range e.Args {
		if w, ok := a.Args[k]; !ok || !pyEqual(v, w) {
			keys = append(keys, k)
		}
	}
	for k := range a.Args {
		if _, ok := e.Args[k]; !ok {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return ""
	}
	sort.Strings(keys)
	return "; args differ: " + strings.Join(keys, ", ")
}

// partialTrajectory computes TrajectoryPrecision, TrajectoryRecall and
// TrajectoryF1 (see there).
// partialTrajectoryMetric is trajectory_precision, _recall or _f1 with the
// configured arg matchers.
func partialTrajectoryMetric(cfg *Config, cr *Criterion, c *Case, m *MetricResult) {
	partialTrajectory(cfg.Adkproxy.ArgMatchers, cr, c, m)
}

func partialTrajectory(matchers ArgMatchers, cr *Criterion, c *Case, m *MetricResult) {
	n := min(len(c.Actual), len(c.Expected))
	if n == 0 {
		m.Reason = "no invocations to compare"
		return
	}
	if len(matchers) > 0 {
		m.Details = map[string]any{"arg_matchers": matchersDetail(matchers)}
	}
	for i := range n {
		actual, expected := c.Actual[i].ToolCalls, modelCalls(c.Expected[i].ToolCalls)
		pairs := maxMatching(actual, expected, matchers.callsMatch)
		matched := 0
		for _, p := range pairs {
			if p >= 0 {
				matched++
			}
		}
		var score float64
		switch {
		case len(actual) == 0 && len(expected) == 0:
			score = 1
		case len(actual) == 0 || len(expected) == 0:
			score = 0
		default:
			precision := float64(matched) / float64(len(actual))
			recall := float64(matched) / float64(len(expected))
			switch cr.Metric {
			case metricTrajectoryPrecision:
				score = precision
			case metricTrajectoryRecall:
				score = recall
			default:
				score = rouge.FMeasure(precision, recall)
			}
		}
		s := InvocationScore{Index: i, Score: Float(score)}
		if score < 1 {
			s.Reason = fmt.Sprintf("invocation %d: %s", i+1, matchingReason(actual, expected, pairs, matched))
		}
		m.PerInvocation = append(m.PerInvocation, s)
	}
	m.Score = meanOf(m.PerInvocation)
}

func matchingReason(actual, expected []cassettes.ToolCall, pairs []int, matched int) string {
	usedExp := make([]bool, len(expected))
	var extra []cassettes.ToolCall
	for i, p := range pairs {
		if p >= 0 {
			usedExp[p] = true
		} else {
			extra = append(extra, actual[i])
		}
	}
	var missing []cassettes.ToolCall
	for j, used := range usedExp {
		if !used {
			missing = append(missing, expected[j])
		}
	}
	s := fmt.Sprintf("%d of %d actual and %d of %d expected calls matched", matched, len(actual), matched, len(expected))
	if len(missing) > 0 {
		s += "; missing " + formatCalls(missing)
	}
	if len(extra) > 0 {
		s += "; unexpected " + formatCalls(extra)
	}
	return s
}

// maxMatching pairs actual calls with expected ones one to one, as many as
// possible (augmenting paths; the lists are short). pairs[i] is the
// expected index matched with actual[i], or -1.
func maxMatching(actual, expected []cassettes.ToolCall, match func(a, e cassettes.ToolCall) bool) []int {
	pairs := make([]int, len(actual))
	owner := make([]int, len(expected))
	for i := range pairs {
		pairs[i] = -1
	}
	for j := range owner {
		owner[j] = -1
	}
	ok := make([][]bool, len(actual))
	for i, a := range actual {
		ok[i] = make([]bool, len(expected))
		for j, e := range expected {
			ok[i][j] = match(a, e)
		}
	}
	var try func(i int, seen []bool) bool
	try = func(i int, seen []bool) bool {
		for j := range expected {
			if !ok[i][j] || seen[j] {
				continue
			}
			seen[j] = true
			if owner[j] < 0 || try(owner[j], seen) {
				owner[j], pairs[i] = i, j
				return true
			}
		}
		return false
	}
	for i := range actual {
		try(i, make([]bool, len(expected)))
	}
	return pairs
}

func matchersDetail(m ArgMatchers) map[string]any {
	out := map[string]any{}
	for tool, args := range m {
		a := map[string]any{}
		for k, am := range args {
			a[k] = am.String()
		}
		out[tool] = a
	}
	return out
}

// singleToolUse computes SingleToolUse (see there).
func singleToolUse(cr *Criterion, c *Case, m *MetricResult) {
	m.Details = map[string]any{"tool": cr.Tool}
	if len(c.Actual) == 0 {
		m.Reason = "no invocations"
		return
	}
	for i, inv := range c.Actual {
		s := InvocationScore{Index: i, Score: Float(0)}
		for _, call := range inv.ToolCalls {
			if call.Name == cr.Tool {
				s.Score = Float(1)
				break
			}
		}
		if *s.Score == 0 {
			s.Reason = fmt.Sprintf("invocation %d: %s was not called; got %s", i+1, cr.Tool, formatCalls(inv.ToolCalls))
		}
		m.PerInvocation = append(m.PerInvocation, s)
	}
	m.Score = meanOf(m.PerInvocation)
	if called := int(*m.Score*float64(len(c.Actual)) + 0.5); called < len(c.Actual) {
		m.Reason = fmt.Sprintf("%s was called in %d of %d invocations (the score is the share of invocations that call it)", cr.Tool, called, len(c.Actual))
	}
}

// formatCall renders a tool call for reasons: get_weather(city="London")
// (see textfmt.Call; long values cut at 60 runes).
func formatCall(c cassettes.ToolCall) string { return textfmt.Call(c.Name, c.Args, 60) }

// formatCalls renders a list of calls: [a(x=1), b()], or "no tool calls".
func formatCalls(calls []cassettes.ToolCall) string {
	if len(calls) == 0 {
		return "no tool calls"
	}
	parts := make([]string, len(calls))
	for i, c := range calls {
		parts[i] = formatCall(c)
	}
	if len(parts) > 8 {
		parts = append(parts[:8], "…")
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
