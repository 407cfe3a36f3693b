// What every output format says of a case's samples (its repeated runs or
// the samples record --samples K made) and of the suite's: pass@1, pass@k,
// pass^k, the flip rate, the 95 % intervals and the flaky cases
// (docs/variance.md).

package scoring

import (
	"strconv"
	"strings"

	"github.com/adkproxy/adkproxy/internal/base/junitxml"
	"github.com/adkproxy/adkproxy/internal/base/samplestat"
)

// suiteSamplesOf is the suite's samples, nil when no case has them.
func suiteSamplesOf(r *Result) *samplestat.Suite {
	sums := make([]samplestat.Summary, len(r.Cases))
	ids := make([]string, len(r.Cases))
	for i, c := range r.Cases {
		sums[i], ids[i] = c.Samples, outCaseID(c)
	}
	return samplestat.SumSuite(sums, ids)
}

// outScoreSamplesText is a metric's mean score over the samples with its
// bootstrap interval, "" when it has none.
func outScoreSamplesText(m MetricResult) string {
	samples, _ := m.Details["samples"].(map[string]any)
	if sc, ok := samples["score"].(samplestat.MeanScore); ok {
		return sc.Text()
	}
	return ""
}

// samplesCells are the csv and jsonl columns of a case's samples, empty
// for a case played once.
func samplesCells(c *CaseResult) []Cell {
	s := c.Samples
	val := func(v any) any {
		if s.N == 0 {
			return nil
		}
		return v
	}
	return []Cell{{"samples.n", val(s.N)}, {"samples.passes", val(s.Passes)}, {"samples.pass_at_1", val(s.PassAt1)},
		{"samples.pass_at_k", val(s.PassAtK)}, {"samples.pass_hat_k", val(s.PassHatK)}, {"samples.flip_rate", val(s.FlipRate)},
		{"samples.interval_low", val(s.Low)}, {"samples.interval_high", val(s.High)}, {"samples.flaky", val(s.Flaky)}}
}

// junitSuiteSamples are the suite's samples as <testsuite> properties.
func junitSuiteSamples(s *samplestat.Suite) []junitxml.Property {
	num := func(name string, f float64) junitxml.Property {
		return junitxml.Property{Name: "samples." + name, Value: strconv.FormatFloat(f, 'g', -1, 64)}
	}
	return []junitxml.Property{num("cases", float64(s.Cases)), num("n", float64(s.N)), num("passes", float64(s.Passes)),
		num("pass_at_1", s.PassAt1), num("pass_at_k", s.PassAtK), num("pass_hat_k", s.PassHatK), num("flip_rate", s.FlipRate),
		num("interval_low", s.Low), num("interval_high", s.High), {Name: "samples.flaky", Value: strings.Join(s.Flaky, ",")}}
}
