package runview

import (
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/recorded"
)

// TestProvenanceText: the line ls prints under a cassette's name, an alias
// shown with what answered it.
func TestProvenanceText(t *testing.T) {
	p := &cassettes.Provenance{RecordedAt: time.Date(2026, 1, 31, 12, 30, 0, 0, time.UTC), Adkproxy: "v1.0.0",
		Upstream: []string{"gemini-api"}, Clients: []string{"google-genai-sdk/1.77.0"}, Frameworks: []string{"google-adk/1.7.0"},
		Models: map[string][]string{"gemini-flash-latest": {"gemini-2.5-flash-001"}, "gemini-2.5-pro": {"gemini-2.5-pro"}}}
	want := "recorded 2026-01-31 12:30 UTC · by adkproxy v1.0.0 · upstream gemini-api · clients google-genai-sdk/1.77.0 · " +
		"frameworks google-adk/1.7.0 · models gemini-2.5-pro; gemini-flash-latest → gemini-2.5-flash-001"
	if got := ProvenanceText(p); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if got := ProvenanceText(nil); got != "provenance not recorded (written before adkproxy recorded it)" {
		t.Errorf("no provenance: %q", got)
	}
}

// TestStaleOf: a cassette older than the age, or of no known age, is
// stale; one recorded within it is not.
func TestStaleOf(t *testing.T) {
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	at := func(days int) *cassettes.Provenance {
		return &cassettes.Provenance{RecordedAt: now.Add(-time.Duration(days) * 24 * time.Hour)}
	}
	run := recorded.Run{Cassettes: []recorded.Cassette{{Name: "fresh", Provenance: at(10)}, {Name: "old", Provenance: at(120)},
		{Name: "unknown"}, {Name: "no-time", Provenance: &cassettes.Provenance{Adkproxy: "v1"}}}}
	age, err := ParseAge("90d")
	if err != nil || age != 90*24*time.Hour {
		t.Fatalf("ParseAge(90d) = %v, %v", age, err)
	}
	got := StaleOf(run, age, now)
	if len(got) != 3 || got[0].Name != "old" || got[0].AgeDays != 120 || got[1].Name != "unknown" || got[1].AgeDays != -1 || got[2].Name != "no-time" {
		t.Fatalf("stale: %+v", got)
	}
	for _, bad := range []string{"", "d", "-3d", "90 days", "-1h"} {
		if _, err := ParseAge(bad); err == nil {
			t.Errorf("ParseAge(%q) accepted", bad)
		}
	}
	if d, err := ParseAge("2w"); err != nil || d != 14*24*time.Hour {
		t.Errorf("ParseAge(2w) = %v, %v", d, err)
	}
}
