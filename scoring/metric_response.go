// ADK's response_match_score: ROUGE-1 of each final response, with the
// words that differ as the reason.

package scoring

import (
	"fmt"
	"strings"

	"github.com/adkproxy/adkproxy/internal/base/rouge"
	"github.com/adkproxy/adkproxy/internal/base/textfmt"
)

// responseMatch computes ResponseMatchScore (see there).
func responseMatch(cfg *Config, c *Case, m *MetricResult) {
	n := min(len(c.Actual), len(c.Expected))
	if n == 0 {
		m.Reason = "no invocations to compare"
		return
	}
	m.PerInvocation = make([]InvocationScore, 0, n)
	for i := range n {
		actual, expected := c.Actual[i].FinalResponse, c.Expected[i].FinalResponse
		// ADK 1.18 stems every text; newer ADK only mostly-Latin ones.
		stem := cfg.adk().StemsAll() || rouge.UseStemmerFor(actual, expected)
		expTokens, actTokens := rouge.Tokenize(expected, stem), rouge.Tokenize(actual, stem)
		r := rouge.Rouge1Tokens(expTokens, actTokens)
		s := InvocationScore{Index: i, Score: Float(r.FMeasure)}
		if r.FMeasure < 1 {
			s.Reason = fmt.Sprintf("invocation %d: ROUGE-1 F %s (precision %s, recall %s): expected %q, got %q%s",
				i+1, fmtNum(r.FMeasure), fmtNum(r.Precision), fmtNum(r.Recall),
				textfmt.Truncate(expected, 120), textfmt.Truncate(actual, 120), wordDiff(expTokens, actTokens))
		}
		m.PerInvocation = append(m.PerInvocation, s)
	}
	m.Score = meanOf(m.PerInvocation)
}

// wordDiff names the (stemmed) words of the expected text the actual one
// lacks, and the ones it adds.
func wordDiff(exp, act []string) string {
	if len(exp) == 0 && len(act) == 0 {
		return "; neither text has any word ROUGE counts ([a-z0-9] after lower-casing)"
	}
	// diff[w] = count in expected − count in actual.
	diff := make(map[string]int, len(exp)+len(act))
	for _, t := range exp {
		diff[t]++
	}
	for _, t := range act {
		diff[t]--
	}
	var missing, extra []string
	for _, t := range exp {
		if diff[t] > 0 {
			missing = append(missing, t)
			diff[t] = 0
		}
	}
	for _, t := range act {
		if diff[t] < 0 {
			extra = append(extra, t)
			diff[t] = 0
		}
	}
	list := func(words []string) string {
		if len(words) > 10 {
			words = append(words[:10:10], "…")
		}
		return strings.Join(words, " ")
	}
	var out string
	if len(missing) > 0 {
		out += "; missing words: " + list(missing)
	}
	if len(extra) > 0 {
		out += "; extra words: " + list(extra)
	}
	return out
}
