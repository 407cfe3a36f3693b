package judge_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/fakejudge"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/proxy"
	"github.com/adkproxy/adkproxy/scoring"
)

// hallucinations_v1 with invocation scores 0, 0.2 and 0.4 (1 sentence
// unsupported; 1 of 5 supported; 2 of 5): statistics.mean gives exactly
// 0.2, which passes a 0.2 threshold, where a running float sum divided by
// 3 gives 0.20000000000000004.
func TestHallucinationMeanIsExact(t *testing.T) {
	supported := map[string]int{"S0": 0, "S1": 1, "S2": 2}
	count := map[string]int{"S0": 1, "S1": 5, "S2": 5}
	script := func(prompt string, _ int) fakejudge.Reply {
		for tag := range count {
			if !strings.Contains(prompt, "Answer "+tag+".") && !strings.Contains(prompt, "<sentence>"+tag+" sentence a.") {
				continue
			}
			var b strings.Builder
			if strings.Contains(prompt, "<sentence>first sentence") {
				for i := range count[tag] {
					b.WriteString("<sentence>" + tag + " sentence " + string(rune('a'+i)) + ".</sentence>\n")
				}
				return fakejudge.Reply{Text: b.String()}
			}
			for i := range count[tag] {
				label := "unsupported"
				if i < supported[tag] {
					label = "supported"
				}
				if i > 0 {
					b.WriteString("\n")
				}
				b.WriteString("sentence: " + tag + " sentence " + string(rune('a'+i)) + ".\nlabel: " + label +
					"\nrationale: r\nsupporting_excerpt: none\ncontradicting_excerpt: none")
			}
			return fakejudge.Reply{Text: b.String()}
		}
		return fakejudge.Reply{Status: 400}
	}
	fake := &fakejudge.Handler{Script: script}
	up := httptest.NewServer(fake)
	defer up.Close()
	j, _ := judgeVia(t, proxy.ModeRecord, testutil.OutDir(t), up.URL)
	var invs []scoring.Invocation
	for _, tag := range []string{"S0", "S1", "S2"} {
		invs = append(invs, scoring.Invocation{UserText: "Question " + tag, FinalResponse: "Answer " + tag + "."})
	}
	c := scoring.Case{ID: "three", Actual: invs}
	res, _ := score(t, `{"criteria": {"hallucinations_v1": 0.2}}`, j, []scoring.Case{c})
	m := res.Cases[0].Metrics[0]
	if m.Score == nil || *m.Score != 0.2 || m.Status != scoring.Passed {
		t.Fatalf("score %v status %v (%s), want exactly 0.2, PASSED", m.Score, m.Status, m.Reason)
	}
	want := []float64{0, 0.2, 0.4}
	for i, p := range m.PerInvocation {
		if p.Score == nil || *p.Score != want[i] {
			t.Errorf("invocation %d: %v, want %v", i+1, p.Score, want[i])
		}
	}
	xs := want
	if naive := (xs[0] + xs[1] + xs[2]) / 3; naive == 0.2 {
		t.Errorf("the float case no longer differs: %.17g", naive)
	}
}
