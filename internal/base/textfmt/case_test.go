package textfmt

import (
	"reflect"
	"testing"
)

func TestCamelAndSnake(t *testing.T) {
	for _, c := range []struct{ snake, camel string }{
		{"system_instruction", "systemInstruction"},
		{"turn_complete", "turnComplete"},
		{"max_output_tokens", "maxOutputTokens"},
		{"text", "text"},
		{"_private", "_private"},
		{"trailing_", "trailing_"},
		{"a__b", "a__b"},
		{"turnComplete", "turnComplete"},
	} {
		if got := Camel(c.snake); got != c.camel {
			t.Errorf("Camel(%q) = %q, want %q", c.snake, got, c.camel)
		}
	}
	for _, c := range []struct{ camel, snake string }{
		{"systemInstruction", "system_instruction"},
		{"generationConfig", "generation_config"},
		{"text", "text"},
	} {
		if got := Snake(c.camel); got != c.snake {
			t.Errorf("Snake(%q) = %q, want %q", c.camel, got, c.snake)
		}
	}
}

func TestCamelKeysReachesEveryDepthAndCopies(t *testing.T) {
	in := map[string]any{"thinking_config": map[string]any{"thinking_budget": 0.0}, "stop_sequences": []any{map[string]any{"a_b": "c_d"}}}
	got := CamelKeys(in)
	want := map[string]any{"thinkingConfig": map[string]any{"thinkingBudget": 0.0}, "stopSequences": []any{map[string]any{"aB": "c_d"}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("CamelKeys = %#v, want %#v", got, want)
	}
	if _, ok := in["thinking_config"]; !ok {
		t.Fatal("CamelKeys changed its input")
	}
}

// Both spellings of one key: the camelCase one wins, every time (map
// order must not decide).
func TestCamelKeysPrefersTheCamelCaseSpelling(t *testing.T) {
	for range 50 {
		got := CamelKeys(map[string]any{"eval_id": "snake", "evalId": "camel", "a_b": 1.0, "c_d": 2.0, "cD": 3.0})
		want := map[string]any{"evalId": "camel", "aB": 1.0, "cD": 3.0}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("CamelKeys = %#v, want %#v", got, want)
		}
	}
}
