// per_turn_user_simulator_quality_v1: each user turn of a simulated
// conversation graded — the first against the scenario's starting prompt,
// the others by num_samples judge verdicts and their majority — plus the
// stop check, and the fraction of turns that passed.

package judge

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/adkproxy/adkproxy/internal/base/textfmt"
	"github.com/adkproxy/adkproxy/internal/data/scenarios"
	"github.com/adkproxy/adkproxy/scoring"
)

// isValidRE is ADK's reading of the simulator judge's verdict: the first
// "is_valid" value, in brackets or quotes or bare, ending at a comma, a
// line break or a closing brace.
var isValidRE = regexp.MustCompile(`"is_valid":\s*\[*[\n\s]*"*([^"^\]^\s]*)"*[\n\s]*\]*\s*[,\n\}]`)

// parseIsValid reads a verdict: 1.0 for valid or true, 0.0 for invalid,
// false, almost, partially_valid, partially valid or partially (any case),
// nil for anything else or no answer.
func parseIsValid(answer string) (score *float64, label string) {
	m := isValidRE.FindStringSubmatch(answer)
	if m == nil {
		return nil, ""
	}
	label = strings.ToLower(strings.Trim(m[1], " \t\n,}"))
	switch label {
	case "valid", "true":
		return ptr(1), label
	case "invalid", "false", "almost", "partially_valid", "partially valid", "partially":
		return ptr(0), label
	}
	return nil, label
}

// failedCriterion is the first criterion a verdict says failed, with its
// reasoning, for notes; "" when the answer is not the JSON asked for.
func failedCriterion(answer string) string {
	start, end := strings.Index(answer, "{"), strings.LastIndex(answer, "}")
	if start < 0 || end < start {
		return ""
	}
	var v struct {
		Criteria []struct {
			Name      string `json:"name"`
			Reasoning string `json:"reasoning"`
			Passes    any    `json:"passes"`
		} `json:"criteria"`
	}
	if json.Unmarshal([]byte(answer[start:end+1]), &v) != nil {
		return ""
	}
	for _, c := range v.Criteria {
		if c.Passes == false || c.Passes == "false" {
			return c.Name + ": " + c.Reasoning
		}
	}
	return ""
}

// verdict is the majority of one judged turn's samples.
type verdict struct {
	score   *float64
	agree   int // samples that voted as the majority
	of      int // samples asked
	why     string
	samples []any
}

func (v verdict) String() string {
	word := "no verdict"
	if v.score != nil {
		word = "valid"
		if *v.score < 1 {
			word = "invalid"
		}
	}
	s := fmt.Sprintf("%s (%d of %s)", word, v.agree, textfmt.Plural(v.of, "sample"))
	if v.why != "" {
		s += ": " + short(v.why)
	}
	return s
}

// judgeTurn asks the judge num_samples times whether generated is a valid
// next user turn after history, under key (invocation, sample prefix).
func (r *caseRun) judgeTurn(ctx context.Context, inv int, prefix string, sc *scenarios.Scenario, history, generated string) (verdict, error) {
	prompt, err := r.j.simulatorPrompt(sc, history, generated, r.opts.StopSignal)
	if err != nil {
		return verdict{}, err
	}
	v := verdict{of: r.opts.NumSamples}
	var scores []*float64
	var whys []string
	for k := 1; k <= r.opts.NumSamples; k++ {
		answer, err := r.j.call(ctx, r.cassette, r.key(inv, prefix+strconv.Itoa(k)), &r.opts, []string{prompt})
		if err != nil {
			// ADK: a judge that raises leaves the whole metric NOT_EVALUATED.
			return v, err
		}
		score, label := parseIsValid(answer)
		why := failedCriterion(answer)
		scores, whys = append(scores, score), append(whys, why)
		v.samples = append(v.samples, map[string]any{"sample": k, "score": score, "verdict": label, "failed_criterion": why})
	}
	v.score = majority(scores)
	for k, s := range scores {
		if s != nil && v.score != nil && *s == *v.score {
			if v.agree++; v.why == "" && *s < 1 {
				v.why = whys[k]
			}
		}
	}
	return v, nil
}

// simulatorQuality computes per_turn_user_simulator_quality_v1 as ADK
// does: turn 1 scores 1 when its text equals the starting prompt (both
// trimmed); every later turn is the majority of num_samples verdicts on it
// as the next turn after the turns before it (a tie fails, no readable
// verdict leaves it NOT_EVALUATED); then the stop check judges the bare
// stop signal after the whole conversation and, only when it fails,
// overwrites the last turn's result. The score is the number of turns that
// passed over the number of turns, NOT_EVALUATED ones included.
func (r *caseRun) simulatorQuality(ctx context.Context, m *scoring.MetricResult) error {
	sc, err := scenarios.ParseScenario(CassetteName(r.c), "conversation_scenario", r.c.Scenario)
	if err != nil {
		return err
	}
	n := len(r.c.Actual)
	if n == 0 {
		m.Reason = "no user turns to grade"
		return nil
	}
	turns := make([]scoring.InvocationScore, n)
	first := scoring.InvocationScore{Index: 0}
	switch got := strings.TrimSpace(r.c.Actual[0].UserText); {
	case got == "":
		first.Reason = "turn 1: not evaluated: the user turn has no text"
	case got == strings.TrimSpace(sc.StartingPrompt):
		first.Score = ptr(1)
	default:
		first.Score = ptr(0)
		first.Reason = fmt.Sprintf("turn 1: %q is not the scenario's starting prompt %q", textfmt.Truncate(got, 80), textfmt.Truncate(strings.TrimSpace(sc.StartingPrompt), 80))
	}
	turns[0] = first
	for i := 1; i < n; i++ {
		v, err := r.judgeTurn(ctx, i+1, "", &sc, simulatorHistory(r.c.Actual[:i]), r.c.Actual[i].UserText)
		if err != nil {
			return err
		}
		s := scoring.InvocationScore{Index: i, Score: v.score, Details: map[string]any{"samples": v.samples}}
		note := fmt.Sprintf("turn %d: %s", i+1, v)
		m.Notes = append(m.Notes, note)
		if v.score == nil {
			s.Reason = fmt.Sprintf("turn %d: not evaluated: no sample gave a verdict the parser reads (\"is_valid\": true or false)", i+1)
		} else if *v.score < 1 {
			s.Reason = note
		}
		turns[i] = s
	}
	stop, err := r.judgeTurn(ctx, n, "stop.", &sc, simulatorHistory(r.c.Actual), r.opts.StopSignal)
	if err != nil {
		return err
	}
	m.Details = map[string]any{"stop_check": map[string]any{"score": stop.score, "samples": stop.samples}}
	if stop.score != nil && *stop.score == 0 {
		note := fmt.Sprintf("turn %d: the stop check failed, ending the conversation here was judged %s", n, stop)
		m.Notes = append(m.Notes, note)
		turns[n-1] = scoring.InvocationScore{Index: n - 1, Score: ptr(0), Reason: note,
			Details: map[string]any{"stop_check": map[string]any{"samples": stop.samples}}}
	}
	passed := 0
	for _, t := range turns {
		if t.Score != nil && *t.Score >= r.threshold {
			passed++
		}
	}
	m.PerInvocation = turns
	m.Score = ptr(float64(passed) / float64(n))
	return nil
}

// simulatorHistory renders turns as the judge reads them: "user: <text>"
// and "model: <final response>", separated by blank lines (only final
// responses, no tool events).
func simulatorHistory(turns []scoring.Invocation) string {
	var parts []string
	for _, t := range turns {
		if t.UserText != "" {
			parts = append(parts, "user: "+t.UserText)
		}
		if t.FinalResponse != "" {
			parts = append(parts, "model: "+t.FinalResponse)
		}
	}
	return strings.Join(parts, "\n\n")
}
