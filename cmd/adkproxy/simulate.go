// The 'adkproxy simulate' command: flags, wiring and exit status; the
// conversations, the simulated user and the outputs are package simulate's.

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/internal/base/adkapi"
	"github.com/adkproxy/adkproxy/internal/base/numruns"
	"github.com/adkproxy/adkproxy/internal/base/samplename"
	"github.com/adkproxy/adkproxy/internal/base/userfile"
	"github.com/adkproxy/adkproxy/internal/data/evalset"
	"github.com/adkproxy/adkproxy/internal/data/scenarios"
	"github.com/adkproxy/adkproxy/internal/feature/eval/simulate"
	"github.com/adkproxy/adkproxy/proxy"
	"github.com/adkproxy/adkproxy/scoring"
)

const simulateExitStatusHelp = `EXIT STATUS:
   0    every conversation ran to its end (stop signal, turn limit, or a static conversation's last turn)
   1    a conversation failed (the simulated user gave no reply, the agent's server failed), or
        --samples: the recording proxy could not be switched (the samples played are written)
   64   usage error (missing --server, --app, --out, or --scenarios/--evalset; --samples without
        --proxy-url or out of 1..9999)
   65   the --scenarios, --evalset, --session-input or --config file is missing or invalid,
        or --sim-cassettes does not exist in replay; --no-code and the config has custom metrics
   73   an output file or a simulated-user cassette could not be written
   75   --sim-mode record: another adkproxy is recording into the --sim-cassettes folder
   76   replay: a conversation diverged from its recording (the agent answered differently), a
        simulated turn was not recorded, or recorded turns were left unused; --lenient reports
        divergences without failing`

func simulateCommand() *cli.Command {
	return &cli.Command{
		Name:  "simulate",
		Usage: "play ADK conversation scenarios against an agent's API server with a simulated user, recorded once and replayed offline",
		Description: "For each scenario of --scenarios (ADK's {\"scenarios\": [...]} file) a session is created on the\n" +
			"ADK API server at --server (with --session-input's user and state), the starting prompt is sent\n" +
			"verbatim, and an LLM-backed simulated user writes each next turn from the conversation plan, the\n" +
			"persona and the history, as ADK's user simulator does, until it writes the stop signal\n" +
			"</finished> or max_allowed_invocations of --config's user_simulator_config is reached. Eval\n" +
			"cases of --evalset are played too: a static conversation turn by turn, a\n" +
			"conversation_scenario like a scenario.\n\n" +
			"The simulated user's model calls are recorded into --sim-cassettes DIR (one cassette per\n" +
			"scenario id, one invocation per turn, \"<scenario>/turn-<N>\") when GOOGLE_API_KEY or\n" +
			"GEMINI_API_KEY is set, and replayed from it otherwise. In replay a turn whose request\n" +
			"differs from its recording (the agent answered differently) is reported as\n" +
			"\"scenario S diverged at turn N\" with the difference; the recorded user turn is still sent.\n" +
			"The agent's time per turn is kept beside each cassette (<scenario>.timings.json) when recording,\n" +
			"and reported by a replay, so its outputs are byte-identical to the recording's.\n\n" +
			"--out DIR receives sessions/<scenario>.json, simulated.evalset.json, question_answer_log.md,\n" +
			"sessions.csv, sessions.jsonl and eval_summary.json (see docs/scenarios.md).\n\n" +
			simulateExitStatusHelp,
		Flags: append([]cli.Flag{
			stringFlag("server", "", "`URL` of the agent's ADK API server (adk api_server) (required)"),
			stringFlag("prefix", "", "`PATH` the server serves its API under: /api for ADK Go, none for ADK Python and ADK-JS"),
			stringFlag("app", "", "the agent's app `NAME` on the server (required)"),
			stringFlag("scenarios", "", "ADK scenarios `FILE`: {\"scenarios\": [{starting_prompt, conversation_plan, user_persona}…]}"),
			stringFlag("evalset", "", "ADK eval set `FILE` whose cases are played too: static conversations turn by turn, scenarios simulated"),
			personasFlag(),
			&cli.IntFlag{Name: "num-runs", Value: 1, Usage: "play each case `N` times, each run in a session of its own (for score --num-runs N)", EnvVars: envFor("num-runs")},
			&cli.IntFlag{Name: "samples", Usage: "play every case `K` times, sample N's agent traffic recorded as cassette NAME@N of the recording proxy and its simulated user's turns as cassette <case>@N (needs --proxy-url, the adkproxy record the server runs under)", EnvVars: envFor("samples")},
			stringFlag("session-input", "", "ADK session_input `FILE` ({app_name, user_id, state}) the sessions are created with (an --evalset case's own session_input wins); default user test_user_id, empty state"),
			stringFlag("config", "", "eval config `FILE` (test_config.json): its user_simulator_config drives the simulated user, its criteria score each session"),
			noCodeFlag(),
			&cli.IntFlag{Name: "parallel", Value: 1, Usage: "play `N` conversations at once", EnvVars: envFor("parallel")},
			stringFlag("out", "", "`DIR` the outputs are written to (required)"),
			stringFlag("sim-cassettes", "", "`DIR` of the simulated user's cassettes (required with scenarios)"),
			stringFlag("sim-mode", "", "`MODE` of the simulated user: record (needs GOOGLE_API_KEY or GEMINI_API_KEY) or replay; default record when a key is set, else replay"),
			stringFlag("sim-base-url", proxy.DefaultUpstream, "Gemini-compatible `URL` the simulated user calls in record mode"),
			boolFlag("lenient", "report replay divergences without failing the run"),
			analysisFlag(),
			adkVersionFlag(),
			judgePromptsFlag(),
		}, append(append(judgeFlags(), confirmReportFlags()...), outboundFlags()...)...),
		Action:       runSimulate,
		OnUsageError: commandUsageError,
	}
}

func runSimulate(c *cli.Context) error {
	server, cases, err := simulateInputs(c)
	if err != nil {
		return err
	}
	simCfg, scoreCfg, err := simulateConfigs(c)
	if err != nil {
		return err
	}
	var jr *judgeRun
	switch {
	case scoreCfg != nil:
		if jr, err = startJudge(c, scoreCfg); err != nil {
			return err
		}
	case c.String("judge-cassettes") != "":
		return usageErrorf("simulate: --judge-cassettes needs a --config with criteria to judge")
	}
	rec, err := startSimUser(c, cases)
	if err != nil {
		return err
	}
	opts := simulate.Options{Server: server, App: c.String("app"), Config: simCfg, Parallel: c.Int("parallel"), Report: confirmReporter(c)}
	if isTerminal(c.App.ErrWriter) {
		opts.Progress = c.App.ErrWriter
	}
	if rec != nil {
		opts.Model, opts.Chat = rec.client, rec.chat
		if rec.mode == proxy.ModeReplay {
			opts.Misses, opts.Stats = rec.Server.Misses, rec.Server.Stats
		}
	}
	runner, err := simulate.New(opts)
	if err != nil {
		if rec != nil {
			rec.close()
		}
		return withCode(exitDataErr, fmt.Errorf("--config: %w", err))
	}
	start := time.Now()
	transcripts, sampleErr := runner.RunSamples(c.Context, cases, c.Int("samples"), confirmReporter(c), c.App.ErrWriter)
	wall := time.Since(start)
	unused, err := keepSimUser(rec, transcripts)
	if err != nil {
		return err
	}
	report := simulate.NewReport(transcripts, scoreCfg)
	report.Wall = wall
	if err := scoreSimulated(c, jr, report, scoreCfg); err != nil {
		return err
	}
	if err := report.Write(c.String("out")); err != nil {
		return withCode(exitCantWrite, fmt.Errorf("--out: %w", err))
	}
	if sampleErr != nil { // the samples played so far are kept
		return withCode(exitFailure, fmt.Errorf("simulate --%w", sampleErr))
	}
	return simulateVerdict(c, transcripts, unused)
}

// simulateInputs checks the required flags and reads the agent's server
// and the cases, each played --num-runs times.
func simulateInputs(c *cli.Context) (*adkapi.Client, []*simulate.Case, error) {
	for _, f := range []string{"server", "app", "out"} {
		if c.String(f) == "" {
			return nil, nil, usageErrorf("simulate: --%s is required", f)
		}
	}
	if c.String("scenarios") == "" && c.String("evalset") == "" {
		return nil, nil, usageErrorf("simulate: give --scenarios FILE or --evalset FILE (or both)")
	}
	if c.Int("parallel") < 1 {
		return nil, nil, usageErrorf("simulate: --parallel %d: want 1 or more", c.Int("parallel"))
	}
	if k := c.Int("samples"); k != 0 && (k < 0 || k > samplename.Max || c.String("proxy-url") == "") {
		return nil, nil, usageErrorf("simulate: --samples %d needs a number 1..%d and --proxy-url, the adkproxy record the server runs under (its --addr-file)", k, samplename.Max)
	}
	server, err := adkapi.New(c.String("server"), c.String("prefix"))
	if err != nil {
		return nil, nil, usageErrorf("simulate: --server: %v", err)
	}
	policy, err := outboundPolicy(c)
	if err != nil {
		return nil, nil, err
	}
	server.HTTPClient = policy.Client()
	if err := loadPersonas(c); err != nil {
		return nil, nil, err
	}
	cases, err := simulateCases(c)
	if err != nil {
		return nil, nil, err
	}
	if cases, err = numruns.Repeat(cases, c.Int("num-runs"), (*simulate.Case).Nth); err != nil {
		return nil, nil, usageErrorf("simulate: %v", err)
	}
	return server, cases, nil
}

// simulateConfigs reads --config: the simulated user's settings, and the
// criteria to score with when it names any.
func simulateConfigs(c *cli.Context) (scenarios.SimulatorConfig, *scoring.Config, error) {
	simCfg := scenarios.DefaultSimulatorConfig()
	if err := applyADKVersion(c, nil); err != nil {
		return simCfg, nil, err
	}
	path := c.String("config")
	if path == "" {
		return simCfg, nil, nil
	}
	simCfg, err := scenarios.LoadSimulatorConfig(path)
	if err != nil {
		return simCfg, nil, withCode(exitDataErr, fmt.Errorf("--config: %w", err))
	}
	if !hasCriteria(path) {
		return simCfg, nil, nil
	}
	scoreCfg, err := scoring.LoadConfig(path)
	if err != nil {
		return simCfg, nil, withCode(exitDataErr, fmt.Errorf("--config: %w", err))
	}
	if err := refuseCode(c, scoreCfg); err != nil {
		return simCfg, nil, err
	}
	return simCfg, scoreCfg, applyADKVersion(c, scoreCfg)
}

// startSimUser starts the simulated user's recorder when a case needs the
// model (nil when none does).
func startSimUser(c *cli.Context, cases []*simulate.Case) (*modelRecorder, error) {
	if !needsModel(cases) {
		return nil, nil
	}
	if c.String("sim-cassettes") == "" {
		return nil, usageErrorf("simulate: --sim-cassettes DIR is required: the simulated user's model calls are recorded there, or replayed from it")
	}
	return startModelRecorder(c, modelRecorderFlags{command: "simulate", dir: "sim-cassettes", mode: "sim-mode",
		baseURL: "sim-base-url", what: "the simulated user", model: "the simulated user's model",
		rerecord: "record the simulated user again: adkproxy simulate --sim-mode record, with a key",
		lenient:  true})
}

// keepSimUser keeps the agent's turn times beside the simulated user's
// cassettes when recording, so that a replay reports the recording's
// (docs/scenarios.md), or reads them back in replay; then writes the
// cassettes. It returns how many recorded turns replay left unused.
func keepSimUser(rec *modelRecorder, transcripts []*simulate.Transcript) (unused int64, err error) {
	if rec == nil {
		return 0, nil
	}
	keep, code := simulate.UseRecordedTimings, exitDataErr
	if rec.mode == proxy.ModeRecord {
		keep, code = simulate.SaveTimings, exitCantWrite
	}
	if err := keep(rec.dir, transcripts); err != nil {
		rec.close()
		return 0, withCode(code, fmt.Errorf("--sim-cassettes: %w", err))
	}
	if err := rec.close(); err != nil {
		return 0, fmt.Errorf("--sim-cassettes: %w", err)
	}
	if rec.mode == proxy.ModeReplay {
		unused = rec.Server.Stats().Unused
	}
	return unused, nil
}

// scoreSimulated scores the sessions with scoreCfg's criteria, if any,
// and writes --analysis.
func scoreSimulated(c *cli.Context, jr *judgeRun, report *simulate.Report, scoreCfg *scoring.Config) error {
	if scoreCfg == nil {
		return writeAnalysis(c, nil, nil)
	}
	report.Scores = scoring.Evaluate(c.Context, scoreCfg, report.Cases)
	analysisErr := writeAnalysis(c, jr, report.Scores)
	if err := jr.finish(c, scoreCfg); err != nil {
		return err
	}
	return analysisErr
}

// simulateVerdict reports failures and divergences on stderr and picks
// the exit status.
func simulateVerdict(c *cli.Context, ts []*simulate.Transcript, unused int64) error {
	failed, diverged := 0, 0
	for _, t := range ts {
		if t.Failed() {
			failed++
			fmt.Fprintf(c.App.ErrWriter, "adkproxy: scenario %s failed: %s\n", t.Case.ID, t.Failure)
		}
		if len(t.Divergences) > 0 {
			diverged++
			d := t.Divergences[0]
			msg := strings.ReplaceAll(d.String(), "\n", "\n  ")
			if n := len(t.Divergences) - 1; n > 0 {
				msg += fmt.Sprintf("\n  (and %d later turn(s), whose history holds the same difference)", n)
			}
			fmt.Fprintln(c.App.ErrWriter, "adkproxy: "+msg)
		}
	}
	summary := fmt.Sprintf("simulate: %d conversation(s), %d failed, %d diverged; outputs in %s", len(ts), failed, diverged, c.String("out"))
	switch {
	case (diverged > 0 || unused > 0) && !c.Bool("lenient"):
		if unused > 0 {
			summary += fmt.Sprintf("; %d recorded simulated turn(s) unused (a conversation ended earlier than recorded)", unused)
		}
		return withCode(exitUnmatched, errors.New(summary+" (--lenient reports divergences without failing)"))
	case failed > 0:
		return withCode(exitFailure, errors.New(summary))
	}
	fmt.Fprintln(c.App.ErrWriter, "adkproxy: "+summary)
	return nil
}

// hasCriteria says whether an eval config names criteria to score with
// (criteria, custom_metrics or adkproxy's criteria): a config that only
// sets user_simulator_config scores nothing.
func hasCriteria(path string) bool {
	data, err := userfile.Read(path)
	if err != nil {
		return true // LoadConfig reports it
	}
	var doc map[string]json.RawMessage
	if json.Unmarshal(data, &doc) != nil {
		return true
	}
	var ours struct {
		Criteria map[string]json.RawMessage `json:"criteria"`
	}
	_ = json.Unmarshal(doc["adkproxy"], &ours)
	return nonEmpty(doc["criteria"]) || nonEmpty(doc["custom_metrics"]) || nonEmpty(doc["customMetrics"]) || len(ours.Criteria) > 0
}

func nonEmpty(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return s != "" && s != "null" && s != "{}" && s != "[]"
}

func needsModel(cases []*simulate.Case) bool {
	for _, c := range cases {
		if c.Scenario != nil {
			return true
		}
	}
	return false
}

// simulateCases reads --scenarios, --evalset and --session-input.
func simulateCases(c *cli.Context) ([]*simulate.Case, error) {
	input := scenarios.DefaultSessionInput()
	if path := c.String("session-input"); path != "" {
		var err error
		if input, err = scenarios.LoadSessionInput(path); err != nil {
			return nil, withCode(exitDataErr, fmt.Errorf("--session-input: %w", err))
		}
	}
	var cases []*simulate.Case
	seen := map[string]bool{}
	add := func(sc *simulate.Case) error {
		if seen[sc.ID] {
			return withCode(exitDataErr, fmt.Errorf("two cases have the id %s (the same scenario twice?)", sc.ID))
		}
		seen[sc.ID] = true
		cases = append(cases, sc)
		return nil
	}
	if path := c.String("scenarios"); path != "" {
		list, err := scenarios.LoadFile(path)
		if err != nil {
			return nil, withCode(exitDataErr, fmt.Errorf("--scenarios: %w", err))
		}
		for i := range list {
			if err := add(&simulate.Case{ID: list[i].ID(), Scenario: &list[i], Input: input}); err != nil {
				return nil, err
			}
		}
	}
	if path := c.String("evalset"); path != "" {
		set, err := evalset.ReadFile(path)
		if err != nil {
			return nil, withCode(exitDataErr, fmt.Errorf("--evalset: %w", err))
		}
		for i, ec := range set.EvalCases {
			sc, err := evalCase(path, i, ec, input)
			if err != nil {
				return nil, withCode(exitDataErr, fmt.Errorf("--evalset: %w", err))
			}
			if err := add(sc); err != nil {
				return nil, err
			}
		}
	}
	if len(cases) == 0 {
		return nil, withCode(exitDataErr, errors.New("simulate: the --scenarios and --evalset files hold no case"))
	}
	return cases, nil
}

// evalCase is case i of an eval set: its own session_input if it has one
// (ADK: it wins over --session-input), its scenario or static turns.
func evalCase(path string, i int, ec evalset.EvalCase, input scenarios.SessionInput) (*simulate.Case, error) {
	sc := &simulate.Case{ID: ec.EvalID, Input: input}
	if ec.SessionInput != nil {
		var err error
		if sc.Input, err = scenarios.ParseSessionInputField(path, fmt.Sprintf("eval_cases[%d].session_input", i), evalset.RawJSON(ec.SessionInput)); err != nil {
			return nil, err
		}
	}
	if ec.Scenario != nil {
		s, err := scenarios.ParseScenario(path, fmt.Sprintf("eval_cases[%d].conversation_scenario", i), evalset.RawJSON(ec.Scenario))
		if err != nil {
			return nil, err
		}
		sc.Scenario = &s
	}
	for _, inv := range ec.Conversation {
		sc.Static = append(sc.Static, genai.NewContentFromText(inv.UserContent.Text(), genai.RoleUser))
	}
	return sc, nil
}
