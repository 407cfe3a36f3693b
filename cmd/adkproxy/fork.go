// The 'adkproxy fork' command: flags and exit status; the fork is
// internal/feature/fork's.

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/adkproxy/adkproxy/internal/base/clilog"
	"github.com/adkproxy/adkproxy/internal/base/userfile"
	"github.com/adkproxy/adkproxy/internal/engine/wrap"
	"github.com/adkproxy/adkproxy/internal/feature/fork"
	"github.com/adkproxy/adkproxy/internal/wire"
	"github.com/adkproxy/adkproxy/proxy"
	"github.com/adkproxy/adkproxy/scoring"
	"github.com/urfave/cli/v2"
)

const forkExitStatusHelp = `EXIT STATUS:
   0    the continuation was recorded and the report written (whatever the variant scored)
   N    the wrapped COMMAND's own non-zero status in a variant, passed through (the report is written)
   64   usage error (unknown flag, missing --cassettes, --at or a change, bad value)
   65   a cassette, --expected or --config is unreadable or invalid, or the cassette has no step --at;
        --no-code and the config has custom metrics
   73   the --out folder or the --report file could not be written
   75   another adkproxy is recording into the --out folder
   76   the run differed from the recording before the fork point (nothing of it was sent upstream)`

func forkCommand() *cli.Command {
	return &cli.Command{
		Name:      "fork",
		Usage:     "replay a recorded run up to a step, change the request there and continue against a model",
		ArgsUsage: "-- COMMAND ARGS...",
		Description: "Runs COMMAND (the agent that made the recording) against a proxy that answers every model call\n" +
			"of --cassette before the step --at SESSION/INVOCATION/STEP from the recording, verified (a call\n" +
			"that differs is refused and never sent upstream), applies the changes to the call at that step\n" +
			"and to every later one (--model, --system-instruction, --set, --tools), and forwards those to\n" +
			"--upstream (the Gemini API with a key, or 'adkproxy fake'). The whole run is recorded into the\n" +
			"--out folder (with --samples K, as K samples NAME@1..NAME@K), and a report compares the\n" +
			"original with each variant: verdict and criteria scores (as score, with --expected and\n" +
			"--config), tool-call and response deltas, tokens, model calls and latency (as diff).\n" +
			"Works on Gemini's API and on its OpenAI-compatible endpoint. See docs/variance.md.\n\n" +
			forkExitStatusHelp,
		Flags: []cli.Flag{
			stringFlag("cassettes", "", "`DIR` of the recorded run (required)"),
			stringFlag("cassette", "default", "`NAME` of the cassette to fork"),
			stringFlag("at", "", "the step to fork at, `SESSION/INVOCATION/STEP` as ls numbers them, e.g. 1/2/0 (required)"),
			stringFlag("model", "", "from the fork point on, call `MODEL` instead"),
			stringFlag("system-instruction", "", "from the fork point on, send the text of `FILE` as the system instruction"),
			&cli.StringSliceFlag{Name: "set", Usage: "from the fork point on, set the request field `PATH=VALUE` (generationConfig.temperature=0.2; VALUE is JSON, else a string); repeatable", EnvVars: envFor("set")},
			stringFlag("tools", "", "from the fork point on, send the JSON array of tool declarations in `FILE` as the request's tools"),
			stringFlag("upstream", proxy.DefaultUpstream, "base `URL` the calls from the fork point on go to"),
			stringFlag("out", "", "`DIR` the forked run is recorded into (default: the --cassettes folder's name with .fork, beside it)"),
			&cli.IntFlag{Name: "samples", Usage: "record the continuation `K` times, as samples NAME@1..NAME@K of --out", EnvVars: envFor("samples")},
			stringFlag("expected", "", "score both sides against the eval set or golden run at `PATH` (as score --expected)"),
			stringFlag("config", "", "eval config `FILE` of the criteria (as score --config)"),
			noCodeFlag(),
			stringFlag("report", "", "write the report to `FILE` instead of stdout"),
			stringFlag("log-level", "warn", "`LEVEL` of the proxy's log on stderr: debug, info, warn or error"),
		},
		Action:       runFork,
		OnUsageError: commandUsageError,
	}
}

func runFork(c *cli.Context) error {
	o, sc, err := forkOptions(c)
	if err != nil {
		return err
	}
	variants, err := fork.Record(c.Context, o)
	if err != nil {
		return forkFailed(err)
	}
	cmp, err := fork.Compare(c.Context, o, sc, variants)
	if err != nil {
		return withCode(exitDataErr, err)
	}
	var out bytes.Buffer
	if err := fork.WriteText(&out, o, cmp); err != nil {
		return err
	}
	if err := writeOutput(c, c.String("report"), out.Bytes()); err != nil {
		return err
	}
	for _, v := range variants {
		var st *wrap.Status
		if errors.As(v.CommandErr, &st) {
			return withCode(st.Code, fmt.Errorf("fork: %s: the command failed: %w", v.Name, v.CommandErr))
		}
	}
	return nil
}

// forkFailed maps a fork error to its exit status.
func forkFailed(err error) error {
	switch {
	case errors.Is(err, fork.ErrBeforeFork):
		return withCode(exitUnmatched, fmt.Errorf("fork: %w", err))
	case exitCodeFor(err) != exitFailure:
		return err
	}
	return withCode(exitDataErr, fmt.Errorf("fork: %w", err))
}

// forkOptions reads the flags.
func forkOptions(c *cli.Context) (fork.Options, fork.Scoring, error) {
	var sc fork.Scoring
	if c.String("cassettes") == "" || c.String("at") == "" || !c.Args().Present() {
		return fork.Options{}, sc, usageErrorf("fork: --cassettes DIR, --at SESSION/INVOCATION/STEP and -- COMMAND are required (see 'adkproxy fork --help')")
	}
	at, err := fork.ParsePoint(c.String("at"))
	if err != nil {
		return fork.Options{}, sc, usageErrorf("fork: %v", err)
	}
	up, err := url.Parse(c.String("upstream"))
	if err != nil || (up.Scheme != "http" && up.Scheme != "https") || up.Host == "" {
		return fork.Options{}, sc, usageErrorf("fork: --upstream %q: want an http or https base URL", c.String("upstream"))
	}
	if k := c.Int("samples"); k < 0 || k > 9999 {
		return fork.Options{}, sc, usageErrorf("fork: --samples %d: want 1..9999", k)
	}
	logger, err := clilog.New(c.App.ErrWriter, "text", c.String("log-level"))
	if err != nil {
		return fork.Options{}, sc, withCode(exitUsage, err)
	}
	dir := strings.TrimRight(c.String("cassettes"), "/")
	o := fork.Options{Dir: dir, Cassette: c.String("cassette"), At: at, Upstream: up, Out: c.String("out"), Samples: c.Int("samples"),
		Command: c.Args().Slice(), Environ: os.Environ(), Stdout: c.App.Writer, Stderr: c.App.ErrWriter, Logger: logger}
	if o.Out == "" {
		o.Out = dir + ".fork"
	}
	if o.Change, err = forkChange(c); err != nil {
		return o, sc, err
	}
	sc, err = forkScoring(c)
	return o, sc, err
}

// forkChange reads the changes.
func forkChange(c *cli.Context) (wire.Change, error) {
	ch := wire.Change{Model: c.String("model")}
	if f := c.String("system-instruction"); f != "" {
		b, err := userfile.Read(f)
		if err != nil {
			return ch, withCode(exitDataErr, fmt.Errorf("--system-instruction: %w", err))
		}
		text := string(b)
		ch.SystemInstruction = &text
	}
	if f := c.String("tools"); f != "" {
		b, err := userfile.Read(f)
		if err != nil {
			return ch, withCode(exitDataErr, fmt.Errorf("--tools: %w", err))
		}
		var tools []any
		if err := json.Unmarshal(b, &tools); err != nil {
			return ch, withCode(exitDataErr, fmt.Errorf("--tools %s: want a JSON array of tool declarations: %v", f, err))
		}
		ch.Tools = b
	}
	for _, s := range c.StringSlice("set") {
		path, value, ok := strings.Cut(s, "=")
		if !ok || path == "" {
			return ch, usageErrorf("fork: --set %q: want PATH=VALUE, e.g. generationConfig.temperature=0.2", s)
		}
		raw := json.RawMessage(value)
		if !json.Valid(raw) {
			raw, _ = json.Marshal(value)
		}
		ch.Set = append(ch.Set, wire.SetField{Path: path, Value: raw})
	}
	if ch.Empty() {
		return ch, usageErrorf("fork: nothing to change at the fork point: give --model, --system-instruction, --set or --tools")
	}
	return ch, nil
}

// forkScoring reads --config and --expected.
func forkScoring(c *cli.Context) (fork.Scoring, error) {
	sc := fork.Scoring{Config: scoring.DefaultConfig()}
	var err error
	if f := c.String("config"); f != "" {
		if sc.Config, err = scoring.LoadConfig(f); err != nil {
			return sc, withCode(exitDataErr, fmt.Errorf("--config: %w", err))
		}
		if err := refuseCode(c, sc.Config); err != nil {
			return sc, err
		}
	}
	if f := c.String("expected"); f != "" {
		if sc.Expected, err = scoring.LoadExpected(f); err != nil {
			return sc, withCode(exitDataErr, fmt.Errorf("--expected: %w", err))
		}
	}
	return sc, nil
}
