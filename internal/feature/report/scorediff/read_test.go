package scorediff

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// A result file reads the same whichever spelling its keys have:
// snake_case as adkproxy and ADK write them, camelCase as ADK's pydantic
// models also accept (and ADK up to 1.21 wrote, double encoded), or a mix.
func TestLoadReadsSnakeAndCamelKeysAlike(t *testing.T) {
	snake := `{"label": "exp", "eval_case_results": [
	  {"eval_id": "a", "final_eval_status": 1, "overall_eval_metric_results": [
	    {"metric_name": "m", "score": 0.5, "eval_status": 1.0},
	    {"metric_name": "tokens", "score": 60, "eval_status": "NOT_EVALUATED", "details": {"informational": true}}]},
	  {"eval_id": "b", "final_eval_status": "FAILED", "overall_eval_metric_results": [
	    {"metric_name": "m", "score": null, "eval_status": "INFORMATIONAL"}]}]}`
	camel := strings.NewReplacer("eval_case_results", "evalCaseResults", "eval_id", "evalId", "final_eval_status", "finalEvalStatus",
		"overall_eval_metric_results", "overallEvalMetricResults", "metric_name", "metricName", "eval_status", "evalStatus").Replace(snake)
	doubled, _ := json.Marshal(camel)
	// Mixed spellings; where a key has both, the camelCase one counts, as
	// in ADK's models.
	mixed := strings.Replace(camel, `"evalId": "b"`, `"eval_id": "b"`, 1)
	mixed = strings.Replace(mixed, `"evalId": "a"`, `"eval_id": "not this one", "evalId": "a"`, 1)
	want := &Run{Label: "exp", Cases: []Case{
		{ID: "a", Status: 1, Metrics: []Metric{{Name: "m", Score: ptr(0.5), Status: 1}, {Name: "tokens", Score: ptr(60), Status: 3, Informational: true}}},
		{ID: "b", Status: 2, Metrics: []Metric{{Name: "m", Status: 0, Informational: true}}},
	}}
	dir := t.TempDir()
	for name, doc := range map[string]string{"snake": snake, "camel": camel, "double-encoded": string(doubled), "mixed": mixed} {
		path := filepath.Join(dir, name+".json")
		os.WriteFile(path, []byte(doc), 0o644)
		if !IsResultFile(path) {
			t.Errorf("%s: not recognised as a result file", name)
		}
		got, err := Load(path)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		got.Path = ""
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: read %+v, want %+v", name, *got, *want)
		}
	}
}

func ptr(f float64) *float64 { return &f }
