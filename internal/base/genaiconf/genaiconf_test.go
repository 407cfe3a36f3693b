package genaiconf

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParseBothSpellings(t *testing.T) {
	for _, src := range []string{
		`{"temperature": 0.2, "thinking_config": {"include_thoughts": true, "thinking_budget": 64}, "max_output_tokens": 100}`,
		`{"temperature": 0.2, "thinkingConfig": {"includeThoughts": true, "thinkingBudget": 64}, "maxOutputTokens": 100}`,
	} {
		var v any
		if err := json.Unmarshal([]byte(src), &v); err != nil {
			t.Fatal(err)
		}
		cfg, err := Parse(v)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if cfg.Temperature == nil || *cfg.Temperature != 0.2 || cfg.MaxOutputTokens != 100 ||
			cfg.ThinkingConfig == nil || !cfg.ThinkingConfig.IncludeThoughts || cfg.ThinkingConfig.ThinkingBudget == nil || *cfg.ThinkingConfig.ThinkingBudget != 64 {
			t.Fatalf("%s: read %+v", src, cfg)
		}
	}
}

func TestParseRefusesWhatItCannotRead(t *testing.T) {
	for src, want := range map[string]string{
		`{"temprature": 0.2}`: "temprature",
		`[1]`:                 "want an object",
	} {
		var v any
		if err := json.Unmarshal([]byte(src), &v); err != nil {
			t.Fatal(err)
		}
		if _, err := Parse(v); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want one naming %q", src, err, want)
		}
	}
}
