package scoring

import (
	"bytes"
	"strings"
	"testing"
)

func TestOutputMarkdown(t *testing.T) {
	var b bytes.Buffer
	if err := WriteMarkdown(&b, outSampleResult()); err != nil {
		t.Fatal(err)
	}
	want := "## ❌ adkproxy score: weather\n\n" +
		"FAILED: 1 of 3 cases passed \\(2 FAILED\\); 3 of 5 criteria passed \\(1 FAILED, 1 NOT\\_EVALUATED\\); 1 informational\n\n" +
		"### ❌ default — FAILED\n\n" +
		"session `default/1`, 2 invocations\n\n" +
		"| Metric | Score | Threshold | Status |\n|---|--:|--:|---|\n" +
		"| `tool_trajectory_avg_score` | 0.5 | 1 | ❌ FAILED |\n" +
		"| `response_match_score` | 0.8571 | 0.8 | ✅ PASSED |\n" +
		"| `latency_ms` | 1.455 | ≤ 5000 | ✅ PASSED |\n" +
		"| `safety_v1` | - | 0.8 | ⚠️ NOT_EVALUATED |\n\n" +
		"- `tool_trajectory_avg_score`: invocation 2: expected get\\_weather\\(city=\"London\"\\), got get\\_weather\\(city=\"Paris\"\\)\n" +
		"- `safety_v1`: safety\\_v1 needs Vertex AI; not computable offline\n\n" +
		"### ✅ default/2 — PASSED\n\n" +
		"session `default/2`, 1 invocation\n\n" +
		"| Metric | Score | Threshold | Status |\n|---|--:|--:|---|\n" +
		"| `tool_trajectory_avg_score` | 1 | 1 | ✅ PASSED |\n" +
		"| `total_tokens` | 63 | - | ℹ️ INFO |\n\n" +
		"### ❌ other — FAILED\n\n" +
		"session `other/1`, 1 invocation\n\n" +
		"**Case failed:** 1 invocation recorded, 2 expected\n\n" +
		"No metric was evaluated.\n\n" +
		"**Not scored (unpaired):**\n\n" +
		"- eval case \"missing\": no recorded session of that name\n"
	if got := b.String(); got != want {
		t.Errorf("markdown:\n%s\nwant:\n%s", got, want)
	}
}

// Whatever a name or reason holds stays inside its table cell or list item
// and renders as text.
func TestOutputMarkdownEscapes(t *testing.T) {
	r := &Result{EvalSetID: "set|<b>", Cases: []CaseResult{{Case: &Case{ID: "# not a heading\n| row"}, Status: Failed,
		Metrics: []MetricResult{{Metric: "a|b`c", Score: Float(0), Threshold: 1, Status: Failed, Reason: "<script>*x*</script>\n| y"}}}}}
	var b bytes.Buffer
	if err := WriteMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"## ❌ adkproxy score: set\\|\\<b\\>\n",
		"### ❌ \\# not a heading \\| row — FAILED\n",
		"| ``a\\|b`c`` | 0 | 1 | ❌ FAILED |\n",
		"- ``a|b`c``: \\<script\\>\\*x\\*\\</script\\> \\| y\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	if strings.Count(out, "\n|") != 3 { // header, separator and the one metric row
		t.Errorf("table rows:\n%s", out)
	}
}
