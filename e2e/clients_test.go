package e2e_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// The popular JS stacks for Gemini, pinned in e2e/clients/package.json,
// each an agent with two tools and two user turns (the second streamed):
// four on Gemini's own API, two on its OpenAI-compatible endpoint.
var clientStacks = []struct {
	name, script string
	openai       bool
}{
	{"vercel-ai", "vercel.mjs", false},
	{"langchain-langgraph", "langchain.mjs", false},
	{"genkit", "genkit.mjs", false},
	{"google-generative-ai", "generativeai.mjs", false},
	{"openai", "openai.mjs", true},
	{"openai-agents", "agents.mjs", true},
}

// TestClientStacksJourney walks each stack through a user's journey with
// the documented commands: record from `adkproxy fake` with no key,
// replay with the same answers, a changed tool description fails naming
// the tool and the field, ls, export and score, and a tool rename that
// diff --fail-on tools fails on. The OpenAI-compatible stacks give the
// same ls, score and diff as the Gemini-native ones on the same
// conversation.
func TestClientStacksJourney(t *testing.T) {
	root := testutil.RepoRoot()
	node := requireClients(t, root)
	bin := testutil.BuildAdkproxy(t)
	script := filepath.Join(root, "e2e", "clients", "fake.yaml")
	renamed := filepath.Join(t.TempDir(), "renamed.yaml")
	b, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(renamed, []byte(strings.ReplaceAll(string(b), "get_weather", "weather_now")), 0o644)

	outputs := map[string]map[string]string{} // stack -> command -> output, for the twins
	for _, s := range clientStacks {
		t.Run(s.name, func(t *testing.T) {
			work := testutil.OutDir(t)
			agent := []string{"--", node, filepath.Join(root, "e2e", "clients", s.script)}
			run := func(env []string, args ...string) result {
				t.Helper()
				return runAdkproxy(t, work, bin, childEnv(env...), args...)
			}
			record := func(dir, fakeScript string, env ...string) result {
				t.Helper()
				fake := startFake(t, bin, fakeScript)
				r := run(env, append([]string{"record", "--cassettes", dir, "--upstream", fake}, agent...)...)
				if r.code != 0 || !strings.Contains(r.stderr, "recorded 4 exchange(s)") {
					t.Fatalf("record %s: exit %d\nstdout %s\nstderr %s", dir, r.code, r.stdout, r.stderr)
				}
				return r
			}
			const answers = `{"answers":["It is 18 degrees and sunny in Paris.","It is 14:05 in Paris."]}`
			if r := record("run1", script); strings.TrimSpace(r.stdout) != answers {
				t.Errorf("record: the agent printed %q", r.stdout)
			}
			cassette := filepath.Join(work, "run1", "default.yaml")
			if s.openai && !fileContains(cassette, "/v1beta/openai/chat/completions") {
				t.Fatalf("%s holds no chat completion", cassette)
			}
			if !fileContains(cassette, "text/event-stream") {
				t.Errorf("%s holds no streamed call: the second turn was not streamed", cassette)
			}

			rep := run(nil, append([]string{"replay", "--cassettes", "run1"}, agent...)...)
			if rep.code != 0 || strings.TrimSpace(rep.stdout) != answers || !strings.Contains(rep.stderr, "4 matched, 0 mismatched, 0 unmatched, 0 recording(s) unused") {
				t.Fatalf("replay: exit %d\nstdout %s\nstderr %s", rep.code, rep.stdout, rep.stderr)
			}

			field := `tools[0].functionDeclarations[get_weather].description: recorded "Returns the current weather for a city.", got "The weather."`
			if s.openai {
				field = `tools[get_weather].function.description: recorded "Returns the current weather for a city.", got "The weather."`
			}
			if r := run([]string{"WEATHER_DESC=The weather."}, append([]string{"replay", "--cassettes", "run1"}, agent...)...); r.code == 0 || !strings.Contains(r.stderr, field) {
				t.Errorf("replay with a changed description: exit %d, want a failure naming %s\n%s", r.code, field, r.stderr)
			}
			if r := run([]string{"WEATHER_DESC=The weather."}, append([]string{"replay", "--mode", "lenient", "--cassettes", "run1"}, agent...)...); r.code != 0 || strings.TrimSpace(r.stdout) != answers {
				t.Errorf("lenient replay with a changed description: exit %d\n%s", r.code, r.stderr)
			}

			ls := run(nil, "ls", "run1")
			// Its provenance: from the fake on this machine
			// (each stack's own clients are the twins' one difference).
			if !strings.Contains(ls.stdout, "\n  recorded ") || !strings.Contains(ls.stdout, " · upstream local · clients ") {
				t.Errorf("ls: no provenance line naming the local upstream and the stack's clients:\n%s", ls.stdout)
			}
			if ls.code != 0 || !strings.Contains(ls.stdout, "1 session, 2 invocations, 4 steps") || !strings.Contains(ls.stdout, `→ get_weather(city="Paris")`) || !strings.Contains(ls.stdout, `→ get_time(city="Paris")`) {
				t.Errorf("ls: exit %d\n%s%s", ls.code, ls.stdout, ls.stderr)
			}
			if e := run(nil, "export", "run1", "--out", "golden.evalset.json"); e.code != 0 {
				t.Fatalf("export: exit %d\n%s", e.code, e.stderr)
			}
			score := run(nil, "score", "run1", "--expected", "golden.evalset.json")
			if score.code != 0 || !strings.Contains(score.stdout, "PASSED: 1 of 1 case passed") {
				t.Errorf("score: exit %d\n%s%s", score.code, score.stdout, score.stderr)
			}

			record("run2", renamed, "WEATHER_TOOL=weather_now")
			diff := run(nil, "diff", "run1", "run2", "--fail-on", "tools")
			if diff.code == 0 || !strings.Contains(diff.stdout, `+ gemini-2.5-flash: weather_now(city="Paris")`) || !strings.Contains(diff.stderr, "failed (--fail-on tools)") {
				t.Errorf("diff --fail-on tools after a rename: exit %d, want a failure\n%s%s", diff.code, diff.stdout, diff.stderr)
			}
			renamedScore := run(nil, "score", "run2", "--expected", "golden.evalset.json")
			if !strings.Contains(renamedScore.stdout, `expected get_weather(city="Paris"), got weather_now(city="Paris")`) {
				t.Errorf("score after the rename:\n%s%s", renamedScore.stdout, renamedScore.stderr)
			}
			outputs[s.name] = map[string]string{"ls": withoutProvenance(ls.stdout), "score": score.stdout, "diff": withoutTimes(diff.stdout)}
		})
	}

	// Twins: one conversation gives one ls, score and diff, whichever
	// stack or endpoint carried it.
	first := clientStacks[0].name
	for _, s := range clientStacks[1:] {
		for _, what := range []string{"ls", "score", "diff"} {
			want, got := outputs[first][what], outputs[s.name][what]
			if want != "" && got != "" && strings.ReplaceAll(got, s.name, first) != want {
				t.Errorf("%s of %s differs from %s's:\n%s\nwant\n%s", what, s.name, first, got, want)
			}
		}
	}
}

// withoutTimes drops what a diff says of latency, which differs run to
// run, and the declarations it quotes, whose JSON Schema each SDK writes
// its own way.
func withoutTimes(s string) string {
	s = regexp.MustCompile(`; latency [^\n]*`).ReplaceAllString(s, "")
	return regexp.MustCompile(`(?m)^\s*tool declaration .*\n`).ReplaceAllString(s, "")
}

// requireClients returns the path of node, or skips (fails under CI)
// when node or e2e/clients' packages are not installed.
func requireClients(t *testing.T, root string) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		testutil.Require(t, "node (Node.js 20 or newer)")
	}
	for _, pkg := range []string{"ai", "@ai-sdk/google", "@langchain/google-genai", "@langchain/langgraph", "genkit", "@genkit-ai/google-genai", "@google/generative-ai", "openai", "@openai/agents"} {
		if _, err := os.Stat(filepath.Join(root, "e2e", "clients", "node_modules", pkg)); err != nil {
			testutil.Require(t, "e2e/clients/node_modules/"+pkg+" (run 'make npm-deps')")
		}
	}
	return node
}

// provenanceLine is ls's line under a cassette that says when and by whom
// it was recorded: each stack names its own client there, and it is the
// one line that may differ between twins.
var provenanceLine = regexp.MustCompile(`(?m)^  (recorded .*|provenance not recorded.*)\n`)

func withoutProvenance(ls string) string { return provenanceLine.ReplaceAllString(ls, "") }
