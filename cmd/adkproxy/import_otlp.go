// The 'adkproxy import otlp' command: flags and wiring; the import is
// package otlpimport's.

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/textfmt"
	"github.com/adkproxy/adkproxy/internal/feature/otlpimport"
	"github.com/urfave/cli/v2"
)

const importOTLPExitStatusHelp = `EXIT STATUS:
   0    the cassette and the eval set were written (model calls whose spans lack bodies are listed)
   64   usage error (unknown flag, missing FILE or --out, a --redact-pattern that is not a regular expression)
   65   FILE is unreadable, not OTLP JSON, or no call_llm span carries the bodies to rebuild a model call
        (the message names the file and the field)
   73   the cassette, the eval set or the --replacements file could not be written`

func importOTLPCommand() *cli.Command {
	return &cli.Command{
		Name:      "otlp",
		Usage:     "turn ADK's OpenTelemetry spans (an OTLP JSON export) into a cassette and an eval set, personal data replaced",
		ArgsUsage: "FILE",
		Description: "Reads ADK's spans (invocation → invoke_agent/agent_run → call_llm → execute_tool) from FILE, an\n" +
			"OTLP JSON export such as 'adkproxy export --format otlp-json' or a collector's file exporter writes,\n" +
			"rebuilds each call_llm as a generateContent exchange from its gcp.vertex.agent.llm_request and\n" +
			"llm_response, and writes DIR/<name>.yaml and DIR/<name>.evalset.json (one trace is one invocation).\n" +
			"Before anything is built, emails, phone numbers, card numbers, tokens and --redact-pattern matches\n" +
			"are replaced by stable placeholders (<EMAIL_1>, <CARD_1>, …), listed on stderr for review.\n\n" +
			importOTLPExitStatusHelp,
		Flags: []cli.Flag{
			stringFlag("out", "", "`DIR` to write the cassette and the eval set to (required)"),
			stringFlag("name", "", "`NAME` of the cassette and the eval set (default: FILE's name without its extensions)"),
			&cli.StringSliceFlag{Name: "redact-pattern", Usage: "also replace what the regular expression `REGEX` matches, as <REDACTED_n> (repeatable)", EnvVars: envFor("redact-pattern")},
			stringFlag("replacements", "", "also write the list of replacements to `FILE` as JSON (placeholders and masked values, never the values)"),
		},
		Action:       runImportOTLP,
		OnUsageError: commandUsageError,
	}
}

// importOTLPArgs reads FILE and the flags, which may follow it.
func importOTLPArgs(c *cli.Context) (string, otlpimport.Options, string, error) {
	args := c.Args().Slice()
	opts := otlpimport.Options{Out: c.String("out"), Name: c.String("name"), Patterns: c.StringSlice("redact-pattern")}
	replacements := c.String("replacements")
	if len(args) > 1 {
		// urfave/cli stops at the first argument; the usage puts flags after it.
		set := flag.NewFlagSet("import otlp", flag.ContinueOnError)
		set.SetOutput(io.Discard)
		set.StringVar(&opts.Out, "out", opts.Out, "")
		set.StringVar(&opts.Name, "name", opts.Name, "")
		set.StringVar(&replacements, "replacements", replacements, "")
		set.Func("redact-pattern", "", func(s string) error { opts.Patterns = append(opts.Patterns, s); return nil })
		if err := set.Parse(args[1:]); err != nil {
			return "", opts, "", usageErrorf("import otlp: %v", err)
		}
		args = append(args[:1], set.Args()...)
	}
	if len(args) != 1 {
		return "", opts, "", usageErrorf("import otlp: want one FILE (an OTLP JSON export), got %d arguments: %q", len(args), args)
	}
	if opts.Out == "" {
		return "", opts, "", usageErrorf("import otlp: --out DIR is required (where the cassette and the eval set go)")
	}
	return args[0], opts, replacements, nil
}

func runImportOTLP(c *cli.Context) error {
	file, opts, replacements, err := importOTLPArgs(c)
	if err != nil {
		return err
	}
	res, err := otlpimport.Import(file, opts)
	switch {
	case errors.Is(err, otlpimport.ErrInput):
		return withCode(exitDataErr, fmt.Errorf("import otlp: %w", err))
	case errors.Is(err, cassettes.ErrWrite):
		return withCode(exitCantWrite, fmt.Errorf("import otlp: %w", err))
	case errors.Is(err, otlpimport.ErrPattern):
		return usageErrorf("import otlp: %v", err)
	case err != nil:
		return withCode(exitCantWrite, fmt.Errorf("import otlp: %w", err))
	}
	w := c.App.ErrWriter
	for _, m := range res.Missing {
		fmt.Fprintf(w, "adkproxy: missing: %s\n", m)
	}
	for _, r := range res.Replacements {
		fmt.Fprintf(w, "adkproxy: replaced %s (%s, %d time(s), %s) first in %s\n", r.Placeholder, r.Rule, r.Count, r.Masked, r.FirstSeen)
	}
	if replacements != "" {
		list := res.Replacements
		if list == nil {
			list = []otlpimport.Replacement{}
		}
		b, _ := textfmt.IndentedJSON(list)
		if err := cassettes.WriteFileAtomic(replacements, b); err != nil {
			return withCode(exitCantWrite, fmt.Errorf("import otlp: --replacements %s: %w", replacements, err))
		}
	}
	fmt.Fprintf(w, "adkproxy: imported %d session(s), %d invocation(s), %d model call(s) into %s and %s; %d value(s) replaced\n",
		res.Sessions, res.Invocations, res.Calls, res.Cassette, res.EvalSet, len(res.Replacements))
	return nil
}
