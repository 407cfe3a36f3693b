package scoring

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"

	junit "github.com/joshdk/go-junit"
)

func TestOutputJUnit(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJUnit(&b, outSampleResult()); err != nil {
		t.Fatal(err)
	}
	suites, err := junit.Ingest(b.Bytes())
	if err != nil {
		t.Fatalf("go-junit cannot read it: %v\n%s", err, b.String())
	}
	if len(suites) != 1 {
		t.Fatalf("%d suites\n%s", len(suites), b.String())
	}
	s := suites[0]
	s.Aggregate()
	// 4 + 2 metrics, plus one testcase for the case failed as a whole.
	if s.Name != "weather" || s.Totals.Tests != 7 || s.Totals.Passed != 4 || s.Totals.Failed != 3 || s.Totals.Error != 0 || s.Totals.Skipped != 0 {
		t.Errorf("suite %q totals %+v\n%s", s.Name, s.Totals, b.String())
	}
	byName := map[string]junit.Test{}
	for _, tc := range s.Tests {
		if tc.Classname != "weather" {
			t.Errorf("classname %q", tc.Classname)
		}
		byName[tc.Name] = tc
	}
	traj := byName["default / tool_trajectory_avg_score"]
	if traj.Status != junit.StatusFailed || traj.Message != `invocation 2: expected get_weather(city="London"), got get_weather(city="Paris")` {
		t.Errorf("trajectory %+v", traj)
	}
	if e, ok := traj.Error.(junit.Error); !ok || e.Type != "FAILED" || !strings.HasPrefix(e.Body, "score 0.5, threshold 1: FAILED\ninvocation 2: expected") {
		t.Errorf("trajectory failure %#v", traj.Error)
	}
	// NOT_EVALUATED fails the run, so it is a failure, typed NOT_EVALUATED.
	safety := byName["default / safety_v1"]
	if e, ok := safety.Error.(junit.Error); safety.Status != junit.StatusFailed || !ok || e.Type != "NOT_EVALUATED" ||
		safety.Message != "safety_v1 needs Vertex AI; not computable offline" {
		t.Errorf("safety %+v", safety)
	}
	for _, name := range []string{"default / response_match_score", "default / latency_ms", "default/2 / tool_trajectory_avg_score"} {
		if byName[name].Status != junit.StatusPassed {
			t.Errorf("%s: %+v", name, byName[name])
		}
	}
	// An informational metric decides nothing: it passes and shows its score.
	if tc := byName["default/2 / total_tokens"]; tc.Status != junit.StatusPassed || tc.SystemOut != "informational: score 63" {
		t.Errorf("informational %+v", tc)
	}
	if tc := byName["other"]; tc.Status != junit.StatusFailed || tc.Message != "1 invocation recorded, 2 expected" {
		t.Errorf("case failure %+v", tc)
	}
	if !strings.Contains(s.SystemErr, `eval case "missing"`) {
		t.Errorf("system-err %q", s.SystemErr)
	}
	// The count attributes agree with the testcases.
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Errors   int `xml:"errors,attr"`
		Skipped  int `xml:"skipped,attr"`
		Suites   []struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
			Errors   int `xml:"errors,attr"`
			Skipped  int `xml:"skipped,attr"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Tests != 7 || doc.Failures != 3 || doc.Errors != 0 || doc.Skipped != 0 || len(doc.Suites) != 1 ||
		doc.Suites[0].Tests != 7 || doc.Suites[0].Failures != 3 || doc.Suites[0].Errors != 0 || doc.Suites[0].Skipped != 0 {
		t.Errorf("counts %+v", doc)
	}
}

func TestOutputJUnitPassingAndAwkward(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJUnit(&b, outPassingResult()); err != nil {
		t.Fatal(err)
	}
	suites, err := junit.Ingest(b.Bytes())
	if err != nil || len(suites) != 1 {
		t.Fatalf("%v %v", err, suites)
	}
	suites[0].Aggregate()
	if suites[0].Totals.Tests != 2 || suites[0].Totals.Passed != 2 || strings.Contains(b.String(), "system-err") {
		t.Errorf("totals %+v\n%s", suites[0].Totals, b.String())
	}
	// No eval set id, characters XML must escape or cannot carry, a case
	// with no metric at all.
	r := &Result{Cases: []CaseResult{
		{Case: &Case{ID: `a<b>&"c"` + "\x01"}, Status: Failed, Metrics: []MetricResult{{Metric: "m", Score: Float(0), Threshold: 1, Status: Failed, Reason: "<&>\x00"}}},
		{Case: &Case{ID: "empty"}, Status: NotEvaluated},
		{Case: &Case{ID: "info only"}, Status: NotEvaluated, Metrics: []MetricResult{{Metric: "cost_usd", Score: Float(0.01), Status: NotEvaluated, Informational: true}}},
	}}
	b.Reset()
	if err := WriteJUnit(&b, r); err != nil {
		t.Fatal(err)
	}
	suites, err = junit.Ingest(b.Bytes())
	if err != nil || len(suites) != 1 {
		t.Fatalf("%v\n%s", err, b.String())
	}
	suites[0].Aggregate()
	if suites[0].Name != "adkproxy" || suites[0].Totals.Tests != 4 || suites[0].Totals.Failed != 3 || suites[0].Totals.Passed != 1 {
		t.Errorf("suite %+v\n%s", suites[0], b.String())
	}
	if tc := suites[0].Tests[0]; tc.Classname != "adkproxy" || tc.Name != "a<b>&\"c\"\uFFFD / m" || tc.Message != "<&>\uFFFD" {
		t.Errorf("escaped testcase %+v", tc)
	}
	// A case that is not PASSED with no criterion saying why still fails.
	for _, i := range []int{1, 2} {
		if e, _ := suites[0].Tests[i].Error.(junit.Error); suites[0].Tests[i].Name != []string{"", "empty", "info only"}[i] || e.Type != "NOT_EVALUATED" {
			t.Errorf("case without criteria %+v", suites[0].Tests[i])
		}
	}
}
