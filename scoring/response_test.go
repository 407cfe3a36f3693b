package scoring

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/rouge"
)

func TestResponseMatchScoreHomeAutomation(t *testing.T) {
	exp, err := LoadExpected(filepath.Join("testdata", "evalsets", "home_automation.evalset.json"))
	if err != nil {
		t.Fatal(err)
	}
	actual := []Invocation{{
		UserText:      "Turn off device_2 in the Bedroom.",
		ToolCalls:     []cassettes.ToolCall{engCall("set_device_info", "location", "Bedroom", "device_id", "device_2", "status", "OFF")},
		FinalResponse: "I have turned off device_2.",
	}}
	c := Case{ID: "eval_case_id", Actual: actual, Expected: exp.Cases[0].Invocations}
	cr, ms := engEval(t, `{"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}}`, c)
	// Stemmed tokens: expected i have set the devic 2 statu to off (9),
	// actual i have turn off devic 2 (6); 5 shared: P = 5/6, R = 5/9,
	// F = 2PR/(P+R) = 2/3.
	m := ms[ResponseMatchScore]
	engCheckScores(t, "rouge", m, 2.0/3, 2.0/3)
	if want := rouge.Rouge1("I have set the device_2 status to off.", "I have turned off device_2.", true).FMeasure; *m.Score != want {
		t.Errorf("score %v, Rouge1 says %v", *m.Score, want)
	}
	wantReason := `invocation 1: ROUGE-1 F 0.6667 (precision 0.8333, recall 0.5556): expected "I have set the device_2 status to off.", got "I have turned off device_2."; missing words: set the statu to; extra words: turn`
	if m.PerInvocation[0].Reason != wantReason {
		t.Errorf("reason\n got %s\nwant %s", m.PerInvocation[0].Reason, wantReason)
	}
	if m.Status != Failed || ms[ToolTrajectoryAvgScore].Status != Passed || cr.Status != Failed ||
		!strings.HasPrefix(m.Reason, "response_match_score 0.6667 is below the threshold 0.8: invocation 1: ROUGE-1 F 0.6667") {
		t.Fatalf("verdict %v %q", m.Status, m.Reason)
	}

	// The same words in another order score 1 (unigrams), and the overall
	// score is the mean over invocations.
	c.Actual = []Invocation{{FinalResponse: "to off I have set the device_2 status"}}
	_, ms = engEval(t, `{"criteria": {"response_match_score": 0.8}}`, c)
	engCheckScores(t, "reordered", ms[ResponseMatchScore], 1, 1)
}

func TestResponseMatchScoreEdgeCases(t *testing.T) {
	c := Case{
		Actual:   []Invocation{{FinalResponse: ""}, {FinalResponse: "東京は晴れ"}, {FinalResponse: "Running fast"}, {FinalResponse: "Dogs"}},
		Expected: []Invocation{{FinalResponse: ""}, {FinalResponse: "東京は晴れ"}, {FinalResponse: "runs"}, {FinalResponse: "dogs"}},
	}
	_, ms := engEval(t, `{"criteria": {"response_match_score": 0.8}}`, c)
	m := ms[ResponseMatchScore]
	// "" vs "" is 0 in rouge_score; so is text without [a-z0-9] (ADK #3111).
	// "running"/"runs" both stem to "run": P = 1/2, R = 1, F = 2/3.
	engCheckScores(t, "edges", m, (0+0+2.0/3+1)/4, 0, 0, 2.0/3, 1)
	if r := m.PerInvocation[1].Reason; !strings.Contains(r, "neither text has any word ROUGE counts") {
		t.Errorf("reason %q", r)
	}
}

func TestResponseMatchStemsOnlyLatinPairs(t *testing.T) {
	// Newer ADK: no stemming unless both texts are mostly Latin script. One
	// Cyrillic-heavy side switches stemming off, so "running" ≠ "run".
	c := Case{
		Actual:   []Invocation{{FinalResponse: "running привет мир друзья"}},
		Expected: []Invocation{{FinalResponse: "run"}},
	}
	_, ms := engEval(t, `{"criteria": {"response_match_score": 0.8}}`, c)
	engCheckScores(t, "not stemmed", ms[ResponseMatchScore], 0, 0)
	c.Actual[0].FinalResponse = "running"
	_, ms = engEval(t, `{"criteria": {"response_match_score": 0.8}}`, c)
	engCheckScores(t, "stemmed", ms[ResponseMatchScore], 1, 1)
}
