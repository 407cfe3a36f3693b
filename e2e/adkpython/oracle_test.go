package adkpython_test

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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
		App    json.RawMessage `json:"app,omitempty"`
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
		app, err := os.ReadFile(out + ".app.json")
		if err != nil {
			t.Fatal(err)
		}
		if s.cassette != "weather_run2" {
			first = append(first, session{s.evalCase, events, app})
		}
		if s.evalCase == "weather" {
			runs = append(runs, session{s.evalCase, events, app})
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

// oracleJudged holds ADK 1.18's LLM-judged metrics — final_response_match_v2,
// hallucinations_v1 (segmenter and validator), and both rubric-based
// judges, with rubrics in the eval config and (which ADK 1.18 does not
// use) in an eval case and an invocation — to ADK 1.18's evaluator on the
// same runs, in one evaluation of each side. ADK's sessions carry the app
// details its evaluator builds from the model requests (each agent's
// instructions and tools), as adk eval's do; both sides' judge calls go to
// one scripted judge on loopback (judgeScript), and adkproxy score has
// ADK's own template texts in --judge-prompts. The judge prompts each side
// sent (every sample of each) must be equal as JSON, and every case status
// and score equal.
func oracleJudged(t *testing.T, env []string, bin, work, cassettes, sessions, evalSet string) {
	t.Helper()
	var mu sync.Mutex
	var sent []string
	judge := httptest.NewServer(&fakejudge.Handler{Script: func(prompt string, seen int) fakejudge.Reply {
		mu.Lock()
		sent = append(sent, prompt)
		mu.Unlock()
		return fakejudge.Reply{Text: judgeScript(prompt, seen)}
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
	// ADK's events carry the ids ADK gives the model's function calls
	// (adk-<random uuid>, as the Gemini API sends none), which ADK strips
	// from every model request: no recording holds them, so they are left
	// out of ADK's prompts before comparing.
	adkPrompts := take()
	withIDs := 0
	for i, p := range adkPrompts {
		if q := adkClientIDRE.ReplaceAllString(p, ""); q != p {
			adkPrompts[i] = q
			withIDs++
		}
	}
	slices.Sort(adkPrompts)
	ours := adkproxyVerdicts(t, env, bin, cassettes, evalSet, config, 1, "--judge-mode", "record", "--judge-base-url", judge.URL,
		"--judge-cassettes", filepath.Join(work, "judge"), "--judge-prompts", prompts)
	ourPrompts := take()
	adk := readVerdicts(t, adkOut)
	agree, total := compareVerdicts(t, "judged", adk, ours)
	notOne := 0
	for _, c := range adk {
		for _, m := range c.Metrics {
			if m.Score != nil && *m.Score != 1 {
				notOne++
			}
		}
	}
	if notOne < 4 {
		t.Errorf("only %d judged scores below 1: the scripted judge no longer tells the answers apart", notOne)
	}
	adkJSON, _ := json.MarshalIndent(adkPrompts, "", " ")
	ourJSON, _ := json.MarshalIndent(ourPrompts, "", " ")
	if len(adkPrompts) == 0 || string(adkJSON) != string(ourJSON) {
		t.Errorf("the judge prompts differ from ADK 1.18's: ADK sent %d (%v), adkproxy %d (%v)",
			len(adkPrompts), promptKinds(adkPrompts), len(ourPrompts), promptKinds(ourPrompts))
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
				t.Errorf("judge prompt %d (%s) differs from line %d on:\n----- ADK -----\n%s\n----- adkproxy -----\n%s", i, promptKind(adkPrompts[i]), j+1,
					strings.Join(a[min(j, len(a)):], "\n"), strings.Join(o[min(j, len(o)):], "\n"))
				break
			}
		}
	}
	t.Logf("judged metrics: %d of %d results agree with ADK 1.18's evaluator (%d scores below 1); %d of %d judge prompts equal (%v; %d with ADK's client ids left out)",
		agree, total, notOne, same, len(adkPrompts), promptKinds(adkPrompts), withIDs)
}

// The judged metrics' rubric texts (config_judge.json).
const (
	rubricCity         = "The answer names the city it is about."
	rubricTemperature  = "The answer gives a temperature."
	rubricWeatherFirst = "The agent calls get_weather before answering."
	rubricNoConfirm    = "The agent asks for no confirmation."
)

// promptKind names the judge call a prompt of ADK's templates is.
func promptKind(prompt string) string {
	switch {
	case strings.Contains(prompt, "**Response Begin**"):
		return "hallucinations_v1_segmenter"
	case strings.Contains(prompt, "**Sentences Begin**"):
		return "hallucinations_v1_validator"
	case strings.Contains(prompt, rubricCity):
		return "rubric_based_final_response_quality_v1"
	case strings.Contains(prompt, rubricWeatherFirst):
		return "rubric_based_tool_use_quality_v1"
	}
	return "final_response_match_v2"
}

// promptKinds counts prompts by kind.
func promptKinds(prompts []string) map[string]int {
	out := map[string]int{}
	for _, p := range prompts {
		out[promptKind(p)]++
	}
	return out
}

var (
	adkClientIDRE = regexp.MustCompile(`(?m)^ *"id": "adk-[0-9a-f-]{36}",\n`)
	sentenceRE    = regexp.MustCompile(`<sentence>(.*?)</sentence>`)
	splitRE       = regexp.MustCompile(`[^.!?。]+[.!?。]?`)
)

// judgeScript is the scripted judge's answer to one prompt (seen: the
// earlier calls of the same prompt, its sample), in the format ADK 1.18's
// parser of that kind reads, told apart by the prompt's content so that
// scores vary:
//   - final_response_match_v2: "invalid" about Tokyo, else "valid";
//   - the segmenter: the response between ADK's markers cut after each
//     full stop (Japanese ones too), one <sentence> each;
//   - the validator: per sentence "contradictory" with 二十五, "unsupported"
//     with Tokyo, "not_applicable" with sunscreen, "disputed" with Lisbon
//     (the coordinator's text beside its transfer, judged with
//     evaluate_intermediate_nl_responses), a label ADK does not count
//     ("partially") with "Sunny skies", else "supported";
//   - the rubric judges: a Property/Rationale/Verdict block per rubric in
//     the prompt — the city named unless about sunscreen (the second of
//     three samples says the opposite: the majority holds), a temperature
//     when degrees are in it, get_weather first when about Paris (else
//     yes, then no: a tie of two samples, which counts as no), no
//     confirmation unless ADK's adk_request_confirmation is in it; two
//     samples are written as a judge may write them: the third about the
//     temperature lacks its Rationale line (ADK 1.18 pairs the lines in
//     order), the second about confirmations says the opposite of the
//     first with the property in bold (ADK 1.18 matches a property's text
//     up to case and surrounding white space only).
func judgeScript(prompt string, seen int) string {
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	switch kind := promptKind(prompt); kind {
	case "hallucinations_v1_segmenter":
		response := prompt[strings.LastIndex(prompt, "**Response Begin**")+len("**Response Begin**"):]
		response = response[:strings.Index(response, "**Response End**")]
		var b strings.Builder
		for _, s := range splitRE.FindAllString(response, -1) {
			if s = strings.TrimSpace(s); s != "" {
				fmt.Fprintf(&b, "<sentence>%s</sentence>\n", s)
			}
		}
		return b.String()
	case "hallucinations_v1_validator":
		var b strings.Builder
		for _, m := range sentenceRE.FindAllStringSubmatch(prompt[strings.LastIndex(prompt, "**Sentences Begin**"):], -1) {
			label := "supported"
			switch s := m[1]; {
			case strings.Contains(s, "二十五"):
				label = "contradictory"
			case strings.Contains(s, "Tokyo"):
				label = "unsupported"
			case strings.Contains(s, "sunscreen"):
				label = "not_applicable"
			case strings.Contains(s, "Lisbon"):
				label = "disputed"
			case strings.Contains(s, "Sunny skies"):
				label = "partially"
			}
			fmt.Fprintf(&b, "sentence: %s\nlabel: %s\nrationale: scripted\nsupporting_excerpt: null\ncontradicting_excerpt: null\n", m[1], label)
		}
		return b.String()
	case "rubric_based_final_response_quality_v1", "rubric_based_tool_use_quality_v1":
		verdicts := map[string]string{
			rubricCity:         yes(strings.Contains(prompt, "sunscreen") == (seen == 1)),
			rubricTemperature:  yes(strings.Contains(prompt, "degrees") || strings.Contains(prompt, "度")),
			rubricWeatherFirst: yes(strings.Contains(prompt, "Paris") || seen == 0),
			rubricNoConfirm:    yes(!strings.Contains(prompt, "adk_request_confirmation")),
		}
		var b strings.Builder
		for _, r := range []string{rubricCity, rubricTemperature, rubricWeatherFirst, rubricNoConfirm} {
			if !strings.Contains(prompt, r) {
				continue
			}
			switch {
			case r == rubricTemperature && seen == 2:
				fmt.Fprintf(&b, "Property: %s\nVerdict: %s\n\n", r, verdicts[r])
			case r == rubricNoConfirm && seen == 1:
				fmt.Fprintf(&b, "Property: **%s**\nRationale: scripted\nVerdict: %s\n\n", r, yes(verdicts[r] == "no"))
			default:
				fmt.Fprintf(&b, "Property: %s\nRationale: scripted\nVerdict: %s\n\n", r, verdicts[r])
			}
		}
		return b.String()
	default:
		label := "valid"
		if strings.Contains(prompt, "Tokyo") {
			label = "invalid"
		}
		return `{"reasoning": "scripted", "is_the_agent_response_valid": "` + label + `"}`
	}
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
