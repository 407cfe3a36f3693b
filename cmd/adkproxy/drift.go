// The drift command: flags and wiring; the live run, the comparison and
// its views are internal/feature/drift's.

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/adkproxy/adkproxy/internal/engine/wrap"
	"github.com/adkproxy/adkproxy/internal/feature/drift"
	"github.com/urfave/cli/v2"
)

const driftExitStatusHelp = `EXIT STATUS:
   0    the live run was compared and nothing drifted at the --fail-on severity or above
   1    a change of the --fail-on severity or above (default medium) was found
   N    the agent's own non-zero status: the live run failed (the report is still written)
   64   usage error (no COMMAND, unknown flag, bad --format, --fail-on, --min-rouge or --upstream)
   65   --cassettes is missing, unreadable, corrupt or holds no cassette
   73   the --out file could not be written`

func driftCommand() *cli.Command {
	return &cli.Command{
		Name:      "drift",
		Usage:     "run the agent live and report how the API and the agent moved from the recording",
		ArgsUsage: "-- COMMAND [ARGS...]",
		Description: "Runs COMMAND live (against the Gemini API with your key, or --upstream) through a recording\n" +
			"proxy whose cassettes go to a temporary folder, and compares every step with its recording in\n" +
			"--cassettes, which is only read. Each change is sorted into request (the agent's own request\n" +
			"changed: its code moved), shape (the answer has a field added, removed or of another type, at\n" +
			"a named path) or behaviour (other tool calls, finish reason, status, response text below\n" +
			"--min-rouge, another modelVersion, a step more or less), with a severity: low (a field added),\n" +
			"medium (requests, finish reason, text, model version) or high (a field removed or retyped,\n" +
			"tool calls, status, steps). Then diff's comparison of the recording with the live run follows.\n" +
			"Schedule it in CI (weekly) and re-record when it fails. See docs/drift.md.\n\n" + driftExitStatusHelp,
		Flags: []cli.Flag{
			stringFlag("cassettes", "", "`PATH` of the recorded cassettes (a folder or one file); only read (required)"),
			stringFlag("upstream", "", "Gemini API base `URL` the live run goes to (default the Gemini API; a fake for tests)"),
			stringFlag("format", "text", "output `FORMAT`: text, json, markdown or html"),
			stringFlag("out", "", "write the report to `FILE` (atomically) instead of stdout"),
			stringFlag("fail-on", "medium", "exit 1 when a change of `SEVERITY` or above drifted: low, medium, high or never"),
			&cli.Float64Flag{Name: "min-rouge", Value: drift.DefaultMinRouge, Usage: "a response text whose ROUGE-1 F against the recorded one is below `X` (0 to 1) changed", EnvVars: envFor("min-rouge")},
		},
		Action:       runDrift,
		OnUsageError: commandUsageError,
	}
}

func runDrift(c *cli.Context) error {
	o, format, failOn, err := driftOptions(c)
	if err != nil {
		return err
	}
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(signals)
	o.Live.Signals = signals
	report, runErr := drift.Run(c.Context, o)
	if report == nil {
		return driftError(runErr)
	}
	var out bytes.Buffer
	if err := drift.Write(&out, report, format); err != nil {
		return err
	}
	if err := writeOutput(c, c.String("out"), out.Bytes()); err != nil {
		return err
	}
	fmt.Fprintln(c.App.ErrWriter, "adkproxy: "+drift.SummaryLine(report))
	if runErr != nil {
		return driftError(runErr)
	}
	if report.Fails(failOn) {
		return withCode(exitFailure, fmt.Errorf("drift: %s or higher drifted (--fail-on %s)", failOn, failOn))
	}
	return nil
}

// driftOptions reads the flags; a usage error names the flag.
func driftOptions(c *cli.Context) (o drift.Options, format string, failOn drift.Severity, err error) {
	if !c.Args().Present() {
		return o, "", "", usageErrorf("drift: give the agent's command after --: adkproxy drift --cassettes DIR -- COMMAND")
	}
	if o.Dir = c.String("cassettes"); o.Dir == "" {
		return o, "", "", usageErrorf("drift: --cassettes PATH is required (the recorded cassettes it compares with)")
	}
	if format = c.String("format"); !slices.Contains(drift.Formats, format) {
		return o, "", "", usageErrorf("drift: --format %q: want %s", format, strings.Join(drift.Formats, ", "))
	}
	if failOn, err = drift.ParseSeverity(c.String("fail-on")); err != nil {
		return o, "", "", usageErrorf("drift: --fail-on %v", err)
	}
	if o.MinRouge = c.Float64("min-rouge"); o.MinRouge <= 0 || o.MinRouge > 1 {
		return o, "", "", usageErrorf("drift: --min-rouge %v: want a number above 0, at most 1", o.MinRouge)
	}
	if u := c.String("upstream"); u != "" {
		if o.Live.Upstream, err = parseUpstream("--upstream", u); err != nil {
			return o, "", "", withCode(exitUsage, err)
		}
	}
	o.Live.Command, o.Live.Environ = c.Args().Slice(), os.Environ()
	o.Live.Stdout, o.Live.Stderr, o.Live.Version = c.App.ErrWriter, c.App.ErrWriter, versionText()
	return o, format, failOn, nil
}

// driftError gives the agent's own status when the live run failed, 65
// for an unreadable folder.
func driftError(err error) error {
	var st *wrap.Status
	if errors.As(err, &st) {
		return withCode(st.Code, err)
	}
	return err
}
