package scorediff

import (
	"os"
	"path/filepath"
	"testing"
)

// Whatever a result file holds, reading and comparing it never panics, and
// a file that reads is one IsResultFile recognises.
func FuzzLoad(f *testing.F) {
	f.Add([]byte(`{"label": "a", "eval_case_results": [{"eval_id": "x", "final_eval_status": 1,
	  "overall_eval_metric_results": [{"metric_name": "m", "score": 0.5, "eval_status": 2.0, "details": {"informational": true}}]}]}`))
	f.Add([]byte(`"{\"evalCaseResults\": [{\"evalId\": \"x\", \"finalEvalStatus\": \"PASSED\"}]}"`))
	f.Add([]byte(`{"eval_case_results": [{"overall_eval_metric_results": [{"metric_name": "m", "eval_status": "INFORMATIONAL", "score": 1e308}]}]}`))
	f.Add([]byte(`{}`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "r.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		run, err := Load(path)
		if err != nil {
			return
		}
		if !IsResultFile(path) {
			t.Errorf("Load read %q but IsResultFile says no", data)
		}
		r := Compare(run, run)
		for _, c := range r.Criteria {
			if c.Change.Mean != nil && *c.Change.Mean != 0 {
				t.Errorf("a run against itself changed %s by %v", c.Name, *c.Change.Mean)
			}
		}
		for _, w := range []func(*Report) error{func(r *Report) error { return WriteText(discard{}, r) },
			func(r *Report) error { return WriteJSON(discard{}, r) }, func(r *Report) error { return WriteMarkdown(discard{}, r) }} {
			if err := w(r); err != nil {
				t.Error(err)
			}
		}
	})
}

type discard struct{}

func (discard) Write(b []byte) (int, error) { return len(b), nil }
