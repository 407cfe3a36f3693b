package adkpython_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
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
	bin := testutil.BuildAdkproxy(t)
	fake := startFake(t, bin, filepath.Join(testdata, "weather.yaml"))
	p := recordImportReplay(t, bin, fake, "weather", "the weather app",
		[]string{"What is the weather and the time in Paris?", "And the weather in Tokyo?"})
	if !strings.Contains(p.replay, "replayed 4 request(s): 4 matched, 0 mismatched, 0 unmatched, 0 recording(s) unused") {
		t.Errorf("replay of the imported recordings:\n%s", p.replay)
	}
}

// pluginRun is a run of testdata/agents.py's weather app recorded by ADK's
// RecordingsPlugin, imported and replayed (recordImportReplay).
type pluginRun struct {
	// work holds recorded.json and replayed.json, the session's events of
	// each run (as adk_side.py writes them).
	work string
	// caseDir holds the plugin's generated-recordings.yaml.
	caseDir, cassettes string
	// replay is adkproxy replay's output.
	replay string
}

// recordImportReplay runs the weather app for turns against the model at
// upstream with ADK for Python's RecordingsPlugin writing a conformance
// case oracle/NAME, imports the corpus with adkproxy import
// adk-conformance, and replays the same turns from the import with the
// default body matching.
func recordImportReplay(t *testing.T, bin, upstream, name, what string, turns []string) pluginRun {
	t.Helper()
	testdata, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	env := adkpytest.Env(t, testdata)
	work := t.TempDir()
	caseDir := filepath.Join(work, "corpus", "tests", "oracle", name)
	if err := os.MkdirAll(caseDir, 0o755); err != nil {
		t.Fatal(err)
	}
	spec := "description: " + what + ", recorded by ADK's RecordingsPlugin\nagent: weather\nuser_messages:\n"
	for _, turn := range turns {
		spec += "  - text: " + strconv.Quote(turn) + "\n"
	}
	if err := os.WriteFile(filepath.Join(caseDir, "spec.yaml"), []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	turnsJSON, _ := json.Marshal(turns)
	run(t, append(env, "GOOGLE_GEMINI_BASE_URL="+upstream, "GOOGLE_API_KEY=placeholder"), "python3",
		filepath.Join(testdata, "adk_side.py"), "run", "weather", string(turnsJSON), filepath.Join(work, "recorded.json"), caseDir)
	cassettes := filepath.Join(work, "cassettes")
	run(t, env, bin, "import", "adk-conformance", "--out", cassettes, filepath.Join(work, "corpus"))
	out := runOutput(t, env, bin, "replay", "--cassettes", cassettes, "--cassette", "oracle/"+name, "--",
		"python3", filepath.Join(testdata, "adk_side.py"), "run", "weather", string(turnsJSON), filepath.Join(work, "replayed.json"))
	return pluginRun{work: work, caseDir: caseDir, cassettes: cassettes, replay: out}
}
