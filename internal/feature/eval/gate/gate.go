// Package gate compares a score result with a baseline result (score
// --baseline): each case and the suite PASS, FAIL or are INCONCLUSIVE by
// whether the 95 % interval of the difference of their pass rates lies
// clear of -margin (samplestat.DiffInterval, samplestat.Gate). Both sides
// are read from ADK's EvalSetResult JSON, so a baseline may be an older
// adkproxy result or one adk eval wrote. docs/variance.md states the rule.
package gate

import (
	"encoding/json"
	"fmt"

	"github.com/adkproxy/adkproxy/internal/base/samplestat"
)

// Side is what one result says of a case: its runs, how many passed,
// whether they disagreed.
type Side struct {
	N      int  `json:"n"`
	Passes int  `json:"passes"`
	Flaky  bool `json:"flaky"`
}

// Row is the gate's verdict on a case (or, for Report.Suite, the suite):
// the interval of the candidate's pass rate minus the baseline's.
type Row struct {
	EvalSetID string             `json:"eval_set_id,omitempty"`
	EvalID    string             `json:"eval_id,omitempty"`
	Baseline  Side               `json:"baseline"`
	Candidate Side               `json:"candidate"`
	Diff      float64            `json:"difference"`
	Low       float64            `json:"interval_low"`
	High      float64            `json:"interval_high"`
	Verdict   samplestat.Verdict `json:"verdict"`
}

// Report is the whole comparison.
type Report struct {
	Margin float64 `json:"margin"`
	Cases  []Row   `json:"cases"`
	Suite  Row     `json:"suite"`
	// OnlyBaseline and OnlyCandidate name the cases one side lacks; they
	// are not gated.
	OnlyBaseline  []string `json:"only_in_baseline"`
	OnlyCandidate []string `json:"only_in_candidate"`
	// Flaky names the candidate's cases that both passed and failed
	// within their samples.
	Flaky []string `json:"flaky"`
}

// Verdict is the run's: FAIL when the suite or any case FAILs, else the
// suite's (a case INCONCLUSIVE alone does not make the run so: with few
// samples most cases are).
func (r *Report) Verdict() samplestat.Verdict {
	if r.Suite.Verdict == samplestat.Fail {
		return samplestat.Fail
	}
	for _, c := range r.Cases {
		if c.Verdict == samplestat.Fail {
			return samplestat.Fail
		}
	}
	return r.Suite.Verdict
}

// Compare gates candidate against baseline, both EvalSetResult JSON
// documents, with margin in [0, 1): how much lower a pass rate may be and
// still PASS.
func Compare(baseline, candidate []byte, margin float64) (*Report, error) {
	if margin < 0 || margin >= 1 || margin != margin {
		return nil, fmt.Errorf("margin %g: want a difference of pass rates from 0 up to 1 (0.05 is five points)", margin)
	}
	base, err := sidesOf(baseline)
	if err != nil {
		return nil, fmt.Errorf("the baseline: %w", err)
	}
	cand, err := sidesOf(candidate)
	if err != nil {
		return nil, fmt.Errorf("the candidate: %w", err)
	}
	r := &Report{Margin: margin, Cases: []Row{}, OnlyBaseline: []string{}, OnlyCandidate: []string{}, Flaky: []string{}}
	var pooledB, pooledC Side
	for _, k := range cand.order {
		c := cand.sides[k]
		if c.Flaky {
			r.Flaky = append(r.Flaky, k.String())
		}
		b, ok := base.sides[k]
		if !ok {
			r.OnlyCandidate = append(r.OnlyCandidate, k.String())
			continue
		}
		r.Cases = append(r.Cases, row(k, b, c, margin))
		pooledB.N, pooledB.Passes = pooledB.N+b.N, pooledB.Passes+b.Passes
		pooledC.N, pooledC.Passes = pooledC.N+c.N, pooledC.Passes+c.Passes
	}
	for _, k := range base.order {
		if _, ok := cand.sides[k]; !ok {
			r.OnlyBaseline = append(r.OnlyBaseline, k.String())
		}
	}
	if len(r.Cases) == 0 {
		return nil, fmt.Errorf("no eval case is in both results (candidate: %d cases, baseline: %d); compare results of the same eval set", len(cand.order), len(base.order))
	}
	r.Suite = row(key{}, pooledB, pooledC, margin)
	return r, nil
}

func row(k key, b, c Side, margin float64) Row {
	out := Row{EvalSetID: k.set, EvalID: k.id, Baseline: b, Candidate: c}
	out.Diff = float64(c.Passes)/float64(c.N) - float64(b.Passes)/float64(b.N)
	out.Low, out.High = samplestat.DiffInterval(c.Passes, c.N, b.Passes, b.N)
	out.Verdict = samplestat.Gate(out.Low, out.High, margin)
	return out
}

type key struct{ set, id string }

func (k key) String() string {
	if k.set == "" {
		return k.id
	}
	return k.set + "/" + k.id
}

type sides struct {
	order []key
	sides map[key]Side
}

// resultDoc is what the gate reads of an EvalSetResult.
type resultDoc struct {
	Cases *[]struct {
		EvalSetID string `json:"eval_set_id"`
		EvalID    string `json:"eval_id"`
		Status    int    `json:"final_eval_status"`
		Details   struct {
			Samples *Side `json:"samples"`
		} `json:"details"`
	} `json:"eval_case_results"`
}

// sidesOf reads each case of a result: its samples when it has them, else
// one run passing when its final_eval_status is 1 (PASSED). Results of the
// same case (ADK writes one per run of num_runs) are summed.
func sidesOf(data []byte) (*sides, error) {
	var asString string
	if json.Unmarshal(data, &asString) == nil { // ADK up to v1.21 wrote the document as a JSON string
		data = []byte(asString)
	}
	var doc resultDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("not an EvalSetResult JSON document (adkproxy score --format json, or adk eval's result): %v", err)
	}
	if doc.Cases == nil {
		return nil, fmt.Errorf("no eval_case_results: not an EvalSetResult JSON document (adkproxy score --format json, or adk eval's result)")
	}
	out := &sides{sides: map[key]Side{}}
	for i, c := range *doc.Cases {
		if c.EvalID == "" {
			return nil, fmt.Errorf("eval_case_results[%d] has no eval_id", i)
		}
		s := Side{N: 1}
		if c.Status == 1 {
			s.Passes = 1
		}
		if c.Details.Samples != nil && c.Details.Samples.N > 0 {
			s = *c.Details.Samples
			if s.Passes < 0 || s.Passes > s.N {
				return nil, fmt.Errorf("eval_case_results[%d] (%s): details.samples has %d passes of %d", i, c.EvalID, s.Passes, s.N)
			}
		}
		k := key{c.EvalSetID, c.EvalID}
		prev, seen := out.sides[k]
		if !seen {
			out.order = append(out.order, k)
		}
		if seen {
			s.N, s.Passes = prev.N+s.N, prev.Passes+s.Passes
			s.Flaky = prev.Flaky || s.Flaky || (s.Passes > 0 && s.Passes < s.N)
		}
		out.sides[k] = s
	}
	return out, nil
}
