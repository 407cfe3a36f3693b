// The 'adkproxy import otlp' command: flags and wiring; the import is
// package otlpimport's.

package main

import (
	"errors"
	"fmt"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/textfmt"
	"github.com/adkproxy/adkproxy/internal/feature/otlpimport"
	"github.com/urfave/cli/v2"
)

const importOTLPExitStatusHelp = `EXIT STATUS:
   0    the eval set was written, and the cassette when a model call could be rebuilt (what spans lack is listed)
   64   usage error (unknown flag, missing FILE or --out, a --redact-pattern that is not a regular expression)
   65   FILE is unreadable, empty, not OTLP JSON, an attribute is of a type it cannot be read as, it holds no
        ADK span, or no span carries a user text, a tool call or an answer (the message names the file and the field)
   73   the cassette, the eval set, the --replacements or the --report file could not be written`

func importOTLPCommand() *cli.Command {
	return &cli.Command{
		Name:      "otlp",
		Usage:     "turn ADK's OpenTelemetry spans (an OTLP JSON export) into a cassette and an eval set, personal data replaced",
		ArgsUsage: "FILE",
		Description: "Reads ADK's spans (invocation → invoke_agent/agent_run → call_llm → execute_tool) from FILE, an\n" +
			"OTLP JSON export such as 'adkproxy export --format otlp-json' or a collector's file exporter writes,\n" +
			"rebuilds each call_llm as a generateContent exchange from its gcp.vertex.agent.llm_request and\n" +
			"llm_response, and writes DIR/<name>.yaml and DIR/<name>.evalset.json (one trace is one invocation).\n" +
			"Where spans lack bodies (ADK without content capture), the eval set is made from what is there (the\n" +
			"user text, the execute_tool spans' calls and results, the last answer) and each gap is listed as missing.\n" +
			"Before anything is built, emails, phone numbers, card numbers, tokens and --redact-pattern matches\n" +
			"are replaced by stable placeholders (<EMAIL_1>, <CARD_1>, …), listed on stderr for review, and so\n" +
			"are session and invocation ids that do not look machine-made (unless --keep-ids).\n\n" +
			importOTLPExitStatusHelp,
		Flags: []cli.Flag{
			stringFlag("out", "", "`DIR` to write the cassette and the eval set to (required)"),
			stringFlag("name", "", "`NAME` of the cassette and the eval set (default: FILE's name without its extensions)"),
			&cli.StringSliceFlag{Name: "redact-pattern", Usage: "also replace what the regular expression `REGEX` matches, as <REDACTED_n> (repeatable)", EnvVars: envFor("redact-pattern")},
			stringFlag("replacements", "", "also write the list of replacements to `FILE` as JSON (placeholders and masked values, never the values)"),
			stringFlag("report", "", "also write what was imported to `FILE` as JSON: counts, files, session ids, replacements, and what each span lacks"),
			&cli.BoolFlag{Name: "keep-ids", Usage: "write session and invocation ids as read; by default an id that does not look machine-made becomes a placeholder", EnvVars: envFor("keep-ids")},
		},
		Action:       runImportOTLP,
		OnUsageError: commandUsageError,
	}
}

// importOTLPArgs reads FILE and the flags, which may follow it.
func importOTLPArgs(c *cli.Context) (string, otlpimport.Options, [2]string, error) {
	args, err := argsWithTrailingFlags(c, "import otlp")
	opts := otlpimport.Options{Out: c.String("out"), Name: c.String("name"), Patterns: c.StringSlice("redact-pattern"), KeepIDs: c.Bool("keep-ids")}
	files := [2]string{c.String("replacements"), c.String("report")}
	if err != nil {
		return "", opts, files, err
	}
	if len(args) != 1 {
		return "", opts, files, usageErrorf("import otlp: want one FILE (an OTLP JSON export), got %d arguments: %q", len(args), args)
	}
	if opts.Out == "" {
		return "", opts, files, usageErrorf("import otlp: --out DIR is required (where the cassette and the eval set go)")
	}
	return args[0], opts, files, nil
}

func runImportOTLP(c *cli.Context) error {
	file, opts, files, err := importOTLPArgs(c)
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
		fmt.Fprintf(w, "adkproxy: missing: %s\n", m.String())
	}
	for _, r := range res.Replacements {
		fmt.Fprintf(w, "adkproxy: replaced %s (%s, %d time(s), %s) first in %s\n", r.Placeholder, r.Rule, r.Count, r.Masked, r.FirstSeen)
	}
	if res.Replacements == nil {
		res.Replacements = []otlpimport.Replacement{}
	}
	if res.Missing == nil {
		res.Missing = []otlpimport.Missing{}
	}
	for i, v := range []any{res.Replacements, res} {
		if files[i] == "" {
			continue
		}
		b, _ := textfmt.IndentedJSON(v)
		if err := cassettes.WriteFileAtomic(files[i], b); err != nil {
			return withCode(exitCantWrite, fmt.Errorf("import otlp: --%s %s: %w", []string{"replacements", "report"}[i], files[i], err))
		}
	}
	into := res.EvalSet + " (no cassette: no model call could be rebuilt)"
	if res.Cassette != "" {
		into = res.Cassette + " and " + res.EvalSet
	}
	fmt.Fprintf(w, "adkproxy: imported %d session(s), %d invocation(s), %d model call(s) into %s; %d value(s) replaced, %d span(s) lacking something\n",
		res.Sessions, res.Invocations, res.Calls, into, len(res.Replacements), len(res.Missing))
	return nil
}
