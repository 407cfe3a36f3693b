// score's LLM judge: its flags, the in-process proxy its calls are recorded
// into or replayed from, and the line saying what the calls cost.

package main

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/adkproxy/adkproxy/internal/feature/eval/judge"
	"github.com/adkproxy/adkproxy/proxy"
	"github.com/adkproxy/adkproxy/scoring"
)

// replayKey stands in for an API key in judge replay: the genai client
// wants one, and replay never sends a request anywhere.
const replayKey = "adkproxy-replay-no-key"

func judgeFlags() []cli.Flag {
	return []cli.Flag{
		stringFlag("judge-cassettes", "", "`DIR` of the LLM judge's cassettes: LLM-judged criteria are computed only with it"),
		stringFlag("judge-mode", "", "`MODE` of the judge: record (needs GOOGLE_API_KEY or GEMINI_API_KEY) or replay; default record when a key is set, else replay"),
		stringFlag("judge-base-url", proxy.DefaultUpstream, "Gemini-compatible `URL` the judge calls in record mode"),
	}
}

// judgeRun is the judge of one score run.
type judgeRun struct {
	dir  string
	mode proxy.Mode
	srv  *proxy.Server
	rec  *modelRecorder
	// vertex records the Vertex AI evaluation calls; nil without them.
	vertex *vertexRun
	judge  *judge.Judge
}

// apiKey is the key the genai SDK would use.
func apiKey() string {
	for _, k := range []string{"GOOGLE_API_KEY", "GEMINI_API_KEY"} {
		if v := os.Getenv(k); v != "" {
			return v
		}
	}
	return ""
}

// startJudge sets cfg.Judge from the judge flags; nil without
// --judge-cassettes.
func startJudge(c *cli.Context, cfg *scoring.Config) (*judgeRun, error) {
	dir := c.String("judge-cassettes")
	if dir == "" {
		if c.IsSet("judge-mode") {
			return nil, usageErrorf("score: --judge-mode needs --judge-cassettes DIR")
		}
		return nil, nil
	}
	if err := judge.CheckConfig(cfg); err != nil {
		return nil, withCode(exitDataErr, fmt.Errorf("--config: %w", err))
	}
	rerecord := "record the judge's verdicts again: adkproxy score --judge-mode record, with a key"
	rec, err := startModelRecorder(c, modelRecorderFlags{command: "score", dir: "judge-cassettes", mode: "judge-mode",
		baseURL: "judge-base-url", what: "the judge's verdicts", model: "the judge model", rerecord: rerecord, missingIsEmpty: true,
		keyOptional: (judge.NeedsVertex(cfg) || len(cfg.CustomMetrics) > 0) && !judgesWithGemini(cfg)})
	if err != nil {
		return nil, err
	}
	vx, err := startVertex(c, cfg, rec.mode, rec.dir)
	if err != nil {
		rec.close()
		return nil, err
	}
	backoff := judge.DefaultBackoff
	if rec.mode != proxy.ModeRecord {
		backoff = func(int) time.Duration { return 0 } // nothing to wait for
	}
	var prompts judge.Prompts
	if dir := c.String("judge-prompts"); dir != "" {
		if prompts, err = judge.LoadPrompts(dir); err != nil {
			rec.close()
			vx.close()
			return nil, withCode(exitDataErr, fmt.Errorf("--judge-prompts: %w", err))
		}
	}
	j := &judgeRun{dir: rec.dir, mode: rec.mode, srv: rec.Server, rec: rec, vertex: vx, judge: judge.New(rec.client, judge.Options{Backoff: backoff, Prompts: prompts, Chat: rec.chat, ADKVersion: cfg.Adkproxy.ADKVersion})}
	cfg.Judge = j.judge
	// Custom metrics that call Gemini themselves go through the same recorder.
	ep := &judge.Endpoint{Recorder: rec.Server}
	if rec.mode != proxy.ModeRecord && apiKey() == "" {
		ep.Env = []string{"GOOGLE_API_KEY=" + replayKey}
	}
	cfg.ModelEndpoint = ep
	return j, nil
}

// finish writes what was recorded and says what the judge calls cost.
func (j *judgeRun) finish(c *cli.Context, cfg *scoring.Config) error {
	if j == nil {
		return nil
	}
	if err := errors.Join(j.rec.close(), j.vertex.close()); err != nil {
		return fmt.Errorf("--judge-cassettes: %w", err)
	}
	fmt.Fprintln(c.App.ErrWriter, "adkproxy: "+j.costLine(cfg))
	return nil
}

// costLine is "judge: 10 calls replayed from DIR; 12345 tokens (…); $0.0012 by the price table".
func (j *judgeRun) costLine(cfg *scoring.Config) string {
	st := j.srv.Stats()
	u := j.judge.Usage()
	var how string
	if j.mode == proxy.ModeRecord {
		how = fmt.Sprintf("%d calls made, recorded into %s", st.Recorded, j.dir)
	} else {
		how = fmt.Sprintf("%d calls replayed from %s", st.Replayed, j.dir)
		if miss := st.Mismatched + st.Unmatched; miss > 0 {
			how += fmt.Sprintf(", %d not recorded", miss)
		}
		if st.Unused > 0 {
			how += fmt.Sprintf(", %d recorded calls unused", st.Unused)
		}
	}
	var total scoring.Usage
	cost, priced := 0.0, true
	for _, model := range slices.Sorted(maps.Keys(u.Tokens)) {
		t := u.Tokens[model]
		total.Prompt += t.Prompt
		total.Candidates += t.Candidates + t.Thoughts
		total.Total += t.Total
		c, ok := cfg.CostOf(model, t)
		priced = priced && ok
		cost += c
	}
	line := fmt.Sprintf("judge: %s; %d tokens (%d prompt, %d output)", how, total.Total, total.Prompt, total.Candidates)
	switch {
	case len(u.Tokens) == 0:
	case priced:
		line += fmt.Sprintf("; $%s by the price table (%s)", strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.6f", cost), "0"), "."), strings.Join(slices.Sorted(maps.Keys(u.Tokens)), ", "))
	default:
		line += "; cost unknown: a judge model has no price (add it under adkproxy.prices)"
	}
	return line
}

// judgesWithGemini says whether cfg has an LLM-judged criterion, which
// the judge computes with the Gemini API (a key is needed to record).
func judgesWithGemini(cfg *scoring.Config) bool {
	for _, cr := range cfg.Criteria {
		if scoring.IsJudged(cr.Metric) && !cr.Adkproxy {
			return true
		}
	}
	return false
}
