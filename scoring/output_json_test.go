package scoring

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"
)

func outDecode(t *testing.T, data []byte) map[string]any {
	t.Helper()
	if len(data) == 0 || data[0] != '{' {
		t.Fatalf("not a plain JSON object (ADK's double encoding?): %.40q", data)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

func outKeys(m any) []string {
	var keys []string
	for k := range m.(map[string]any) {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// outAt walks a decoded JSON document: string keys and int indexes.
func outAt(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch p := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("%v: not an object at %q", path, p)
			}
			v = m[p]
		case int:
			l, ok := v.([]any)
			if !ok || p >= len(l) {
				t.Fatalf("%v: no element %d", path, p)
			}
			v = l[p]
		}
	}
	return v
}

func TestOutputJSONIsADKEvalSetResult(t *testing.T) {
	var b bytes.Buffer
	err := JSONOptions{ResultID: "weather_run_1", Name: "run 1", Created: time.Unix(1700000000, 250000000)}.Write(&b, outSampleResult())
	if err != nil {
		t.Fatal(err)
	}
	doc := outDecode(t, b.Bytes())
	if got := outKeys(doc); !reflect.DeepEqual(got, []string{"creation_timestamp", "eval_case_results", "eval_set_id", "eval_set_result_id", "eval_set_result_name"}) {
		t.Errorf("top-level keys %v", got)
	}
	if doc["eval_set_result_id"] != "weather_run_1" || doc["eval_set_result_name"] != "run 1" || doc["eval_set_id"] != "weather" ||
		doc["creation_timestamp"] != 1700000000.25 {
		t.Errorf("header %v", doc)
	}
	c := outAt(t, doc, "eval_case_results", 0)
	if got := outKeys(c); !reflect.DeepEqual(got, []string{"eval_id", "eval_metric_result_per_invocation", "eval_metric_results",
		"eval_set_file", "eval_set_id", "final_eval_status", "overall_eval_metric_results", "session_details", "session_id", "user_id"}) {
		t.Errorf("case keys %v", got)
	}
	if outAt(t, c, "eval_id") != "default" || outAt(t, c, "final_eval_status") != 2.0 || outAt(t, c, "session_id") != "default/1" ||
		outAt(t, c, "eval_set_file") != "weather" || len(outAt(t, c, "eval_metric_results").([]any)) != 0 {
		t.Errorf("case %v", c)
	}
	// Overall results: statuses as ADK's integers, extras in details.
	overall := outAt(t, c, "overall_eval_metric_results").([]any)
	want := []struct {
		name      string
		threshold any
		score     any
		status    float64
		details   map[string]any
	}{
		{"tool_trajectory_avg_score", 1.0, 0.5, 2, map[string]any{"reason": `invocation 2: expected get_weather(city="London"), got get_weather(city="Paris")`}},
		{"response_match_score", 0.8, 0.8571428571428571, 1, map[string]any{}},
		{"latency_ms", 5000.0, 1.455, 1, map[string]any{"max": true}},
		{"safety_v1", 0.8, nil, 3, map[string]any{"kept": "as is", "reason": "safety_v1 needs Vertex AI; not computable offline"}},
	}
	if len(overall) != len(want) {
		t.Fatalf("overall %v", overall)
	}
	for i, w := range want {
		m := overall[i].(map[string]any)
		if m["metric_name"] != w.name || m["threshold"] != w.threshold || m["score"] != w.score || m["eval_status"] != w.status ||
			!reflect.DeepEqual(m["details"], w.details) {
			t.Errorf("overall[%d] = %v, want %+v", i, m, w)
		}
	}
	// Per invocation: the actual and expected invocation as ADK writes them,
	// and each metric's verdict on that invocation.
	per := outAt(t, c, "eval_metric_result_per_invocation").([]any)
	if len(per) != 2 {
		t.Fatalf("per invocation %v", per)
	}
	actual := outAt(t, per[0], "actual_invocation")
	if got := outKeys(actual); !reflect.DeepEqual(got, []string{"creation_timestamp", "final_response", "intermediate_data", "invocation_id", "user_content"}) {
		t.Errorf("invocation keys %v", got)
	}
	wantActual := map[string]any{
		"invocation_id":  "default/1/1",
		"user_content":   map[string]any{"parts": []any{map[string]any{"text": "What is the weather in Paris?"}}, "role": "user"},
		"final_response": map[string]any{"parts": []any{map[string]any{"text": "It is 18°C in Paris, clear."}}, "role": "model"},
		"intermediate_data": map[string]any{
			"tool_uses":              []any{map[string]any{"id": "call-1", "name": "get_weather", "args": map[string]any{"city": "Paris"}}},
			"tool_responses":         []any{map[string]any{"name": "get_weather", "response": map[string]any{"city": "Paris", "temp_c": 18.0}}},
			"intermediate_responses": []any{[]any{"agent", []any{map[string]any{"text": "Let me check."}}}},
		},
		"creation_timestamp": 0.0,
	}
	if !reflect.DeepEqual(actual, wantActual) {
		t.Errorf("actual invocation\n%v\nwant\n%v", actual, wantActual)
	}
	if outAt(t, per[1], "expected_invocation", "intermediate_data", "tool_uses", 0, "args", "city") != "London" {
		t.Errorf("expected invocation %v", outAt(t, per[1], "expected_invocation"))
	}
	inv2 := outAt(t, per[1], "eval_metric_results").([]any)
	if len(inv2) != 2 || outAt(t, inv2[0], "metric_name") != "tool_trajectory_avg_score" || outAt(t, inv2[0], "score") != 0.0 ||
		outAt(t, inv2[0], "eval_status") != 2.0 || outAt(t, inv2[0], "details", "reason") != `invocation 2: expected get_weather(city="London"), got get_weather(city="Paris")` {
		t.Errorf("invocation 2 results %v", inv2)
	}
	// ADK requires a criterion's threshold: a maximum gets one.
	if c := outAt(t, overall[2], "criterion"); !reflect.DeepEqual(c, map[string]any{"max": 5000.0, "threshold": 5000.0}) {
		t.Errorf("criterion of a maximum: %v", c)
	}
	// Criterion as configured; informational metrics have no threshold; a
	// case keeps the eval set its expectation came from.
	second := outAt(t, doc, "eval_case_results", 1)
	if outAt(t, second, "eval_set_id") != "weather_extra" ||
		!reflect.DeepEqual(outAt(t, second, "overall_eval_metric_results", 0, "criterion"), map[string]any{"threshold": 1.0, "match_type": 0.0}) {
		t.Errorf("second case %v", second)
	}
	info := outAt(t, second, "overall_eval_metric_results", 1)
	if _, has := info.(map[string]any)["criterion"]; has || outAt(t, info, "threshold") != nil || outAt(t, info, "score") != 63.0 ||
		outAt(t, info, "eval_status") != 3.0 || !reflect.DeepEqual(outAt(t, info, "details"), map[string]any{"informational": true}) {
		t.Errorf("informational metric %v", info)
	}
	// A case failed as a whole says why in the case's details.
	other := outAt(t, doc, "eval_case_results", 2)
	if outAt(t, other, "details", "case_failure") != "1 invocation recorded, 2 expected" || outAt(t, other, "final_eval_status") != 2.0 ||
		len(outAt(t, other, "overall_eval_metric_results").([]any)) != 0 {
		t.Errorf("failed case %v", other)
	}
}

func TestOutputJSONDefaultsAndEdges(t *testing.T) {
	r := &Result{Cases: []CaseResult{{Case: &Case{ID: "x", Actual: []Invocation{{UserText: "hi"}}}, Status: NotEvaluated,
		Metrics: []MetricResult{{Metric: "odd", Score: Float(math.NaN()), Threshold: math.Inf(1), Status: EvalStatus(7)}}}}}
	var b bytes.Buffer
	if err := (JSONOptions{Created: time.Unix(1700000000, 500000000)}).Write(&b, r); err != nil {
		t.Fatal(err)
	}
	doc := outDecode(t, b.Bytes())
	// ADK's id is f"{app}_{eval_set_id}_{time.time()}"; there is no app here.
	if doc["eval_set_result_id"] != "adkproxy_adkproxy_1700000000.5" || doc["eval_set_result_name"] != "adkproxy_adkproxy_1700000000.5" {
		t.Errorf("ids %v %v", doc["eval_set_result_id"], doc["eval_set_result_name"])
	}
	m := outAt(t, doc, "eval_case_results", 0, "overall_eval_metric_results", 0)
	if outAt(t, m, "score") != nil || outAt(t, m, "threshold") != nil || outAt(t, m, "eval_status") != 3.0 {
		t.Errorf("non-finite numbers and unknown statuses: %v", m)
	}
	inv := outAt(t, doc, "eval_case_results", 0, "eval_metric_result_per_invocation", 0)
	if outAt(t, inv, "expected_invocation") != nil || outAt(t, inv, "actual_invocation", "final_response") != nil ||
		outAt(t, inv, "actual_invocation", "intermediate_data", "tool_uses") == nil {
		t.Errorf("invocation without expectation or answer: %v", inv)
	}
	// Without options the clock is used.
	b.Reset()
	before := float64(time.Now().Unix())
	if err := WriteJSON(&b, &Result{EvalSetID: "s/1"}); err != nil {
		t.Fatal(err)
	}
	doc = outDecode(t, b.Bytes())
	if ts := doc["creation_timestamp"].(float64); ts < before || ts > before+60 {
		t.Errorf("creation_timestamp %v", ts)
	}
	if id, name := doc["eval_set_result_id"].(string), doc["eval_set_result_name"].(string); !strings.HasPrefix(id, "adkproxy_s/1_") || !strings.HasPrefix(name, "adkproxy_s_1_") {
		t.Errorf("id %q name %q", id, name)
	}
	if cases := doc["eval_case_results"].([]any); len(cases) != 0 {
		t.Errorf("cases %v", cases)
	}
}
