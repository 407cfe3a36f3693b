package scoring

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// With NoCode, a config's custom metrics — a command and a Python function
// by code_config.name — are refused by name, and scoring runs neither.
func TestNoCodeRunsNoCustomMetric(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	os.WriteFile(filepath.Join(dir, "evil.py"), []byte("open("+`"`+marker+`"`+", 'w').write('imported')\ndef f(*a):\n    return {'overall_score': 1.0}\n"), 0o644)
	config := `{"criteria": {"shell": 0.5, "py": 0.5, "tool_trajectory_avg_score": 1.0},
	  "custom_metrics": {"shell": {"command": ["sh", "-c", "touch ` + marker + `; echo '{\"overall_score\": 1}'"]},
	                     "py": {"code_config": {"name": "evil.f"}}}}`
	path := filepath.Join(dir, "test_config.json")
	os.WriteFile(path, []byte(config), 0o644)
	cfg, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	err = cfg.RefuseCode()
	if err == nil {
		t.Fatal("RefuseCode: nil for a config with two custom metrics")
	}
	for _, want := range []string{"shell", `["sh","-c"`, "py", "code_config.name evil.f", "test_config.json"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal does not name %q: %v", want, err)
		}
	}
	cfg.NoCode = true
	res := Evaluate(context.Background(), cfg, []Case{engCustomCase()})
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a custom metric ran under NoCode")
	}
	for _, m := range res.Cases[0].Metrics {
		if m.Metric == "shell" || m.Metric == "py" {
			if m.Status != NotEvaluated || !strings.Contains(m.Reason, "no-code") {
				t.Errorf("%s: %v %q, want NOT_EVALUATED naming --no-code", m.Metric, m.Status, m.Reason)
			}
		}
	}
	if DefaultConfig().RefuseCode() != nil {
		t.Error("the default config refused")
	}
}
