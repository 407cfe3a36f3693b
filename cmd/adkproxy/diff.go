// The diff command: flags and wiring; the comparison and its views are
// rundiff's (and htmlreport's for --format html).

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/recorded"
	"github.com/adkproxy/adkproxy/internal/feature/report/htmlreport"
	"github.com/adkproxy/adkproxy/internal/feature/report/rundiff"
	"github.com/adkproxy/adkproxy/internal/feature/report/scorediff"
	"github.com/adkproxy/adkproxy/matcher"
	"github.com/adkproxy/adkproxy/scoring"
	"github.com/urfave/cli/v2"
)

const diffExitStatusHelp = `EXIT STATUS:
   0    the runs were compared and no change of a --fail-on class was found
   1    a change of the --fail-on class was found, or a final response's similarity fell below --min-rouge
   64   usage error (not two paths, unknown flag, bad --format, --fail-on, --color, --ignore or --min-rouge)
   65   a cassette or the --config file is missing, unreadable or invalid
   73   the --out file could not be written`

// diffFormats are the --format values of diff.
var diffFormats = []string{"text", "json", "markdown", "html"}

func diffCommand() *cli.Command {
	return &cli.Command{
		Name:      "diff",
		Usage:     "show what an agent does differently between two recorded runs",
		ArgsUsage: "OLD NEW",
		Description: "OLD and NEW are each a cassette folder or a single cassette file (a golden run and a new\n" +
			"recording). Cassettes are paired by name, sessions by their first user turn then order,\n" +
			"invocations in order (re-aligned by user text where one run has extra turns); added and removed\n" +
			"ones are reported. Per invocation: tool calls added, removed, moved or called with other\n" +
			"arguments, tool results that differ, the final response (word diff and ROUGE-1 F), what each\n" +
			"agent's model was sent (model, generation config, system instruction, tool declarations) and the\n" +
			"cost in tokens, model calls and latency. A summary line goes to stderr. See docs/diff.md.\n\n" +
			"OLD and NEW may instead be two score results ('adkproxy score --format json --label NAME'):\n" +
			"then diff prints, per criterion, each run's mean score and pass rate and their change\n" +
			"(text, json or markdown).\n\n" +
			diffExitStatusHelp,
		Flags: []cli.Flag{
			stringFlag("format", "text", "output `FORMAT`: text, json, markdown or html"),
			stringFlag("out", "", "write the output to `FILE` (atomically) instead of stdout"),
			&cli.StringSliceFlag{Name: "ignore", Usage: "leave the field at `PATH` (matcher syntax, e.g. request_id, filters[*].ts) out of every tool call's arguments and tool result (repeatable)", EnvVars: envFor("ignore")},
			stringFlag("config", "", "eval config `FILE` whose adkproxy.arg_matchers decide which argument changes count"),
			stringFlag("fail-on", "none", "exit 1 when a change of `CLASS` is present: none, tools, args, response or any"),
			&cli.Float64Flag{Name: "min-rouge", Usage: "exit 1 when a final response's ROUGE-1 F against the old one is below `X` (0 to 1)", EnvVars: envFor("min-rouge")},
			stringFlag("color", "auto", "`WHEN` to colour text output: auto (on a terminal, unless NO_COLOR is set), always or never"),
		},
		Action:       runDiff,
		OnUsageError: commandUsageError,
	}
}

func runDiff(c *cli.Context) error {
	if c.NArg() != 2 {
		return usageErrorf("diff: want two paths, OLD and NEW (cassette folders or files), got %d", c.NArg())
	}
	format := c.String("format")
	if !slices.Contains(diffFormats, format) {
		return usageErrorf("diff: --format %q: want text, json, markdown or html", format)
	}
	color := c.String("color")
	if !slices.Contains([]string{"auto", "always", "never"}, color) {
		return usageErrorf("diff: --color %q: want auto, always or never", color)
	}
	failOn, minRouge := c.String("fail-on"), c.Float64("min-rouge")
	if !slices.Contains(rundiff.FailClasses, failOn) {
		return usageErrorf("diff: --fail-on %q: want none, tools, args, response or any", failOn)
	}
	if minRouge < 0 || minRouge > 1 {
		return usageErrorf("diff: --min-rouge %g: want a number from 0 to 1", minRouge)
	}
	opt, err := diffOptions(c)
	if err != nil {
		return err
	}
	oldPath, newPath := c.Args().Get(0), c.Args().Get(1)
	if oldResult, newResult := scorediff.IsResultFile(oldPath), scorediff.IsResultFile(newPath); oldResult || newResult {
		if !oldResult || !newResult {
			result, other := oldPath, newPath
			if newResult {
				result, other = newPath, oldPath
			}
			return usageErrorf("diff: %s is a score result and %s is not: compare two score results (score --format json) or two recorded runs", result, other)
		}
		return diffScores(c, oldPath, newPath, format)
	}
	report, err := diffRuns(oldPath, newPath, opt)
	if err != nil {
		return err
	}
	if err := writeDiff(c, report, format, color); err != nil {
		return err
	}
	failures, err := report.Failures(failOn, minRouge)
	if err != nil {
		return usageErrorf("diff: %v", err)
	}
	if len(failures) > 0 {
		return withCode(exitFailure, errors.New("diff: failed (--fail-on "+failOn+"): "+strings.Join(failures, ", ")))
	}
	return nil
}

// diffOptions reads --ignore and --config's argument matchers.
func diffOptions(c *cli.Context) (rundiff.Options, error) {
	var opt rundiff.Options
	for _, s := range c.StringSlice("ignore") {
		p, err := matcher.ParsePath(s)
		if err != nil {
			return opt, usageErrorf("diff: --ignore: %v", err)
		}
		opt.Ignore = append(opt.Ignore, p)
	}
	if path := c.String("config"); path != "" {
		cfg, err := scoring.LoadConfig(path)
		if err != nil {
			return opt, withCode(exitDataErr, fmt.Errorf("--config: %w", err))
		}
		opt.ArgMatchers = cfg.Adkproxy.ArgMatchers
	}
	return opt, nil
}

// diffRuns loads two recorded runs and compares them.
func diffRuns(oldPath, newPath string, opt rundiff.Options) (*rundiff.Report, error) {
	old, oldFile, err := loadRun(oldPath)
	if err != nil {
		return nil, withCode(exitDataErr, fmt.Errorf("OLD: %w", err))
	}
	new, newFile, err := loadRun(newPath)
	if err != nil {
		return nil, withCode(exitDataErr, fmt.Errorf("NEW: %w", err))
	}
	if oldFile && newFile { // two files are compared whatever their names
		new.Cassettes[0].Name = old.Cassettes[0].Name
	}
	return rundiff.Diff(oldPath, newPath, old, new, opt), nil
}

// writeDiff writes the report in format to --out or stdout, and its
// summary line to stderr.
func writeDiff(c *cli.Context, report *rundiff.Report, format, color string) error {
	var out bytes.Buffer
	var err error
	switch format {
	case "json":
		err = rundiff.WriteJSON(&out, report)
	case "markdown":
		err = rundiff.WriteMarkdown(&out, report)
	case "html":
		err = htmlreport.WriteDiff(&out, report)
	default:
		err = rundiff.WriteText(&out, report, colorFor(color, c.App.Writer, c.String("out") != ""))
	}
	if err != nil {
		return fmt.Errorf("diff: writing %s: %w", format, err)
	}
	if err := writeOutput(c, c.String("out"), out.Bytes()); err != nil {
		return err
	}
	fmt.Fprintf(c.App.ErrWriter, "%s\n", rundiff.SummaryLine(report))
	return nil
}

// loadRun reads one side: a folder of cassettes, or one cassette file
// (isFile).
func loadRun(path string) (run recorded.Run, isFile bool, err error) {
	dir, loaded, err := cassettes.LoadPath(path)
	if err != nil {
		return recorded.Run{}, false, err
	}
	info, _ := os.Stat(path)
	return recorded.Build(dir, loaded), !info.IsDir(), nil
}

// colorFor decides --color: auto colours a terminal (see paletteFor),
// never the --out file.
func colorFor(when string, stdout io.Writer, toFile bool) bool {
	switch when {
	case "always":
		return true
	case "never":
		return false
	}
	return !toFile && paletteFor(stdout).on
}

// diffScores compares two score result files by criterion.
func diffScores(c *cli.Context, oldPath, newPath, format string) error {
	for _, f := range []string{"fail-on", "min-rouge", "ignore", "config"} {
		if c.IsSet(f) {
			return usageErrorf("diff: --%s compares recorded runs, not score results", f)
		}
	}
	old, err := scorediff.Load(oldPath)
	if err != nil {
		return withCode(exitDataErr, fmt.Errorf("OLD: %w", err))
	}
	new, err := scorediff.Load(newPath)
	if err != nil {
		return withCode(exitDataErr, fmt.Errorf("NEW: %w", err))
	}
	report := scorediff.Compare(old, new)
	var out bytes.Buffer
	switch format {
	case "json":
		err = scorediff.WriteJSON(&out, report)
	case "markdown":
		err = scorediff.WriteMarkdown(&out, report)
	case "html":
		return usageErrorf("diff: --format html: two score results are compared as text, json or markdown")
	default:
		err = scorediff.WriteText(&out, report)
	}
	if err != nil {
		return fmt.Errorf("diff: writing %s: %w", format, err)
	}
	if err := writeOutput(c, c.String("out"), out.Bytes()); err != nil {
		return err
	}
	fmt.Fprintln(c.App.ErrWriter, scorediff.SummaryLine(report))
	return nil
}
