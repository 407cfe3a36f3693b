package main

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/adkproxy/adkproxy/internal/engine/fake"
)

// byRunUpstream is a scripted fake whose answer varies by run: the n-th
// model call it gets is answered by the fake scripted with texts[n].
func byRunUpstream(t *testing.T, texts []string) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var handlers []http.Handler
	for _, text := range texts {
		script, err := fake.ParseScript("run.yaml", []byte("turns:\n  - model:\n      - text: "+text+"\n"))
		if err != nil {
			t.Fatal(err)
		}
		handlers = append(handlers, fake.New(script))
	}
	var calls atomic.Int64
	var mu sync.Mutex
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n := int(calls.Add(1)) - 1
		mu.Unlock()
		if n >= len(handlers) {
			http.Error(w, "more calls than scripted runs", http.StatusBadRequest)
			return
		}
		handlers[n].ServeHTTP(w, r)
	}))
	t.Cleanup(up.Close)
	return up, &calls
}

const weatherQuestion = "What is the weather in Paris?"

var (
	rightAnswer = "It is 18 degrees and sunny in Paris."
	wrongAnswer = "Sorry, no idea."
)

// writeWeatherEvalSet writes an eval set whose one case, "weather",
// expects rightAnswer, and a config judging the final response alone.
func writeWeatherEvalSet(t *testing.T, dir string) (evalset, config string) {
	t.Helper()
	evalset = filepath.Join(dir, "weather.evalset.json")
	config = filepath.Join(dir, "config.json")
	set := `{"eval_set_id": "weather", "eval_cases": [{"eval_id": "weather", "conversation": [{"invocation_id": "w1",
  "user_content": {"parts": [{"text": "` + weatherQuestion + `"}], "role": "user"},
  "final_response": {"parts": [{"text": "` + rightAnswer + `"}], "role": "model"}}]}]}`
	if err := os.WriteFile(evalset, []byte(set), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(config, []byte(`{"criteria": {"response_match_score": 0.8}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return evalset, config
}

// recordSamples records len(answers) samples of cassette "weather" from a
// fake answering run N with answers[N-1].
func recordSamples(t *testing.T, dir string, answers []string) {
	t.Helper()
	up, calls := byRunUpstream(t, answers)
	k := len(answers)
	env := []string{"QUESTION=" + weatherQuestion}
	r := adkproxy(t, env, append([]string{"record", "--cassettes", dir, "--cassette", "weather", "--upstream", up.URL, "--samples", strconv.Itoa(k)}, self("ask")...)...)
	if r.code != 0 {
		t.Fatalf("record --samples %d: exit %d\nstdout %s\nstderr %s", k, r.code, r.stdout, r.stderr)
	}
	if calls.Load() != int64(k) {
		t.Fatalf("the fake got %d calls, want one per sample (%d)", calls.Load(), k)
	}
}

// Five samples recorded from a fake that answers right in runs 1, 2 and 4:
// ls lists weather@1..5, replay replays each in turn (and --sample N one),
// and score gives pass@1, pass^5, the flip rate and the Wilson interval
// computed here by hand.
func TestRecordSamplesReplayAndScore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	answers := []string{rightAnswer, rightAnswer, wrongAnswer, rightAnswer, wrongAnswer}
	recordSamples(t, dir, answers)
	for n := 1; n <= 5; n++ {
		if _, err := os.Stat(filepath.Join(dir, "weather@"+strconv.Itoa(n)+".yaml")); err != nil {
			t.Fatalf("sample %d: %v", n, err)
		}
	}
	ls := adkproxy(t, nil, "ls", "--cassettes", dir)
	for n := 1; n <= 5; n++ {
		if !strings.Contains(ls.stdout, "weather@"+strconv.Itoa(n)) {
			t.Errorf("ls does not show weather@%d:\n%s", n, ls.stdout)
		}
	}

	env := []string{"QUESTION=" + weatherQuestion}
	all := adkproxy(t, env, append([]string{"replay", "--cassettes", dir, "--cassette", "weather"}, self("ask")...)...)
	if all.code != 0 || strings.Count(all.stdout, "200 ") != 5 || strings.Count(all.stdout, "Sorry, no idea.") != 2 {
		t.Fatalf("replay of every sample: exit %d\nstdout %s\nstderr %s", all.code, all.stdout, all.stderr)
	}
	third := adkproxy(t, env, append([]string{"replay", "--cassettes", dir, "--cassette", "weather", "--sample", "3"}, self("ask")...)...)
	if third.code != 0 || !strings.Contains(third.stdout, wrongAnswer) || strings.Count(third.stdout, "200 ") != 1 {
		t.Fatalf("replay --sample 3: exit %d\nstdout %s\nstderr %s", third.code, third.stdout, third.stderr)
	}
	none := adkproxy(t, env, append([]string{"replay", "--cassettes", dir, "--cassette", "weather", "--sample", "6"}, self("ask")...)...)
	if none.code != exitUsage || !strings.Contains(none.stderr, "its samples: 1, 2, 3, 4, 5") {
		t.Fatalf("replay --sample 6: exit %d, stderr %s", none.code, none.stderr)
	}

	evalset, config := writeWeatherEvalSet(t, t.TempDir())
	sc := adkproxy(t, nil, "score", "--cassettes", dir, "--expected", evalset, "--config", config, "--format", "json")
	if sc.code != exitFailure {
		t.Fatalf("score: exit %d, want 1 (the pooled case fails)\nstderr %s", sc.code, sc.stderr)
	}
	var doc struct {
		Cases []struct {
			ID      string `json:"eval_id"`
			Details struct {
				Samples map[string]any `json:"samples"`
			} `json:"details"`
		} `json:"eval_case_results"`
	}
	if err := json.Unmarshal([]byte(sc.stdout), &doc); err != nil || len(doc.Cases) != 1 {
		t.Fatalf("score json: %v, %d cases\n%s", err, len(doc.Cases), sc.stdout)
	}
	// By hand: c = 3 of n = 5; pass^5 = C(3,5)/C(5,5) = 0; pass@5 = 1;
	// flips: runs 2-3, 3-4, 4-5 of 4 pairs. Wilson with z = 1.959964:
	// centre (0.6 + z²/10)/(1 + z²/5), half z·sqrt(0.24/5 + z²/100)/(1 + z²/5).
	z := 1.959963984540054
	den := 1 + z*z/5
	mid, half := (0.6+z*z/10)/den, z*math.Sqrt(0.24/5+z*z/100)/den
	want := map[string]float64{"n": 5, "passes": 3, "pass_at_1": 0.6, "pass_at_k": 1, "pass_hat_k": 0, "flip_rate": 0.75,
		"interval_low": mid - half, "interval_high": mid + half}
	got := doc.Cases[0].Details.Samples
	for key, w := range want {
		if g, ok := got[key].(float64); !ok || math.Abs(g-w) > 1e-9 {
			t.Errorf("samples %s = %v, want %v", key, got[key], w)
		}
	}
	if got["flaky"] != true {
		t.Errorf("a case that passed and failed is not flaky: %v", got)
	}
	wilson := fmt.Sprintf("[%.4f, %.4f]", mid-half, mid+half) // [0.2307, 0.8824]
	for _, format := range []string{"table", "markdown", "junit", "html", "csv", "jsonl"} {
		out := adkproxy(t, nil, "score", "--cassettes", dir, "--expected", evalset, "--config", config, "--format", format)
		wants := []string{"pass@1 0.6", wilson, "pass^5 0", "flip rate 0.75", "FLAKY"}
		switch format {
		case "markdown":
			wants[1] = strings.NewReplacer("[", `\[`, "]", `\]`).Replace(wilson)
		case "csv":
			wants = []string{"samples.pass_at_1,samples.pass_at_k,samples.pass_hat_k,samples.flip_rate", ",0.6,1,0,0.75,"}
		case "jsonl":
			wants = []string{`"samples.pass_at_1":0.6`, `"samples.flaky":true`}
		case "junit":
			wants = append(wants, `name="samples.pass_at_1" value="0.6"`, `name="samples.flaky" value="weather"`)
		}
		if format == "table" || format == "markdown" || format == "html" {
			wants = append(wants, "SAMPLES 3 of 5 samples passed over 1 cases", "mean score over 5 samples")
		}
		for _, w := range wants {
			if !strings.Contains(out.stdout, w) {
				t.Errorf("score --format %s lacks %q:\n%s", format, w, out.stdout)
			}
		}
	}
}

// The gate through the binary, on samples recorded from the fake: five
// right answers against a baseline of five is INCONCLUSIVE at margin 0
// (exit 2) and PASSes at margin 0.5; five wrong answers FAIL (exit 1).
// The intervals are Newcombe's, computed here by hand.
func TestScoreBaselineGate(t *testing.T) {
	t.Parallel()
	good, bad := t.TempDir(), t.TempDir()
	recordSamples(t, good, []string{rightAnswer, rightAnswer, rightAnswer, rightAnswer, rightAnswer})
	recordSamples(t, bad, []string{wrongAnswer, wrongAnswer, wrongAnswer, wrongAnswer, wrongAnswer})
	evalset, config := writeWeatherEvalSet(t, t.TempDir())
	baseline := filepath.Join(t.TempDir(), "baseline.json")
	if r := adkproxy(t, nil, "score", "--cassettes", good, "--expected", evalset, "--config", config, "--format", "json", "--out", baseline); r.code != 0 {
		t.Fatalf("baseline: exit %d\n%s", r.code, r.stderr)
	}
	z := 1.959963984540054
	// Wilson(5 of 5) = [1/(1+z²/5), 1]; Wilson(0 of 5) = [0, 1 - that].
	low5 := 1 / (1 + z*z/5)
	same := fmt.Sprintf("interval [%.4f, %.4f]", -(1 - low5), 1-low5)             // 5/5 vs 5/5: ±(1 - low5)
	worse := fmt.Sprintf("interval [%.4f, %.4f]", -1.0, -1+math.Sqrt(2)*(1-low5)) // 0/5 vs 5/5
	for _, tc := range []struct {
		dir    string
		margin []string
		code   int
		wants  []string
	}{
		{good, nil, exitInconclusive, []string{"INCONCLUSIVE weather/weather  5/5 → 5/5  difference 0, " + same, "GATE INCONCLUSIVE"}},
		{good, []string{"--margin", "0.5"}, 0, []string{"PASS         SUITE  5/5 → 5/5", "GATE PASS"}},
		{bad, nil, exitFailure, []string{"FAIL         weather/weather  5/5 → 0/5  difference -1, " + worse, "GATE FAIL"}},
	} {
		args := append([]string{"score", "--cassettes", tc.dir, "--expected", evalset, "--config", config, "--baseline", baseline}, tc.margin...)
		r := adkproxy(t, nil, args...)
		if r.code != tc.code {
			t.Errorf("%v: exit %d, want %d\nstderr %s", tc.margin, r.code, tc.code, r.stderr)
		}
		for _, w := range tc.wants {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("%s %v: stderr lacks %q:\n%s", tc.dir, tc.margin, w, r.stderr)
			}
		}
	}
	if r := adkproxy(t, nil, "score", "--cassettes", good, "--expected", evalset, "--margin", "0.1"); r.code != exitUsage {
		t.Errorf("--margin without --baseline: exit %d, want 64", r.code)
	}
	if r := adkproxy(t, nil, "score", "--cassettes", good, "--expected", evalset, "--baseline", evalset); r.code != exitDataErr || !strings.Contains(r.stderr, "no eval_case_results") {
		t.Errorf("--baseline that is no result: exit %d, stderr %s", r.code, r.stderr)
	}
}
