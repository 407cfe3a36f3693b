package adkpython_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/adkpytest"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// TestRecordingsPluginImportReplay (issue 40 defect 3): a run recorded by
// ADK for Python's own RecordingsPlugin (against adkproxy fake), imported
// with adkproxy import adk-conformance, replays the same agent with
// replay's default body matching: every request equals its recording
// (Python genai's "generationConfig": {} included), none is unmatched,
// and nothing is left over.
func TestRecordingsPluginImportReplay(t *testing.T) {
	testdata, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	env := adkpytest.Env(t, testdata)
	bin := testutil.BuildAdkproxy(t)
	work := t.TempDir()
	caseDir := filepath.Join(work, "corpus", "tests", "oracle", "weather")
	if err := os.MkdirAll(caseDir, 0o755); err != nil {
		t.Fatal(err)
	}
	spec := "description: the weather app, recorded by ADK's RecordingsPlugin\nagent: weather\nuser_messages:\n" +
		"  - text: \"What is the weather and the time in Paris?\"\n  - text: \"And the weather in Tokyo?\"\n"
	if err := os.WriteFile(filepath.Join(caseDir, "spec.yaml"), []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	turns := `["What is the weather and the time in Paris?", "And the weather in Tokyo?"]`
	fake := startFake(t, bin, filepath.Join(testdata, "weather.yaml"))
	run(t, append(env, "GOOGLE_GEMINI_BASE_URL="+fake, "GOOGLE_API_KEY=placeholder"), "python3",
		filepath.Join(testdata, "adk_side.py"), "run", "weather", turns, filepath.Join(work, "recorded.json"), caseDir)
	cassettes := filepath.Join(work, "cassettes")
	run(t, env, bin, "import", "adk-conformance", "--out", cassettes, filepath.Join(work, "corpus"))

	out := runOutput(t, env, bin, "replay", "--cassettes", cassettes, "--cassette", "oracle/weather", "--",
		"python3", filepath.Join(testdata, "adk_side.py"), "run", "weather", turns, filepath.Join(work, "replayed.json"))
	if !strings.Contains(out, "replayed 4 request(s): 4 matched, 0 mismatched, 0 unmatched, 0 recording(s) unused") {
		t.Errorf("replay of the imported recordings:\n%s", out)
	}
}
