// Package samplestat measures how sure a verdict is over K samples of the
// same case: pass@k, pass^k, the flip rate, a Wilson interval for pass
// rates, a seeded bootstrap interval for mean scores, and a gate comparing
// a candidate with a baseline (Newcombe's interval for a difference of two
// proportions). docs/variance.md states each formula.
package samplestat

import (
	"fmt"
	"math"
	"math/rand"
	"sort"
	"strconv"
	"strings"
)

// Z95 is the normal quantile of a two-sided 95 % interval.
const Z95 = 1.959963984540054

// BootstrapSeed is the fixed seed of the bootstrap, so a score of the same
// samples always prints the same interval.
const BootstrapSeed = 41

// BootstrapRounds is how many resamples the bootstrap draws.
const BootstrapRounds = 2000

// choose is C(n, k) as a float64 (0 when k > n or k < 0).
func choose(n, k int) float64 {
	if k < 0 || k > n {
		return 0
	}
	if k > n-k {
		k = n - k
	}
	r := 1.0
	for i := 1; i <= k; i++ {
		r = r * float64(n-k+i) / float64(i)
	}
	return r
}

// PassAtK is the unbiased estimate, from n samples with c passes, of the
// chance that at least one of k samples passes: 1 - C(n-c,k)/C(n,k).
// k outside 1..n gives NaN.
func PassAtK(n, c, k int) float64 {
	if k < 1 || k > n || c < 0 || c > n {
		return math.NaN()
	}
	return 1 - choose(n-c, k)/choose(n, k)
}

// PassHatK is the unbiased estimate, from n samples with c passes, of the
// chance that all of k samples pass: C(c,k)/C(n,k).
func PassHatK(n, c, k int) float64 {
	if k < 1 || k > n || c < 0 || c > n {
		return math.NaN()
	}
	return choose(c, k) / choose(n, k)
}

// Wilson is the Wilson score interval of c passes in n samples at normal
// quantile z; n == 0 gives [0, 1].
func Wilson(c, n int, z float64) (lo, hi float64) {
	if n <= 0 {
		return 0, 1
	}
	p := float64(c) / float64(n)
	nf := float64(n)
	den := 1 + z*z/nf
	mid := (p + z*z/(2*nf)) / den
	half := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / den
	return math.Max(0, mid-half), math.Min(1, mid+half)
}

// FlipRate is the share of consecutive sample pairs whose verdicts differ
// (0 for fewer than two samples).
func FlipRate(passed []bool) float64 {
	if len(passed) < 2 {
		return 0
	}
	flips := 0
	for i := 1; i < len(passed); i++ {
		if passed[i] != passed[i-1] {
			flips++
		}
	}
	return float64(flips) / float64(len(passed)-1)
}

// Flaky reports whether the samples both passed and failed.
func Flaky(passed []bool) bool {
	c := count(passed)
	return c > 0 && c < len(passed)
}

func count(passed []bool) int {
	c := 0
	for _, p := range passed {
		if p {
			c++
		}
	}
	return c
}

// BootstrapMean is the 95 % percentile bootstrap interval of the mean of
// xs, resampled BootstrapRounds times from BootstrapSeed. An empty xs
// gives NaN, NaN; one value gives it twice.
func BootstrapMean(xs []float64) (lo, hi float64) {
	if len(xs) == 0 {
		return math.NaN(), math.NaN()
	}
	rng := rand.New(rand.NewSource(BootstrapSeed))
	means := make([]float64, BootstrapRounds)
	for r := range means {
		s := 0.0
		for range xs {
			s += xs[rng.Intn(len(xs))]
		}
		means[r] = s / float64(len(xs))
	}
	sort.Float64s(means)
	return percentile(means, 0.025), percentile(means, 0.975)
}

func percentile(sorted []float64, q float64) float64 {
	pos := q * float64(len(sorted)-1)
	i := int(math.Floor(pos))
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	f := pos - float64(i)
	return sorted[i]*(1-f) + sorted[i+1]*f
}

// Summary is what the samples of one case (or a suite) say.
type Summary struct {
	N        int     `json:"n"`
	Passes   int     `json:"passes"`
	K        int     `json:"k"`
	PassAt1  float64 `json:"pass_at_1"`
	PassAtK  float64 `json:"pass_at_k"`
	PassHatK float64 `json:"pass_hat_k"`
	FlipRate float64 `json:"flip_rate"`
	Low      float64 `json:"interval_low"`
	High     float64 `json:"interval_high"`
	Flaky    bool    `json:"flaky"`
}

// Summarise sums up verdicts in sample order, with k = n.
func Summarise(passed []bool) Summary {
	n, c := len(passed), count(passed)
	s := Summary{N: n, Passes: c, K: n, FlipRate: FlipRate(passed), Flaky: Flaky(passed)}
	s.Low, s.High = Wilson(c, n, Z95)
	if n > 0 {
		s.PassAt1 = float64(c) / float64(n)
		s.PassAtK = PassAtK(n, c, n)
		s.PassHatK = PassHatK(n, c, n)
	}
	return s
}

// Verdict is the gate's answer for a case or a suite.
type Verdict string

// The gate's verdicts.
const (
	Pass         Verdict = "PASS"
	Fail         Verdict = "FAIL"
	Inconclusive Verdict = "INCONCLUSIVE"
)

// DiffInterval is Newcombe's hybrid score interval (his method 10) of the
// difference of pass rates c1/n1 - c0/n0 (candidate minus baseline), at
// 95 %.
func DiffInterval(c1, n1, c0, n0 int) (lo, hi float64) {
	l1, u1 := Wilson(c1, n1, Z95)
	l0, u0 := Wilson(c0, n0, Z95)
	p1, p0 := rate(c1, n1), rate(c0, n0)
	d := p1 - p0
	lo = d - math.Sqrt((p1-l1)*(p1-l1)+(u0-p0)*(u0-p0))
	hi = d + math.Sqrt((u1-p1)*(u1-p1)+(p0-l0)*(p0-l0))
	return lo, hi
}

func rate(c, n int) float64 {
	if n == 0 {
		return 0
	}
	return float64(c) / float64(n)
}

// Gate compares a candidate's interval of difference [lo, hi] from its
// baseline with a margin m >= 0: FAIL when the whole interval lies below
// -m (worse beyond the margin, surely), PASS when it lies above -m (not
// worse beyond the margin, surely), INCONCLUSIVE when it holds -m.
func Gate(lo, hi, margin float64) Verdict {
	switch {
	case hi < -margin:
		return Fail
	case lo > -margin:
		return Pass
	default:
		return Inconclusive
	}
}

// Text is the summary in one line for people.
func (s Summary) Text() string {
	t := fmt.Sprintf("samples: %d of %d passed; pass@1 %s, 95%% Wilson [%.4f, %.4f]; pass@%d %s; pass^%d %s; flip rate %s",
		s.Passes, s.N, num(s.PassAt1), s.Low, s.High, s.K, num(s.PassAtK), s.K, num(s.PassHatK), num(s.FlipRate))
	if s.Flaky {
		t += "; FLAKY"
	}
	return t
}

// num is f in at most 4 decimals, without trailing zeros.
func num(f float64) string {
	return strconv.FormatFloat(math.Round(f*1e4)/1e4, 'f', -1, 64)
}

// Suite sums up the samples of a suite's cases (those with N > 0):
// pass@1, pass@k and pass^k are the means over the cases (each case's own
// k); N and Passes pool every sample, and the Wilson interval is that
// pooled rate's (as if every sample of every case were independent); the
// flip rate pools the consecutive pairs of every case; Flaky names the
// flaky cases.
type Suite struct {
	Cases    int      `json:"cases"`
	N        int      `json:"n"`
	Passes   int      `json:"passes"`
	PassAt1  float64  `json:"pass_at_1"`
	PassAtK  float64  `json:"pass_at_k"`
	PassHatK float64  `json:"pass_hat_k"`
	FlipRate float64  `json:"flip_rate"`
	Low      float64  `json:"interval_low"`
	High     float64  `json:"interval_high"`
	Flaky    []string `json:"flaky"`
}

// SumSuite is the Suite of cases named ids; nil when none has samples.
func SumSuite(cases []Summary, ids []string) *Suite {
	s := &Suite{Flaky: []string{}}
	pairs, flips := 0, 0.0
	for i, cs := range cases {
		if cs.N == 0 {
			continue
		}
		s.Cases++
		s.N += cs.N
		s.Passes += cs.Passes
		s.PassAt1 += cs.PassAt1
		s.PassAtK += cs.PassAtK
		s.PassHatK += cs.PassHatK
		pairs += cs.N - 1
		flips += cs.FlipRate * float64(cs.N-1)
		if cs.Flaky {
			s.Flaky = append(s.Flaky, ids[i])
		}
	}
	if s.Cases == 0 {
		return nil
	}
	n := float64(s.Cases)
	s.PassAt1, s.PassAtK, s.PassHatK = s.PassAt1/n, s.PassAtK/n, s.PassHatK/n
	if pairs > 0 {
		s.FlipRate = math.Round(flips) / float64(pairs)
	}
	s.Low, s.High = Wilson(s.Passes, s.N, Z95)
	return s
}

// Lines is the suite's summary for people: one line, and one naming the
// flaky cases when there are any.
func (s *Suite) Lines() []string {
	lines := []string{fmt.Sprintf("SAMPLES %d of %d samples passed over %d cases; pass@1 %s, 95%% Wilson [%.4f, %.4f]; mean pass@k %s; mean pass^k %s; flip rate %s",
		s.Passes, s.N, s.Cases, num(s.PassAt1), s.Low, s.High, num(s.PassAtK), num(s.PassHatK), num(s.FlipRate))}
	if len(s.Flaky) > 0 {
		lines = append(lines, "FLAKY (passed and failed within their samples): "+strings.Join(s.Flaky, ", "))
	}
	return lines
}

// MeanScore is the mean of the samples' scores with its 95 % percentile
// bootstrap interval (BootstrapMean).
type MeanScore struct {
	N      int     `json:"n"`
	Mean   float64 `json:"mean"`
	Low    float64 `json:"interval_low"`
	High   float64 `json:"interval_high"`
	Seed   int     `json:"bootstrap_seed"`
	Rounds int     `json:"bootstrap_rounds"`
}

// MeanOf is the MeanScore of xs; ok is false when xs is empty.
func MeanOf(xs []float64) (m MeanScore, ok bool) {
	if len(xs) == 0 {
		return m, false
	}
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	m = MeanScore{N: len(xs), Mean: sum / float64(len(xs)), Seed: BootstrapSeed, Rounds: BootstrapRounds}
	m.Low, m.High = BootstrapMean(xs)
	return m, true
}

// Text is the mean score in words for people.
func (m MeanScore) Text() string {
	return fmt.Sprintf("mean score over %d samples %s, 95%% bootstrap [%.4f, %.4f]", m.N, num(m.Mean), m.Low, m.High)
}
