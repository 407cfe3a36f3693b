package adkpython_test

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/internal/testing/adkpytest"
	"github.com/adkproxy/adkproxy/internal/testing/fakejudge"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// scenario is one recorded run of an app of testdata/agents.py against
// adkproxy fake's script, into the cassette named like the eval case.
type scenario struct {
	app, script, cassette, evalCase string
	turns                           []string
}

var scenarios = []scenario{
	{"weather", "weather.yaml", "weather", "weather", []string{"What is the weather and the time in Paris?", "And the weather in Tokyo?"}},
	{"weather", "weather.yaml", "weather_run2", "weather", []string{"What is the weather and the time in Paris?", "And the weather in Tokyo?"}},
	{"team", "team.yaml", "team", "team", []string{"What should I pack for Lisbon?"}},
	{"weather", "japanese.yaml", "japanese", "japanese", []string{"東京の天気は？"}},
	{"booking", "booking.yaml", "booking", "booking", []string{"Book the Ritz for two nights."}},
}

// verdicts are a scoring's case statuses and metric scores by case.
type verdicts map[string]struct {
	Status  string
	Metrics map[string]struct {
		Score  *float64
		Status string
	}
}

// TestOracleADK118 holds adkproxy score to ADK for Python 1.18's own
// evaluator on the same recorded runs. ADK Python agents (two tools; a
// coordinator that transfers to a sub-agent; a tool that asks for a
// confirmation, approved) are recorded through adkproxy record from
// adkproxy fake; ADK's LocalEvalService scores ADK's own view of each
// session (EvaluationGenerator.convert_events_to_eval_invocations) and
// adkproxy score --adk-version 1.18 scores the cassettes, against one eval
// set, for each match type of tool_trajectory_avg_score with
// response_match_score, and once with num_runs 2 pooled as AgentEvaluator
// pools them. Every case status and every score must be equal.
func TestOracleADK118(t *testing.T) {
	testdata, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	env := adkpytest.Env(t, testdata)
	bin := testutil.BuildAdkproxy(t)
	work := t.TempDir()
	cassettes := filepath.Join(work, "cassettes")
	type session struct {
		Case   string          `json:"case"`
		Events json.RawMessage `json:"events"`
	}
	var first, runs []session
	for _, s := range scenarios {
		fake := startFake(t, bin, filepath.Join(testdata, s.script))
		out := filepath.Join(work, s.cassette+".events.json")
		turns, _ := json.Marshal(s.turns)
		run(t, env, bin, "record", "--cassettes", cassettes, "--cassette", s.cassette, "--upstream", fake, "--",
			"python3", filepath.Join(testdata, "adk_side.py"), "run", s.app, string(turns), out)
		events, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if s.cassette != "weather_run2" {
			first = append(first, session{s.evalCase, events})
		}
		if s.evalCase == "weather" {
			runs = append(runs, session{s.evalCase, events})
		}
	}
	writeJSON := func(name string, v any) string {
		b, _ := json.Marshal(v)
		path := filepath.Join(work, name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	firstPath, runsPath := writeJSON("first.json", first), writeJSON("runs.json", runs)
	evalSet := filepath.Join(testdata, "oracle.evalset.json")
	agree, total := 0, 0
	for _, config := range []string{"config_exact.json", "config_in_order.json", "config_any_order.json"} {
		for _, r := range []struct {
			sessions, expected string
			numRuns            int
		}{{firstPath, evalSet, 1}, {runsPath, evalSet + ":weather", 2}} {
			name := fmt.Sprintf("%s, num_runs %d", config, r.numRuns)
			adkOut := filepath.Join(work, "adk.json")
			run(t, env, "python3", filepath.Join(testdata, "adk_side.py"), "evaluate", r.sessions, evalSet, filepath.Join(testdata, config), adkOut)
			adk := readVerdicts(t, adkOut)
			ours := adkproxyVerdicts(t, env, bin, cassettes, r.expected, filepath.Join(testdata, config), r.numRuns)
			a, n := compareVerdicts(t, name, adk, ours)
			agree, total = agree+a, total+n
		}
	}
	t.Logf("%d of %d results (case statuses and metric scores) agree with ADK 1.18's evaluator", agree, total)
	oracleJudged(t, env, bin, work, cassettes, firstPath, evalSet)
}

// oracleJudged holds the LLM-judged final_response_match_v2 to ADK 1.18's
// evaluator on the same runs: both sides' judge calls go to one scripted
// judge on loopback, which says "invalid" to a prompt about Tokyo and
// "valid" to any other; adkproxy score has ADK's own template text in
// --judge-prompts. The judge prompts each side sent must be equal as
// JSON, and the scores and statuses equal.
func oracleJudged(t *testing.T, env []string, bin, work, cassettes, sessions, evalSet string) {
	t.Helper()
	var mu sync.Mutex
	var sent []string
	judge := httptest.NewServer(&fakejudge.Handler{Script: func(prompt string, _ int) fakejudge.Reply {
		mu.Lock()
		sent = append(sent, prompt)
		mu.Unlock()
		label := "valid"
		if strings.Contains(prompt, "Tokyo") {
			label = "invalid"
		}
		return fakejudge.Reply{Text: `{"reasoning": "scripted", "is_the_agent_response_valid": "` + label + `"}`}
	}})
	defer judge.Close()
	take := func() []string {
		mu.Lock()
		defer mu.Unlock()
		got := sent
		sent = nil
		slices.Sort(got)
		return got
	}
	prompts := filepath.Join(work, "prompts")
	if err := os.Mkdir(prompts, 0o755); err != nil {
		t.Fatal(err)
	}
	run(t, env, "python3", filepath.Join(filepath.Dir(evalSet), "adk_side.py"), "templates", prompts)
	config := filepath.Join(filepath.Dir(evalSet), "config_judge.json")
	env = append(env, "GOOGLE_API_KEY=oracle-judge-key", "GEMINI_API_KEY=oracle-judge-key", "GOOGLE_GENAI_USE_VERTEXAI=false")
	adkOut := filepath.Join(work, "adk_judged.json")
	run(t, append(env, "GOOGLE_GEMINI_BASE_URL="+judge.URL), "python3", filepath.Join(filepath.Dir(evalSet), "adk_side.py"), "evaluate", sessions, evalSet, config, adkOut)
	adkPrompts := take()
	ours := adkproxyVerdicts(t, env, bin, cassettes, evalSet, config, 1, "--judge-mode", "record", "--judge-base-url", judge.URL,
		"--judge-cassettes", filepath.Join(work, "judge"), "--judge-prompts", prompts)
	ourPrompts := take()
	agree, total := compareVerdicts(t, "final_response_match_v2", readVerdicts(t, adkOut), ours)
	adkJSON, _ := json.MarshalIndent(adkPrompts, "", " ")
	ourJSON, _ := json.MarshalIndent(ourPrompts, "", " ")
	if len(adkPrompts) == 0 || string(adkJSON) != string(ourJSON) {
		t.Errorf("the judge prompts differ from ADK 1.18's: ADK sent %d, adkproxy %d", len(adkPrompts), len(ourPrompts))
	}
	same := 0
	for i := range min(len(adkPrompts), len(ourPrompts)) {
		if adkPrompts[i] == ourPrompts[i] {
			same++
			continue
		}
		a, o := strings.Split(adkPrompts[i], "\n"), strings.Split(ourPrompts[i], "\n")
		for j := range max(len(a), len(o)) {
			if j >= len(a) || j >= len(o) || a[j] != o[j] {
				t.Errorf("judge prompt %d differs from line %d on:\n----- ADK -----\n%s\n----- adkproxy -----\n%s", i, j+1,
					strings.Join(a[min(j, len(a)):], "\n"), strings.Join(o[min(j, len(o)):], "\n"))
				break
			}
		}
	}
	t.Logf("final_response_match_v2: %d of %d results agree with ADK 1.18's evaluator; %d of %d judge prompts equal", agree, total, same, len(adkPrompts))
}

// compareVerdicts reports every difference between ADK's verdicts and
// adkproxy's, and counts the results compared and those equal.
func compareVerdicts(t *testing.T, name string, adk, ours verdicts) (agree, total int) {
	t.Helper()
	for id, a := range adk {
		o, ok := ours[id]
		total++
		if !ok {
			t.Errorf("%s: case %s: adkproxy did not score it", name, id)
			continue
		}
		if a.Status == o.Status {
			agree++
		} else {
			t.Errorf("%s: case %s: ADK %s, adkproxy %s", name, id, a.Status, o.Status)
		}
		for metric, am := range a.Metrics {
			total++
			om := o.Metrics[metric]
			same := am.Status == om.Status && (am.Score == nil) == (om.Score == nil) &&
				(am.Score == nil || math.Abs(*am.Score-*om.Score) < 1e-12)
			if same {
				agree++
				continue
			}
			t.Errorf("%s: case %s: %s: ADK %s %v, adkproxy %s %v", name, id, metric, am.Status, show(am.Score), om.Status, show(om.Score))
		}
	}
	return agree, total
}

func show(f *float64) string {
	if f == nil {
		return "no score"
	}
	return fmt.Sprint(*f)
}

func readVerdicts(t *testing.T, path string) verdicts {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v verdicts
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// adkproxyVerdicts runs adkproxy score --adk-version 1.18 --format json
// and reads its EvalSetResult into verdicts.
func adkproxyVerdicts(t *testing.T, env []string, bin, cassettes, expected, config string, numRuns int, extra ...string) verdicts {
	t.Helper()
	out := filepath.Join(t.TempDir(), "score.json")
	cmd := exec.Command(bin, append([]string{"score", "--cassettes", cassettes, "--expected", expected, "--config", config,
		"--adk-version", "1.18", "--format", "json", "--out", out, "--num-runs", fmt.Sprint(numRuns)}, extra...)...)
	cmd.Env = env
	msg, err := cmd.CombinedOutput()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("adkproxy score: %v\n%s", err, msg)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("adkproxy score wrote nothing: %v\n%s", err, msg)
	}
	var doc struct {
		Cases []struct {
			ID      string `json:"eval_id"`
			Status  int    `json:"final_eval_status"`
			Metrics []struct {
				Name   string   `json:"metric_name"`
				Score  *float64 `json:"score"`
				Status int      `json:"eval_status"`
			} `json:"overall_eval_metric_results"`
		} `json:"eval_case_results"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	statuses := map[int]string{1: "PASSED", 2: "FAILED", 3: "NOT_EVALUATED"}
	v := verdicts{}
	for _, c := range doc.Cases {
		e := v[c.ID]
		e.Status = statuses[c.Status]
		e.Metrics = map[string]struct {
			Score  *float64
			Status string
		}{}
		for _, m := range c.Metrics {
			e.Metrics[m.Name] = struct {
				Score  *float64
				Status string
			}{m.Score, statuses[m.Status]}
		}
		v[c.ID] = e
	}
	return v
}

// run runs a command with env and fails the test on failure.
func run(t *testing.T, env []string, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, out)
	}
}

// startFake serves script with adkproxy fake until the test ends and
// returns its base URL.
func startFake(t *testing.T, bin, script string) string {
	t.Helper()
	addrFile := filepath.Join(t.TempDir(), "addr")
	fake := exec.Command(bin, "fake", "--script", script, "--listen", "127.0.0.1:0", "--addr-file", addrFile)
	if err := fake.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fake.Process.Signal(os.Interrupt); fake.Wait() })
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if addr, _ := os.ReadFile(addrFile); len(addr) > 0 {
			return "http://" + strings.TrimSpace(string(addr))
		}
	}
	t.Fatal("adkproxy fake did not write its address")
	return ""
}

// runOutput runs a command with env, fails the test on failure and returns
// its output.
func runOutput(t *testing.T, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, out)
	}
	return string(out)
}
