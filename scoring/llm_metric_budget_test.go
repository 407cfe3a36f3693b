package scoring

import (
	"strings"
	"testing"
)

// An LLM metric's prompt template is data: one that would build gigabytes
// is refused when the config is read, naming the file, the metric and the
// line, not rendered into memory.
func TestRunawayScalePromptIsRefused(t *testing.T) {
	config := `{"adkproxy": {"llm_metrics": {"m": {"prompt": "Rate it.\n{{range 3000000}}` + strings.Repeat("x", 64) + `{{end}}", "threshold": 3}}}}`
	_, err := ParseConfig("eval_config.json", []byte(config))
	if err == nil || !strings.Contains(err.Error(), "eval_config.json: adkproxy.llm_metrics.m") || !strings.Contains(err.Error(), "line 2: the output would be more than") {
		t.Fatalf("error %v; want one naming the file, the metric, line 2 and the bound", err)
	}
}
