package testutil

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) { Main(m) }

// The CLI is built once per test binary: every caller gets the same file,
// not rebuilt.
func TestBuildAdkproxyOnce(t *testing.T) {
	first := BuildAdkproxy(t)
	before, err := os.Stat(first)
	if err != nil {
		t.Fatal(err)
	}
	var second string
	t.Run("another test", func(t *testing.T) { second = BuildAdkproxy(t) })
	after, err := os.Stat(second)
	if err != nil {
		t.Fatal(err)
	}
	if second != first || !os.SameFile(before, after) || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("built twice: %s (%v), then %s (%v)", first, before.ModTime(), second, after.ModTime())
	}
}

// TestSteadyProvenance: the time, adkproxy's version and the runtimes'
// versions become placeholders; the SDKs', frameworks', upstream and
// models stay, and lines that are not provenance are left alone.
func TestSteadyProvenance(t *testing.T) {
	in := "CASSETTE default (default.yaml): 1 session\n" +
		"  recorded 2026-12-02 04:25 UTC · by adkproxy c785f08 (go1.26.8) · upstream local · clients gl-go/1.26.8, google-genai-sdk/1.77.0, gl-go/go1.26.8 · frameworks google-adk/1.7.0 · models gemini-2.5-flash\n" +
		"  session 1 recorded 2026-12-02 04:25 UTC gl-go/1.2\n" +
		"  provenance not recorded (written before adkproxy recorded it)\n"
	want := "CASSETTE default (default.yaml): 1 session\n" +
		"  recorded TIME · by adkproxy VERSION · upstream local · clients gl-go/RUNTIME, google-genai-sdk/1.77.0, gl-go/RUNTIME · frameworks google-adk/1.7.0 · models gemini-2.5-flash\n" +
		"  session 1 recorded 2026-12-02 04:25 UTC gl-go/1.2\n" +
		"  provenance not recorded (written before adkproxy recorded it)\n"
	if got := SteadyProvenance(in); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := SteadyProvenance("  recorded 2026-12-02 04:25 UTC · by adkproxy (devel) (go1.26.8)"); got != "  recorded TIME · by adkproxy VERSION" {
		t.Errorf("adkproxy last: %q", got)
	}
}
