package drift

import (
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
)

// TestShapeChanges: fields added (not again below them), removed and
// retyped are found by path over every event; a part of another kind and
// a null in one event are not shape changes.
func TestShapeChanges(t *testing.T) {
	rec := &cassettes.Response{Status: 200, Events: []cassettes.Event{
		{Data: []byte("data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"name\":\"f\"}}]}}],\"responseId\":\"a\",\"usageMetadata\":{\"promptTokenCount\":3}}\r\n\r\n")},
		{Data: []byte("data: {\"candidates\":[{\"finishReason\":null}],\"modelVersion\":\"m\"}\r\n\r\n")},
	}}
	live := &cassettes.Response{Status: 200, Body: []byte(`{"candidates":[{"content":{"parts":[{"text":"hi","thoughtSignature":"x"}]},"finishReason":"STOP"}],` +
		`"responseId":7,"modelVersion":"m","usageMetadata":{},"sdk":{"a":{"b":1}}}`)}
	got := shapeChanges(shapeOf(rec), shapeOf(live))
	want := []Change{
		{Kind: Shape, What: WhatFieldAdded, Severity: Low, Path: "candidates[].content.parts[].thoughtSignature", Live: "string"},
		{Kind: Shape, What: WhatTypeChanged, Severity: High, Path: "responseId", Recorded: "string", Live: "number"},
		{Kind: Shape, What: WhatFieldAdded, Severity: Low, Path: "sdk", Live: "object"},
		{Kind: Shape, What: WhatFieldRemoved, Severity: High, Path: "usageMetadata.promptTokenCount", Recorded: "number"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d changes, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("change %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}

// TestFailsFollowsSeverity: --fail-on names the least severity that fails.
func TestFailsFollowsSeverity(t *testing.T) {
	r := &Report{Summary: summarize([]Change{{Severity: Low}, {Severity: Medium}})}
	for sev, want := range map[Severity]bool{Low: true, Medium: true, High: false, "never": false} {
		if got := r.Fails(sev); got != want {
			t.Errorf("--fail-on %s: %v, want %v", sev, got, want)
		}
	}
	if (&Report{Summary: summarize(nil)}).Fails(Low) {
		t.Error("no change fails --fail-on low")
	}
	if _, err := ParseSeverity("urgent"); err == nil {
		t.Error("ParseSeverity(urgent) accepted")
	}
}
