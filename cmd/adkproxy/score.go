// The 'adkproxy score' command: flags, wiring and exit status; pairing,
// metrics and output formats are scoring's.

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/recorded"
	"github.com/adkproxy/adkproxy/internal/feature/report/htmlreport"
	"github.com/adkproxy/adkproxy/scoring"
	"github.com/urfave/cli/v2"
)

const scoreExitStatusHelp = `EXIT STATUS:
   0    every criterion of every case PASSED; with --baseline: the gate PASSED
   1    a case FAILED or was NOT_EVALUATED (no criterion of it evaluated), or no case could be
        scored; with --require-all also a criterion NOT_EVALUATED in a case that PASSED;
        with --baseline instead: the gate FAILED (the suite or a case surely worse)
   2    --baseline: the gate is INCONCLUSIVE (the suite's interval of difference holds -margin)
   64   usage error (unknown flag, missing --cassettes, bad --format)
   65   a cassette, the --config file or the --expected file is missing, unreadable or invalid;
        --no-code and the config has custom metrics
   73   the --out file, the --history file or a judge cassette could not be written
   75   --judge-mode record: another adkproxy is recording into the --judge-cassettes folder`

// scoreWriters are the --format values of score.
var scoreWriters = map[string]func(io.Writer, *scoring.Result) error{
	"table":    scoring.WriteTable,
	"json":     scoring.WriteJSON,
	"junit":    scoring.WriteJUnit,
	"markdown": scoring.WriteMarkdown,
}

func scoreCommand() *cli.Command {
	return &cli.Command{
		Name:  "score",
		Usage: "score recorded sessions against an ADK eval set, as 'adk eval' would",
		Description: "Reads the sessions recorded in the cassettes, pairs each with its eval case in --expected\n" +
			"(an ADK *.evalset.json file, a folder of them, or a folder of cassettes from a golden run),\n" +
			"and scores every pair with the criteria of --config (ADK's EvalConfig: test_config.json;\n" +
			"default: tool_trajectory_avg_score 1.0 and response_match_score 0.8). No agent or model is\n" +
			"run and nothing goes over the network: criteria that need Vertex AI are NOT_EVALUATED, and so\n" +
			"are LLM-judged ones without --judge-cassettes DIR, where the judge's verdicts are replayed\n" +
			"(or, with --judge-mode record and a key, recorded).\n\n" +
			"A CONFIG CAN RUN CODE: its custom metrics run their \"command\" (any program) or import their\n" +
			"code_config.name Python module, and a test_config.json beside the eval set is read without\n" +
			"--config. For a config you do not trust (a pull request's), give --no-code: it runs and imports\n" +
			"nothing and fails naming each custom metric it refused (docs/guarantees.md, the trust boundary).\n\n" +
			"--format table (default) is for people; json is ADK's EvalSetResult; junit is for CI test\n" +
			"reports; markdown is for pull request comments and job summaries; html is one self-contained\n" +
			"page with each invocation's scores and reasons beside the recorded and expected trajectories;\n" +
			"csv and jsonl are a row per case (scores, statuses, run metrics) for DuckDB, BigQuery or a\n" +
			"spreadsheet, with the columns of simulate's sessions.csv (see docs/scoring.md).\n" +
			"Sessions and eval cases that could not be paired are listed on stderr and in the output, and\n" +
			"are not scored.\n\n" +
			scoreExitStatusHelp,
		Flags: append([]cli.Flag{
			stringFlag("cassettes", "", "`PATH` of the recorded cassettes: a folder, or one cassette file (required; or give it as the argument)"),
			stringFlag("config", "", "eval config `FILE` (ADK's test_config.json, with an optional \"adkproxy\" object); default: ADK's default criteria"),
			stringFlag("expected", "", "`PATH` of the expectations: an *.evalset.json file, a folder of them, or a folder of golden-run cassettes"),
			stringFlag("format", "table", "output `FORMAT`: table, json (ADK EvalSetResult), junit, markdown, html (a page: each invocation's verdicts beside its trajectory), csv or jsonl (a row per case)"),
			analysisFlag(),
			stringFlag("label", "", "`NAME` of this run (baseline, exp_v2), written into every output; 'adkproxy diff' of two json results compares them by it"),
			stringFlag("out", "", "write the output to `FILE` (atomically) instead of stdout"),
			&cli.IntFlag{Name: "num-runs", Value: 1, Usage: "each eval case was played `N` times (drive or simulate --num-runs N): pair N sessions with each case and pool their results as adk eval does", EnvVars: envFor("num-runs")},
			stringFlag("python", scoring.DefaultPython, "Python `INTERPRETER` custom metrics given by code_config.name run in (ADK's function, called as adk eval calls it)"),
			personasFlag(),
			stringFlag("history", "", "also save the result where adk web reads an app's eval history: `DIR`/.adk/eval_history/<app>_<eval_set>_<time>.evalset_result.json, DIR being the agent's folder (its name the app)"),
			noCodeFlag(),
			boolFlag("require-all", "fail the run when any criterion was NOT_EVALUATED, even in a case that PASSED (ADK skips them)"),
			adkVersionFlag(),
			stringFlag("baseline", "", "gate against a baseline result `FILE` (an earlier score --format json, or adk eval's result): each case and the suite PASS, FAIL or are INCONCLUSIVE by the 95% interval of their pass-rate difference; the gate's verdict is the exit status (docs/variance.md)"),
			&cli.Float64Flag{Name: "margin", Usage: "with --baseline, how much lower a pass rate may be and still PASS, as a `DIFFERENCE` of rates (0.05: five points)", EnvVars: envFor("margin")},
		}, append(judgeFlags(), scoreOnlyJudgeFlags()...)...),
		ArgsUsage:    "[PATH]",
		Action:       runScore,
		OnUsageError: commandUsageError,
	}
}

func runScore(c *cli.Context) error {
	stopProgress := startProgress(c.App.ErrWriter, "adkproxy: scoring")
	defer stopProgress()
	dir, loaded, err := loadCassettes(c)
	if err != nil {
		return err
	}
	format := c.String("format")
	if _, ok := scoreWriters[format]; !ok && format != "html" && format != "csv" && format != "jsonl" {
		return usageErrorf("score: --format %q: want table, json, junit, markdown, html, csv or jsonl", format)
	}
	cfg, err := scoreConfig(c)
	if err != nil {
		return err
	}
	var exp *scoring.Expected
	if path := c.String("expected"); path != "" {
		if exp, err = scoring.LoadExpected(path); err != nil {
			return withCode(exitDataErr, fmt.Errorf("--expected: %w", err))
		}
	}
	runs := c.Int("num-runs")
	if runs < 1 {
		return usageErrorf("score: --num-runs %d: want 1 or more", runs)
	}
	cases, unpaired := scoring.PairRuns(scoring.SessionsOf(loaded), exp, runs)
	jr, err := startJudge(c, cfg)
	if err != nil {
		return err
	}
	result := scoring.Evaluate(c.Context, cfg, cases)
	if result.EvalSetID == "" && exp != nil {
		result.EvalSetID = exp.EvalSetID
	}
	result.Label = c.String("label")
	analysisErr := writeAnalysis(c, jr, result)
	if err := jr.finish(c, cfg); err != nil {
		return err
	}
	if analysisErr != nil {
		return analysisErr
	}
	result.Unpaired = append(result.Unpaired, unpaired...)
	result.RequireAll = c.Bool("require-all")
	stopProgress()
	sayNotScored(c.App.ErrWriter, result)
	if dir := c.String("history"); dir != "" {
		path, err := scoring.WriteHistory(dir, result, time.Now())
		if err != nil {
			return withCode(exitCantWrite, fmt.Errorf("--history: %w", err))
		}
		fmt.Fprintf(c.App.ErrWriter, "adkproxy: eval history: %s\n", path)
	}
	return writeScores(c, result, scoreWriter(format, dir, loaded, cfg), format)
}

// scoreConfig reads --config, or the test_config.json beside --expected
// (ADK's rule for test files), with the flags that change it.
func scoreConfig(c *cli.Context) (*scoring.Config, error) {
	cfg := scoring.DefaultConfig()
	configPath := c.String("config")
	if configPath == "" {
		if configPath = scoring.ConfigBeside(c.String("expected")); configPath != "" {
			fmt.Fprintf(c.App.ErrWriter, "adkproxy: config: %s (beside the eval set; --config overrides it)\n", configPath)
		}
	}
	if configPath != "" {
		var err error
		if cfg, err = scoring.LoadConfig(configPath); err != nil {
			return nil, withCode(exitDataErr, fmt.Errorf("--config: %w", err))
		}
	}
	if err := refuseCode(c, cfg); err != nil {
		return nil, err
	}
	cfg.Python = c.String("python")
	if err := applyADKVersion(c, cfg); err != nil {
		return nil, err
	}
	if err := loadPersonas(c); err != nil {
		return nil, err
	}
	return cfg, nil
}

// sayNotScored lists on w the runs left unpaired and the criteria not
// evaluated.
func sayNotScored(w io.Writer, result *scoring.Result) {
	for _, u := range result.Unpaired {
		fmt.Fprintf(w, "adkproxy: not scored: %s\n", strings.ReplaceAll(u, "\n", "\n  "))
	}
	if skipped := scoring.SkippedCriteria(result); len(skipped) > 0 {
		how := "skipped when judging their cases, as adk eval does (--require-all fails the run on them)"
		if result.RequireAll {
			how = "--require-all: the run fails"
		}
		fmt.Fprintf(w, "adkproxy: not evaluated, %s:\n", how)
		for _, s := range skipped {
			fmt.Fprintf(w, "  %s\n", s)
		}
	}
}

// scoreWriter writes a result in format.
func scoreWriter(format, dir string, loaded map[string]*cassettes.Cassette, cfg *scoring.Config) func(io.Writer, *scoring.Result) error {
	switch format {
	case "html":
		return func(w io.Writer, r *scoring.Result) error {
			return htmlreport.WriteScores(w, r, recorded.Build(dir, loaded))
		}
	case "csv":
		return func(w io.Writer, r *scoring.Result) error { return scoring.RowsOf(r, cfg).WriteCSV(w) }
	case "jsonl":
		return func(w io.Writer, r *scoring.Result) error { return scoring.RowsOf(r, cfg).WriteJSONL(w) }
	}
	return scoreWriters[format]
}

// writeScores writes the result to --out or stdout and picks the exit
// status; the verdict also goes to stderr, unless the table on stdout
// ends with it.
func writeScores(c *cli.Context, result *scoring.Result, write func(io.Writer, *scoring.Result) error, format string) error {
	var out bytes.Buffer
	if err := write(&out, result); err != nil {
		return fmt.Errorf("score: writing %s: %w", format, err)
	}
	summary := scoring.Summary(result)
	path := c.String("out")
	if err := writeOutput(c, path, out.Bytes()); err != nil {
		return err
	}
	if path != "" {
		summary += fmt.Sprintf(" (%s written to %s)", format, path)
	} else if format == "table" {
		summary = ""
	}
	if c.String("baseline") != "" {
		return gateScores(c, result, summary)
	} else if c.IsSet("margin") {
		return usageErrorf("score: --margin is the gate's: give it with --baseline FILE")
	}
	if scoring.ResultStatus(result) != scoring.Passed {
		return withCode(exitFailure, errors.New(summary)) // an empty message prints nothing
	}
	if summary != "" {
		fmt.Fprintln(c.App.ErrWriter, paletteFor(c.App.ErrWriter).green("adkproxy: "+summary))
	}
	return nil
}

// noCodeFlag is --no-code of the commands that can run a config's custom
// metrics (score, simulate, fork).
func noCodeFlag() cli.Flag {
	return boolFlag("no-code", "run no custom metric: a config's \"command\" and code_config.name are code; refuse them, naming each, for a config you do not trust")
}

// refuseCode is --no-code: exit 65 naming each custom metric of cfg.
func refuseCode(c *cli.Context, cfg *scoring.Config) error {
	if !c.Bool("no-code") {
		return nil
	}
	cfg.NoCode = true
	if err := cfg.RefuseCode(); err != nil {
		return withCode(exitDataErr, fmt.Errorf("--config: %w", err))
	}
	return nil
}
