// The comparison: per criterion, each run's mean score and pass rate and
// their change.

package scorediff

import (
	"math"
	"slices"
)

// Report compares Old (the baseline) with New.
type Report struct {
	Old, New *Run
	// Criteria are in the order they first appear, Old's first.
	Criteria []Criterion `json:"criteria"`
	// Cases is the pass rate of whole cases (final_eval_status).
	Cases Change `json:"cases"`
}

// Criterion is one criterion's figures in both runs.
type Criterion struct {
	Name string `json:"name"`
	// Informational: no threshold in either run, so no pass rate.
	Informational bool   `json:"informational,omitempty"`
	Old           *Stats `json:"old"` // nil when the run does not have it
	New           *Stats `json:"new"`
	Change        Change `json:"change"`
}

// Stats are a criterion's figures over one run's cases.
type Stats struct {
	// Mean is the mean of the scores of the cases that have one; nil when
	// none has.
	Mean   *float64 `json:"mean"`
	Scored int      `json:"scored"`
	Passed int      `json:"passed"`
	// Cases is how many cases have the criterion.
	Cases int `json:"cases"`
	// PassRate is Passed / Cases; nil for an informational criterion or
	// no case.
	PassRate *float64 `json:"pass_rate"`
}

// Change is New minus Old; nil when either side has no value.
type Change struct {
	Mean *float64 `json:"mean,omitempty"`
	// PassRate is in fractions (0.25 = 25 percentage points).
	PassRate *float64 `json:"pass_rate,omitempty"`
	Old      *Stats   `json:"old,omitempty"`
	New      *Stats   `json:"new,omitempty"`
}

// Compare computes the report.
func Compare(old, new *Run) *Report {
	r := &Report{Old: old, New: new}
	var names []string
	for _, run := range []*Run{old, new} {
		for _, c := range run.Cases {
			for _, m := range c.Metrics {
				if !slices.Contains(names, m.Name) {
					names = append(names, m.Name)
				}
			}
		}
	}
	for _, name := range names {
		o, oInfo := stats(old, name)
		n, nInfo := stats(new, name)
		cr := Criterion{Name: name, Old: o, New: n, Informational: oInfo && nInfo}
		cr.Change = change(o, n)
		if cr.Informational {
			cr.Change.PassRate = nil
		}
		r.Criteria = append(r.Criteria, cr)
	}
	r.Cases = change(caseStats(old), caseStats(new))
	r.Cases.Old, r.Cases.New = caseStats(old), caseStats(new)
	return r
}

// stats are name's figures in run (nil when no case has it) and whether
// every case reports it as informational.
func stats(run *Run, name string) (*Stats, bool) {
	s := &Stats{}
	info := true
	sum := 0.0
	for _, c := range run.Cases {
		for _, m := range c.Metrics {
			if m.Name != name {
				continue
			}
			s.Cases++
			info = info && m.Informational
			if m.Score != nil && !math.IsNaN(*m.Score) && !math.IsInf(*m.Score, 0) {
				sum += *m.Score
				s.Scored++
			}
			if m.Status == passed {
				s.Passed++
			}
		}
	}
	if s.Cases == 0 {
		return nil, true
	}
	if s.Scored > 0 {
		s.Mean = float(sum / float64(s.Scored))
	}
	if !info {
		s.PassRate = float(float64(s.Passed) / float64(s.Cases))
	}
	return s, info
}

func caseStats(run *Run) *Stats {
	s := &Stats{Cases: len(run.Cases)}
	for _, c := range run.Cases {
		if c.Status == passed {
			s.Passed++
		}
	}
	if s.Cases > 0 {
		s.PassRate = float(float64(s.Passed) / float64(s.Cases))
	}
	return s
}

func change(o, n *Stats) Change {
	var c Change
	if o == nil || n == nil {
		return c
	}
	if o.Mean != nil && n.Mean != nil {
		c.Mean = float(*n.Mean - *o.Mean)
	}
	if o.PassRate != nil && n.PassRate != nil {
		c.PassRate = float(*n.PassRate - *o.PassRate)
	}
	return c
}

func float(f float64) *float64 { return &f }
