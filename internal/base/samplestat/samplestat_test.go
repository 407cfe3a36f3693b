package samplestat

import (
	"math"
	"testing"
)

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-9 {
		t.Errorf("%s = %.12f, want %.12f", what, got, want)
	}
}

func TestPassEstimatorsByHand(t *testing.T) {
	// n=5, c=3, k=2: C(5,2)=10, C(2,2)=1, C(3,2)=3.
	near(t, "pass@2", PassAtK(5, 3, 2), 1-1.0/10)
	near(t, "pass^2", PassHatK(5, 3, 2), 3.0/10)
	// k = n: pass^5 is 1 only when every sample passed.
	near(t, "pass^5 of 3/5", PassHatK(5, 3, 5), 0)
	near(t, "pass^5 of 5/5", PassHatK(5, 5, 5), 1)
	near(t, "pass@5 of 1/5", PassAtK(5, 1, 5), 1)
	near(t, "pass@1 of 3/5", PassAtK(5, 3, 1), 0.6)
	if !math.IsNaN(PassAtK(5, 3, 6)) {
		t.Error("k > n must be NaN")
	}
}

func TestWilsonByHand(t *testing.T) {
	// 3 of 5 at z: centre (0.6 + z²/10)/(1+z²/5), half z*sqrt(0.24/5 + z²/100)/(1+z²/5).
	z := Z95
	den := 1 + z*z/5
	mid := (0.6 + z*z/10) / den
	half := z * math.Sqrt(0.24/5+z*z/100) / den
	lo, hi := Wilson(3, 5, z)
	near(t, "low", lo, mid-half)
	near(t, "high", hi, mid+half)
	near(t, "low (published 0.2307)", math.Round(lo*1e4)/1e4, 0.2307)
	near(t, "high (published 0.8824)", math.Round(hi*1e4)/1e4, 0.8824)
	lo, hi = Wilson(0, 0, z)
	near(t, "empty low", lo, 0)
	near(t, "empty high", hi, 1)
}

func TestFlipRateAndFlaky(t *testing.T) {
	s := []bool{true, false, true, true, false}
	near(t, "flip rate", FlipRate(s), 3.0/4)
	if !Flaky(s) || Flaky([]bool{true, true}) || Flaky(nil) {
		t.Error("flaky is wrong")
	}
}

func TestBootstrapIsSeededAndBracketsTheMean(t *testing.T) {
	xs := []float64{0.2, 0.4, 0.9, 1, 0.5}
	lo1, hi1 := BootstrapMean(xs)
	lo2, hi2 := BootstrapMean(xs)
	if lo1 != lo2 || hi1 != hi2 {
		t.Fatal("the bootstrap is not reproducible")
	}
	if !(lo1 < 0.6 && 0.6 < hi1) || lo1 < 0.2 || hi1 > 1 {
		t.Errorf("interval [%v, %v] does not bracket the mean 0.6 inside the data", lo1, hi1)
	}
	lo, hi := BootstrapMean([]float64{0.7})
	near(t, "single low", lo, 0.7)
	near(t, "single high", hi, 0.7)
}

func TestGateGivesEachVerdict(t *testing.T) {
	cases := []struct {
		name           string
		c1, n1, c0, n0 int
		margin         float64
		want           Verdict
	}{
		{"regression", 0, 20, 20, 20, 0, Fail},
		{"improvement", 20, 20, 0, 20, 0, Pass},
		{"too few samples to tell", 4, 5, 5, 5, 0, Inconclusive},
		{"same within a wide margin", 20, 20, 20, 20, 0.2, Pass},
	}
	for _, c := range cases {
		lo, hi := DiffInterval(c.c1, c.n1, c.c0, c.n0)
		if got := Gate(lo, hi, c.margin); got != c.want {
			t.Errorf("%s: [%v, %v] margin %v gives %s, want %s", c.name, lo, hi, c.margin, got, c.want)
		}
	}
}
