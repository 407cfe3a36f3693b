// Python's statistics.mean for float64s: the exact sum divided by n,
// rounded once.

package judge

import "math/big"

// mean is statistics.mean: sum exactly, divide exactly, round once to the
// nearest float64. mean(0.1, 0.2, 0.4) = 0.23333333333333334, where the
// running float sum divided by 3 gives …336. ok is false for no values.
func mean(xs []float64) (m float64, ok bool) {
	if len(xs) == 0 {
		return 0, false
	}
	var sum big.Rat
	var x big.Rat
	for _, f := range xs {
		sum.Add(&sum, x.SetFloat64(f))
	}
	sum.Quo(&sum, new(big.Rat).SetInt64(int64(len(xs))))
	m, _ = sum.Float64()
	return m, true
}

// meanOf is mean of the non-nil scores; nil when there are none.
func meanOf(scores []*float64) *float64 {
	var xs []float64
	for _, s := range scores {
		if s != nil {
			xs = append(xs, *s)
		}
	}
	if m, ok := mean(xs); ok {
		return &m
	}
	return nil
}

// majority is ADK's vote over samples scored 1.0 or 0.0: 1.0 when more
// samples say 1.0 than 0.0, else 0.0 (a tie counts as negative); nil when
// no sample gave a score.
func majority(scores []*float64) *float64 {
	yes, no := 0, 0
	for _, s := range scores {
		switch {
		case s == nil:
		case *s == 1:
			yes++
		default:
			no++
		}
	}
	switch {
	case yes+no == 0:
		return nil
	case yes > no:
		return ptr(1.0)
	}
	return ptr(0.0)
}

func ptr(f float64) *float64 { return &f }
