package judge_test

import (
	"io/fs"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/engine/fake"
	"github.com/adkproxy/adkproxy/internal/engine/inprocess"
	"github.com/adkproxy/adkproxy/internal/feature/eval/judge"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/proxy"
	"github.com/adkproxy/adkproxy/scoring"
)

const chatJudgeConfig = `{"criteria": {"final_response_match_v2": {"threshold": 0.5,
  "judge_model_options": {"judge_model": "openai/gemini-2.5-flash", "num_samples": 1, "judge_model_config": {"temperature": 0.2}}}}}`

// chatJudge is a judge whose calls go through the in-process recorder in
// mode, as score builds it, upstream an adkproxy fake.
func chatJudge(t *testing.T, mode proxy.Mode, dir, upstream string) (*judge.Judge, *inprocess.Recorder) {
	t.Helper()
	cfg := proxy.Config{Mode: mode, Dir: dir}
	if upstream != "" {
		cfg.Upstream, _ = url.Parse(upstream)
	}
	rec, err := inprocess.Start(cfg, inprocess.Options{Rerecord: "record the judge again", Where: "--judge-cassettes"})
	if err != nil {
		t.Fatal(err)
	}
	client, err := rec.GeminiClient(testutil.SecretAPIKey)
	if err != nil {
		t.Fatal(err)
	}
	return judge.New(client, judge.Options{Chat: rec.Chat(testutil.SecretAPIKey)}), rec
}

// TestChatJudgeRecordThenReplay: a judge model named openai/MODEL is asked
// with a chat completion on the OpenAI-compatible endpoint, recorded
// through the in-process recorder (the key redacted), and the verdict
// replays offline to the same bytes.
func TestChatJudgeRecordThenReplay(t *testing.T) {
	script, err := fake.ParseScript("judge.yaml", []byte("turns:\n  - model:\n      - text: '{\"reasoning\": \"Same facts.\", \"is_the_agent_response_valid\": \"valid\"}'\n"))
	if err != nil {
		t.Fatal(err)
	}
	up := httptest.NewServer(fake.New(script))
	defer up.Close()
	dir := filepath.Join(testutil.OutDir(t), "judge")
	cs := []scoring.Case{weatherCase("paris", "Paris", "It is 18°C in Paris, clear.")}

	j, rec := chatJudge(t, proxy.ModeRecord, dir, up.URL)
	res, recJSON := score(t, chatJudgeConfig, j, cs)
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if m := metric(t, res, "paris", scoring.FinalResponseMatchV2); m.Score == nil || *m.Score != 1 {
		t.Fatalf("recorded verdict: %v %s, want 1", m.Score, m.Reason)
	}
	if u := j.Usage(); u.Calls != 1 || u.Tokens["gemini-2.5-flash"].Total == 0 {
		t.Errorf("usage %+v, want one call counted under gemini-2.5-flash", u)
	}
	var files []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, ".yaml") {
			files = append(files, path)
		}
		return nil
	})
	if len(files) != 1 {
		t.Fatalf("judge cassettes %v, want one", files)
	}
	c, err := cassettes.Load(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Exchanges) != 1 || c.Exchanges[0].Request.Path != inprocess.ChatPath ||
		!strings.Contains(string(c.Exchanges[0].Request.Body), `"model":"gemini-2.5-flash"`) ||
		!strings.Contains(string(c.Exchanges[0].Request.Body), `"temperature":0.2`) {
		t.Fatalf("recorded %d exchange(s), the first %s %s", len(c.Exchanges), c.Exchanges[0].Request.Path, c.Exchanges[0].Request.Body)
	}
	if n := testutil.CountInDir(t, dir, testutil.SecretAPIKey); n != 0 {
		t.Errorf("the API key appears %d times in the judge cassettes", n)
	}

	j, rec = chatJudge(t, proxy.ModeReplay, dir, "")
	_, repJSON := score(t, chatJudgeConfig, j, cs)
	st := rec.Server.Stats()
	rec.Close()
	if string(recJSON) != string(repJSON) {
		t.Errorf("replayed result differs:\nrecorded:\n%s\nreplayed:\n%s", recJSON, repJSON)
	}
	if st.Replayed != 1 || st.Unmatched+st.Mismatched != 0 {
		t.Errorf("replay stats %+v, want one call replayed", st)
	}

	// A changed criterion is not recorded: the reason names the call and the field.
	j, rec = chatJudge(t, proxy.ModeReplay, dir, "")
	res, _ = score(t, strings.Replace(chatJudgeConfig, "0.2", "0.7", 1), j, cs)
	rec.Close()
	if m := metric(t, res, "paris", scoring.FinalResponseMatchV2); m.Status != scoring.NotEvaluated ||
		!strings.Contains(m.Reason, "judge call not recorded") || !strings.Contains(m.Reason, "temperature") {
		t.Errorf("changed temperature: %v %q", m.Status, m.Reason)
	}
}

// TestJudgeModelNamesChecked: a judge model or setting the endpoint cannot
// take stops the run naming the field.
func TestJudgeModelNamesChecked(t *testing.T) {
	for _, c := range []struct{ options, want string }{
		{`{"judge_model": "openai/"}`, `judge_model_options.judge_model: "openai/" names no model`},
		{`{"judge_model": "anthropic/claude-3"}`, `judge_model_options.judge_model: model "anthropic/claude-3": the prefix "anthropic/" is no provider`},
		{`{"judge_model": " "}`, `judge_model_options.judge_model: want a model name`},
		{`{"judge_model": "gemini 2.5"}`, `judge_model_options.judge_model: model name "gemini 2.5" has spaces`},
		{`{"judge_model": "openai/gemini-2.5-flash", "judge_model_config": {"top_k": 3}}`, `judge_model_options.judge_model_config: topK: no OpenAI-compatible field carries it`},
	} {
		cfg, err := scoring.ParseConfig("eval_config.json", []byte(`{"criteria": {"final_response_match_v2": {"threshold": 0.5, "judge_model_options": `+c.options+`}}}`))
		if err != nil {
			t.Fatal(err)
		}
		err = judge.CheckConfig(cfg)
		if err == nil || !strings.Contains(err.Error(), "eval_config.json: criteria.final_response_match_v2."+c.want) {
			t.Errorf("%s: %v, want %q", c.options, err, c.want)
		}
	}
	for _, ok := range []string{"gemini-2.5-flash", "models/gemini-2.5-flash", "projects/p/locations/l/publishers/google/models/gemini-2.5-flash", "openai/gemini-2.5-pro"} {
		cfg, _ := scoring.ParseConfig("eval_config.json", []byte(`{"criteria": {"final_response_match_v2": {"threshold": 0.5, "judge_model_options": {"judge_model": "`+ok+`"}}}}`))
		if err := judge.CheckConfig(cfg); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}
