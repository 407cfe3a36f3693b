package scoring

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"testing"
)

// engHelperArg makes the test binary act as a custom metric command:
// `scoring.test adkproxy-test-custom-metric MODE` (see engCustomMetric).
const engHelperArg = "adkproxy-test-custom-metric"

func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == engHelperArg {
		os.Exit(engCustomMetric(os.Args[2]))
	}
	os.Exit(m.Run())
}

// engCustomMetric is a custom metric written against ADK's JSON shapes:
// "tools" scores each invocation 1 when its tool_uses equal the expected
// ones (names and args), "inspect" returns what it was given in details,
// "env" returns its environment and working directory.
func engCustomMetric(mode string) int {
	var in struct {
		EvalMetric struct {
			MetricName string         `json:"metric_name"`
			Threshold  float64        `json:"threshold"`
			Criterion  map[string]any `json:"criterion"`
		} `json:"eval_metric"`
		Actual   []map[string]any `json:"actual_invocations"`
		Expected []map[string]any `json:"expected_invocations"`
	}
	raw, err := io.ReadAll(os.Stdin)
	if err != nil || json.Unmarshal(raw, &in) != nil {
		fmt.Fprintln(os.Stderr, "bad input")
		return 2
	}
	out := map[string]any{}
	switch mode {
	case "tools":
		var per []map[string]any
		sum := 0.0
		for i, a := range in.Actual {
			score := 0.0
			got, _ := json.Marshal(withoutIDs(a["intermediate_data"].(map[string]any)["tool_uses"]))
			want, _ := json.Marshal(withoutIDs(in.Expected[i]["intermediate_data"].(map[string]any)["tool_uses"]))
			r := map[string]any{"score": 0.0, "reason": fmt.Sprintf("got %s, want %s", got, want)}
			if string(got) == string(want) {
				score = 1
				r = map[string]any{"score": 1.0}
			}
			sum += score
			per = append(per, r)
		}
		out["overall_score"] = sum / float64(len(in.Actual))
		out["per_invocation_results"] = per
		out["details"] = map[string]any{"metric": in.EvalMetric.MetricName, "threshold": in.EvalMetric.Threshold}
	case "inspect":
		var doc any
		_ = json.Unmarshal(raw, &doc)
		out["overall_score"] = 1.0
		out["details"] = map[string]any{"input": doc}
	case "env":
		wd, _ := os.Getwd()
		out["overallScore"] = nil
		out["overallEvalStatus"] = "NOT_EVALUATED"
		out["details"] = map[string]any{"metric": os.Getenv("ADKPROXY_METRIC"), "case": os.Getenv("ADKPROXY_CASE"), "wd": wd}
	default:
		return 2
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		return 1
	}
	return 0
}

// withoutIDs drops the ids of tool calls, which ADK never compares.
func withoutIDs(calls any) any {
	list, _ := calls.([]any)
	for _, c := range list {
		delete(c.(map[string]any), "id")
	}
	return list
}
