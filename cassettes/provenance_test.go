package cassettes

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func sampleProvenance() *Provenance {
	return &Provenance{
		RecordedAt: time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC),
		Adkproxy:   "v1.2.3 (revision abc, go1.26.0)",
		Upstream:   []string{"gemini-api"},
		Clients:    []string{"google-genai-sdk/1.77.0", "gl-go/go1.26.8"},
		Frameworks: []string{"google-adk/1.7.0"},
		Models:     map[string][]string{"gemini-2.5-flash": {"gemini-2.5-flash-001"}, "gemini-x": {}},
	}
}

// TestProvenanceReadsBack: every field of the provenance is written and read
// back, by the one-document reader and the session splitter alike.
func TestProvenanceReadsBack(t *testing.T) {
	c := placedCassette(20)
	c.Provenance = sampleProvenance()
	got, data := roundTrip(t, c)
	if !reflect.DeepEqual(got.Provenance, c.Provenance) {
		t.Fatalf("provenance read back as %+v, want %+v\n%s", got.Provenance, c.Provenance, data)
	}
	if !strings.Contains(string(data), "\nprovenance:\n  recorded_at: 2026-03-04T05:06:07Z\n") {
		t.Errorf("provenance not written after the name:\n%.400s", data)
	}
	split, err := readSplit(testFile, strings.NewReader(string(data)), 1<<30, 1)
	if err != nil {
		t.Fatalf("session splitter: %v", err)
	}
	if !reflect.DeepEqual(split.Provenance, c.Provenance) {
		t.Fatalf("splitter read %+v, want %+v", split.Provenance, c.Provenance)
	}
}

// TestCassetteWithoutProvenanceLoads: files written before provenance
// existed still load, with none.
func TestCassetteWithoutProvenanceLoads(t *testing.T) {
	got, data := roundTrip(t, placedCassette(2))
	if strings.Contains(string(data), "provenance") {
		t.Fatalf("a cassette without provenance wrote one:\n%s", data)
	}
	if got.Provenance != nil {
		t.Fatalf("provenance %+v from a file without one", got.Provenance)
	}
}

// TestBadProvenanceIsRefusedWithItsLine: a provenance that is not what
// adkproxy writes is refused naming the file, line and field.
func TestBadProvenanceIsRefusedWithItsLine(t *testing.T) {
	cases := map[string]string{
		"provenance:\n  recorded: yesterday\n":                    `file.yaml:4: unknown field "recorded" in provenance`,
		"provenance:\n  recorded_at: last week\n":                 `file.yaml:4: provenance recorded_at "last week" is not a time`,
		"provenance:\n  clients: google-genai-sdk/1\n":            `file.yaml:4: provenance clients must be a list`,
		"provenance:\n  models: [gemini-2.5-flash]\n":             `file.yaml:4: provenance models must be a mapping`,
		"provenance:\n  models:\n    m: [{a: 1}]\n":               `file.yaml:5: provenance models "m" item must be a string`,
		"provenance: [2026-01-01]\n":                              `file.yaml:3: provenance must be a mapping`,
		"provenance:\n  adkproxy: v1\n  adkproxy: v2\n":           `file.yaml:5: field "adkproxy" appears twice in provenance`,
		"provenance:\n  recorded_at: 2026-01-01T00:00:00+02:00\n": "",
	}
	for body, want := range cases {
		_, err := Unmarshal(testFile, []byte("version: 2\nname: x\n"+body))
		switch {
		case want == "" && err != nil:
			t.Errorf("%q: %v", body, err)
		case want != "" && (err == nil || !strings.HasPrefix(err.Error(), want) || !errors.Is(err, ErrCorrupt)):
			t.Errorf("%q: got %v, want an ErrCorrupt starting %q", body, err, want)
		}
	}
}
