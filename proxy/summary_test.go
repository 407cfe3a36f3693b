package proxy_test

import (
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/matcher"
	"github.com/adkproxy/adkproxy/proxy"
)

// summaryText is a summary as the CLI and adkproxytest print it.
func summaryText(lines []proxy.SummaryLine) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l.Text + "\n")
	}
	return b.String()
}

// TestSummaryLinesSayWhatTheyTell: each listed request's line carries its
// outcome and whether it was served anyway, and the first line whether
// anything was served anyway or refused, so the CLI colours without reading text.
func TestSummaryLinesSayWhatTheyTell(t *testing.T) {
	step := 0
	r := proxy.Report{Mode: "replay", Counts: map[matcher.OutcomeKind]int{matcher.OutcomeMatched: 1, matcher.OutcomeMismatched: 2, matcher.OutcomeUnused: 1}, Outcomes: []matcher.Outcome{
		{Outcome: matcher.OutcomeMismatched, Cassette: "a", Method: "POST", Path: "/p", Session: 1, Step: &step, Message: "differs\nhere"},
		{Outcome: matcher.OutcomeMismatched, Cassette: "b", Method: "POST", Path: "/q", Session: 1, Step: &step, Served: true, Message: "differs"},
		{Outcome: matcher.OutcomeUnused, Cassette: "other", Method: "POST", Path: "/p", Message: "never requested"},
	}}
	lines := proxy.Summary(r, proxy.Stats{}, "")
	want := []proxy.SummaryLine{
		{Text: "adkproxy: replayed 3 request(s): 1 matched, 2 mismatched, 0 unmatched, 1 recording(s) unused", Caution: true},
		{Text: "  mismatched POST /p: differs\n    here", Outcome: matcher.OutcomeMismatched},
		{Text: "  mismatched (served, lenient) POST /q: differs", Outcome: matcher.OutcomeMismatched, Caution: true},
		{Text: "  unused POST /p: never requested", Outcome: matcher.OutcomeUnused},
	}
	if len(lines) != len(want) {
		t.Fatalf("summary lines:\n%+v\nwant\n%+v", lines, want)
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("line %d: %+v, want %+v", i, lines[i], want[i])
		}
	}

	clean := proxy.Summary(proxy.Report{Mode: "replay", Counts: map[matcher.OutcomeKind]int{matcher.OutcomeMatched: 2}}, proxy.Stats{}, "")
	if len(clean) != 1 || clean[0].Caution || clean[0].Outcome != "" {
		t.Errorf("a clean run's summary: %+v", clean)
	}
	refused := proxy.Summary(proxy.Report{Mode: "record", Counts: map[matcher.OutcomeKind]int{}}, proxy.Stats{Failed: 2}, "")
	if len(refused) != 1 || !refused[0].Caution || !strings.HasSuffix(refused[0].Text, "; 2 request(s) refused") {
		t.Errorf("a run with refused requests: %+v", refused)
	}
}
