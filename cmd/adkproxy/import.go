// The 'adkproxy import' command: flags and wiring; the conversion is
// package conformance's.

package main

import (
	"errors"
	"fmt"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/conformance"
	"github.com/urfave/cli/v2"
)

const importExitStatusHelp = `EXIT STATUS:
   0    every case imported
   64   usage error (unknown flag, missing CORPUS_DIR or --out)
   65   a corpus file is unreadable, or an entry could not be converted (each is listed as file:line;
        the other entries of its case are written)
   73   a cassette could not be written`

func importCommand() *cli.Command {
	return &cli.Command{
		Name:  "import",
		Usage: "turn recordings made by other tools into cassettes",
		Subcommands: []*cli.Command{{
			Name:      "adk-conformance",
			Usage:     "import ADK's conformance corpus: one cassette per case",
			ArgsUsage: "CORPUS_DIR",
			Description: "Reads CORPUS_DIR/tests/<category>/<case>/{spec.yaml,generated-recordings.yaml} and writes\n" +
				"<category>/<case>.yaml under --out (<case>-sse.yaml for generated-recordings-sse.yaml). Each\n" +
				"llm_recording becomes a model call in session 1, invocation user_message_index+1, under its\n" +
				"agent_name, with a Gemini API request and response converted from ADK's LlmRequest and\n" +
				"LlmResponse (docs/conformance.md has the field mapping); each tool_recording is checked against\n" +
				"the function calls and results those bodies carry. Replay them with 'adkproxy replay --match\n" +
				"conformance'.\n\n" + importExitStatusHelp,
			Flags: []cli.Flag{
				stringFlag("out", "", "`DIR` to write the cassettes to (required)"),
			},
			Action:       runImportConformance,
			OnUsageError: commandUsageError,
		}, importOTLPCommand()},
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return usageErrorf("unknown import format %q (want adk-conformance or otlp)", c.Args().First())
			}
			return usageErrorf("import needs a format: adk-conformance or otlp (see 'adkproxy import --help')")
		},
		OnUsageError: commandUsageError,
	}
}

func runImportConformance(c *cli.Context) error {
	args, err := argsWithTrailingFlags(c, "import adk-conformance")
	if err != nil {
		return err
	}
	out := c.String("out")
	if len(args) != 1 {
		return usageErrorf("import adk-conformance: want one CORPUS_DIR (the folder holding tests/), got %d arguments: %q", len(args), args)
	}
	if out == "" {
		return usageErrorf("import adk-conformance: --out DIR is required (where the cassettes go)")
	}
	done, err := conformance.ImportCorpus(args[0], out)
	problems, calls, written := 0, 0, 0
	for _, im := range done {
		for _, p := range im.Problems {
			fmt.Fprintf(c.App.ErrWriter, "adkproxy: %s: %s\n", im.Case.Name, p)
			problems++
		}
		if im.File != "" {
			written++
			calls += im.Calls
		}
	}
	if err != nil {
		code := exitDataErr // no case, or a case name no file can have
		if errors.Is(err, cassettes.ErrWrite) {
			code = exitCantWrite
		}
		return withCode(code, fmt.Errorf("import adk-conformance: %w", err))
	}
	fmt.Fprintf(c.App.ErrWriter, "adkproxy: imported %d case(s) into %s: %d model call(s)", written, out, calls)
	if problems > 0 {
		fmt.Fprintf(c.App.ErrWriter, "; %d entr(y/ies) could not be converted (listed above)\n", problems)
		return withCode(exitDataErr, fmt.Errorf("import adk-conformance: %d entr(y/ies) could not be converted", problems))
	}
	fmt.Fprintln(c.App.ErrWriter)
	return nil
}
