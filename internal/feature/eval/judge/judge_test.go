package judge_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/feature/eval/judge"
	"github.com/adkproxy/adkproxy/internal/testing/fakejudge"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/proxy"
	"github.com/adkproxy/adkproxy/scoring"
)

// script is the fake judge's behaviour, a pure function of the prompt and
// of how often it was asked before:
//   - final_response_match_v2: Paris gets valid, valid, invalid, a
//     malformed answer, valid (majority valid); Tokyo first a 429, then
//     valid, invalid, valid, invalid, no label (a tie: invalid); a
//     response containing BROKEN always gets a 500.
//   - rubrics: yes for names_city, no for anything else; Tokyo's answer
//     lacks a Verdict line (the sample is discarded).
//   - hallucinations: one sentence, supported; Tokyo's is unsupported.
func script(prompt string, seen int) fakejudge.Reply {
	switch {
	case strings.Contains(prompt, "is_the_agent_response_valid"):
		switch {
		case strings.Contains(prompt, "BROKEN"):
			return fakejudge.Reply{Status: http.StatusInternalServerError}
		case strings.Contains(prompt, "Tokyo"):
			if seen == 0 {
				return fakejudge.Reply{Status: http.StatusTooManyRequests}
			}
			return fakejudge.Reply{Text: []string{"", `{"reasoning": "Same facts.", "is_the_agent_response_valid": "valid"}`,
				`{"reasoning": "Wrong temperature.", "is_the_agent_response_valid": "invalid"}`,
				`{"reasoning": "Fine.", "is_the_agent_response_valid": "valid"}`,
				`{"reasoning": "Missing detail.", "is_the_agent_response_valid": "invalid"}`,
				`I cannot decide.`}[seen]}
		}
		return fakejudge.Reply{Text: []string{`{"reasoning": "It matches the reference.", "is_the_agent_response_valid": "valid"}`,
			"```json\n{\n  \"reasoning\": \"Same city and weather.\",\n  \"is_the_agent_response_valid\": [\"valid\"]\n}\n```",
			`{"reasoning": "Less precise.", "is_the_agent_response_valid": "invalid"}`,
			`{"reasoning": "truncated`,
			`{"reasoning": "Good.", "is_the_agent_response_valid": "valid"}`}[seen%5]}
	case strings.Contains(prompt, "Property:"):
		var b strings.Builder
		for _, block := range strings.Split(prompt, "<property>")[1:] {
			id := between(block, "ID: ", "\n")
			text := between(block, "Property: ", "\n")
			verdict := "no"
			if id == "names_city" {
				verdict = "yes"
			}
			b.WriteString("ID: " + id + "\nProperty: " + text + "\nRationale: checked " + id + "\n")
			if !strings.Contains(prompt, "Tokyo") {
				b.WriteString("Verdict: " + verdict + "\n")
			}
		}
		return fakejudge.Reply{Text: b.String()}
	case strings.Contains(prompt, "<sentence>first sentence"):
		return fakejudge.Reply{Text: "<sentence>" + between(prompt, "<text>\n", "\n</text>") + "</sentence>"}
	case strings.Contains(prompt, "supporting_excerpt:"):
		label := "supported"
		if strings.Contains(prompt, "Tokyo") {
			label = "unsupported"
		}
		s := between(prompt, "<sentences>\n<sentence>", "</sentence>")
		return fakejudge.Reply{Text: "sentence: " + s + "\nlabel: " + label + "\nrationale: the tool said so\nsupporting_excerpt: none\ncontradicting_excerpt: none"}
	}
	return fakejudge.Reply{Status: http.StatusBadRequest}
}

func between(s, from, to string) string {
	_, after, ok := strings.Cut(s, from)
	if !ok {
		return ""
	}
	before, _, _ := strings.Cut(after, to)
	return before
}

const configJSON = `{"criteria": {
  "final_response_match_v2": {"threshold": 0.5, "judge_model_options": {"judge_model": "gemini-2.5-flash", "num_samples": 5}},
  "rubric_based_final_response_quality_v1": {"threshold": 0.5, "judgeModelOptions": {"numSamples": 1},
    "rubrics": [{"rubric_id": "names_city", "rubric_content": {"text_property": "The answer names the city."}},
                {"rubric_id": "gives_wind", "rubric_content": {"text_property": "The answer gives the wind speed."}}]},
  "hallucinations_v1": 0.5
}}`

func weatherCase(id, city, final string) scoring.Case {
	inv := scoring.Invocation{
		UserText:      "What is the weather in " + city + "?",
		ToolCalls:     []cassettes.ToolCall{{Name: "get_weather", Args: map[string]any{"city": city}}},
		ToolResults:   []cassettes.ToolResult{{Name: "get_weather", Response: map[string]any{"report": "18°C in " + city}}},
		FinalResponse: final,
		Steps: []scoring.Step{
			{Agent: "weather", ToolCalls: []cassettes.ToolCall{{Name: "get_weather", Args: map[string]any{"city": city}}}},
			{Agent: "weather", ToolResults: []cassettes.ToolResult{{Name: "get_weather", Response: map[string]any{"report": "18°C in " + city}}}, Text: final},
		},
	}
	exp := inv
	exp.FinalResponse = "It is 18°C in " + city + "."
	exp.Steps = nil
	return scoring.Case{ID: id, EvalSetID: "weather", Actual: []scoring.Invocation{inv}, Expected: []scoring.Invocation{exp}}
}

func cases() []scoring.Case {
	return []scoring.Case{
		weatherCase("paris", "Paris", "It is 18°C in Paris, clear."),
		weatherCase("tokyo", "Tokyo", "It is 18°C in Tokyo."),
		weatherCase("broken", "Oslo", "BROKEN answer about Oslo."),
	}
}

// judgeVia builds a judge whose calls go through a proxy in mode, in
// process, as the score command builds it.
func judgeVia(t *testing.T, mode proxy.Mode, dir, upstream string) (*judge.Judge, *proxy.Server) {
	t.Helper()
	cfg := proxy.Config{Mode: mode, Dir: dir}
	if upstream != "" {
		u, err := url.Parse(upstream)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Upstream = u
	}
	srv, err := proxy.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey: testutil.SecretAPIKey, Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: "http://judge.invalid/"},
		HTTPClient:  &http.Client{Transport: srv.Transport()},
	})
	if err != nil {
		t.Fatal(err)
	}
	return judge.New(client, judge.Options{Backoff: func(int) time.Duration { return time.Millisecond }}), srv
}

// score runs the config over cs with j and returns the result and its JSON.
func score(t *testing.T, config string, j scoring.Judge, cs []scoring.Case) (*scoring.Result, []byte) {
	t.Helper()
	cfg, err := scoring.ParseConfig("test_config.json", []byte(config))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Judge = j
	res := scoring.Evaluate(context.Background(), cfg, cs)
	var out bytes.Buffer
	// The clock fixed, so that two runs can be compared byte for byte.
	if err := (scoring.JSONOptions{Created: time.Unix(1700000000, 0)}).Write(&out, res); err != nil {
		t.Fatal(err)
	}
	return res, out.Bytes()
}

func metric(t *testing.T, res *scoring.Result, caseID, name string) scoring.MetricResult {
	t.Helper()
	for _, c := range res.Cases {
		if c.Case.ID != caseID {
			continue
		}
		for _, m := range c.Metrics {
			if m.Metric == name {
				return m
			}
		}
	}
	t.Fatalf("no %s for case %s", name, caseID)
	return scoring.MetricResult{}
}

func recordRun(t *testing.T) (dir string, res *scoring.Result, out []byte, fake *fakejudge.Handler) {
	t.Helper()
	dir = testutil.OutDir(t)
	fake = &fakejudge.Handler{Script: script}
	up := httptest.NewServer(fake)
	defer up.Close()
	j, srv := judgeVia(t, proxy.ModeRecord, dir, up.URL)
	res, out = score(t, configJSON, j, cases())
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	return dir, res, out, fake
}

func TestJudgedMetricsRecordThenReplayIdentical(t *testing.T) {
	dir, rec, recJSON, fake := recordRun(t)

	// ADK's numbers from the scripted verdicts.
	want := map[[2]string]*float64{
		{"paris", scoring.FinalResponseMatchV2}:              scoring.Float(1),   // 3 valid, 1 invalid, 1 unparsed
		{"tokyo", scoring.FinalResponseMatchV2}:              scoring.Float(0),   // 2 against 2: a tie is invalid
		{"broken", scoring.FinalResponseMatchV2}:             nil,                // the judge failed 3 times
		{"paris", scoring.RubricBasedFinalResponseQualityV1}: scoring.Float(0.5), // names_city yes, gives_wind no
		{"tokyo", scoring.RubricBasedFinalResponseQualityV1}: nil,                // the only sample was discarded
		{"paris", scoring.HallucinationsV1}:                  scoring.Float(1),
		{"tokyo", scoring.HallucinationsV1}:                  scoring.Float(0),
	}
	for k, w := range want {
		m := metric(t, rec, k[0], k[1])
		switch {
		case w == nil && m.Score != nil:
			t.Errorf("%s %s: score %v, want none (%s)", k[0], k[1], *m.Score, m.Reason)
		case w != nil && (m.Score == nil || *m.Score != *w):
			t.Errorf("%s %s: score %v, want %v (%s)", k[0], k[1], m.Score, *w, m.Reason)
		}
	}
	if m := metric(t, rec, "broken", scoring.FinalResponseMatchV2); m.Status != scoring.NotEvaluated ||
		!strings.Contains(m.Reason, `case "broken", invocation 1, final_response_match_v2, sample 1: the judge failed (3 attempt(s))`) {
		t.Errorf("broken judge: %v %q", m.Status, m.Reason)
	}
	if m := metric(t, rec, "tokyo", scoring.RubricBasedFinalResponseQualityV1); m.Status != scoring.NotEvaluated {
		t.Errorf("discarded sample: status %v, want NOT_EVALUATED", m.Status)
	}
	// final_response_match_v2: Paris 5, Tokyo 1 429 + 5, broken 3 attempts;
	// rubrics 1 per case; hallucinations a segmenter and a validator per case.
	if got, want := fake.Calls(), 5+6+3+3+3*2; got != want {
		t.Errorf("the judge answered %d calls, want %d", got, want)
	}
	if n := testutil.CountInDir(t, dir, testutil.SecretAPIKey); n != 0 {
		t.Errorf("the API key appears %d times in the judge cassettes", n)
	}

	// Replay: no upstream at all, the same bytes.
	j, srv := judgeVia(t, proxy.ModeReplay, dir, "")
	_, repJSON := score(t, configJSON, j, cases())
	if !bytes.Equal(recJSON, repJSON) {
		t.Errorf("replayed result differs from the recorded one:\nrecorded:\n%s\nreplayed:\n%s", recJSON, repJSON)
	}
	if st := srv.Stats(); st.Unmatched+st.Mismatched != 0 || st.Replayed != int64(fake.Calls()) {
		t.Errorf("replay stats %+v, want %d replayed and no misses", st, fake.Calls())
	}

	// Re-ordered cases replay too: one cassette per case.
	rev := cases()
	rev[0], rev[2] = rev[2], rev[0]
	j, _ = judgeVia(t, proxy.ModeReplay, dir, "")
	revRes, _ := score(t, configJSON, j, rev)
	for _, c := range revRes.Cases {
		for _, m := range c.Metrics {
			r := metric(t, rec, c.Case.ID, m.Metric)
			if (m.Score == nil) != (r.Score == nil) || (m.Score != nil && *m.Score != *r.Score) || m.Reason != r.Reason {
				t.Errorf("re-ordered %s %s: %v %q, recorded %v %q", c.Case.ID, m.Metric, m.Score, m.Reason, r.Score, r.Reason)
			}
		}
	}
}

func TestJudgedReplayNamesWhatChanged(t *testing.T) {
	dir, _, _, _ := recordRun(t)

	t.Run("changed rubric", func(t *testing.T) {
		changed := strings.Replace(configJSON, "gives the wind speed", "gives the humidity", 1)
		j, _ := judgeVia(t, proxy.ModeReplay, dir, "")
		res, _ := score(t, changed, j, cases())
		m := metric(t, res, "paris", scoring.RubricBasedFinalResponseQualityV1)
		if m.Status != scoring.NotEvaluated || m.Score != nil {
			t.Fatalf("status %v score %v, want NOT_EVALUATED without a score", m.Status, m.Score)
		}
		t.Logf("reason: %s", m.Reason)
		for _, want := range []string{`rubric "gives_wind" changed`, `case "paris", invocation 1, rubric_based_final_response_quality_v1, sample 1`, "humidity"} {
			if !strings.Contains(m.Reason, want) {
				t.Errorf("reason lacks %q:\n%s", want, m.Reason)
			}
		}
	})
	t.Run("more samples than recorded", func(t *testing.T) {
		more := strings.Replace(configJSON, `"numSamples": 1`, `"numSamples": 2`, 1)
		j, _ := judgeVia(t, proxy.ModeReplay, dir, "")
		res, _ := score(t, more, j, cases())
		m := metric(t, res, "paris", scoring.RubricBasedFinalResponseQualityV1)
		if m.Status != scoring.NotEvaluated || !strings.Contains(m.Reason, `case "paris", invocation 1, rubric_based_final_response_quality_v1, sample 2`) ||
			!strings.Contains(m.Reason, "already used") {
			t.Errorf("status %v, reason %q", m.Status, m.Reason)
		}
	})
	t.Run("case never recorded", func(t *testing.T) {
		j, _ := judgeVia(t, proxy.ModeReplay, dir, "")
		res, _ := score(t, configJSON, j, []scoring.Case{weatherCase("rome", "Rome", "It is 18°C in Rome.")})
		m := metric(t, res, "rome", scoring.FinalResponseMatchV2)
		if m.Status != scoring.NotEvaluated || !strings.Contains(m.Reason, `case "rome", invocation 1, final_response_match_v2, sample 1`) ||
			!strings.Contains(m.Reason, "no such cassette") {
			t.Errorf("status %v, reason %q", m.Status, m.Reason)
		}
	})
}
