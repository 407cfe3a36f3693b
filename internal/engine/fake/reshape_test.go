package fake

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestAnswersReshapeEveryAnswer: the script's answers block sets, retypes
// and drops fields and names another modelVersion; a bad block is named.
func TestAnswersReshapeEveryAnswer(t *testing.T) {
	s, err := ParseScript("s.yaml", []byte("turns:\n  - model:\n      - text: hi\nanswers:\n  model_version: m-2\n  set: {usageMetadata.trafficType: ON_DEMAND, responseId: 7}\n  drop: [usageMetadata.promptTokenCount]\n"))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(s.Answers.apply(chunks(false, s.Turns[0].Model[0].Parts, "m-1", 3, "id"))[0], &got); err != nil {
		t.Fatal(err)
	}
	usage := got["usageMetadata"].(map[string]any)
	if got["modelVersion"] != "m-2" || got["responseId"] != 7.0 || usage["trafficType"] != "ON_DEMAND" || usage["promptTokenCount"] != nil || usage["totalTokenCount"] == nil {
		t.Fatalf("answer %v", got)
	}
	if _, err := ParseScript("s.yaml", []byte("turns:\n  - model:\n      - text: hi\nanswers:\n  rename: {a: b}\n")); err == nil || !strings.Contains(err.Error(), "s.yaml:5: answers:") {
		t.Fatalf("a bad answers block: %v", err)
	}
}
