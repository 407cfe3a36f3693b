// The 'adkproxy conformance' command: flags, wiring and exit status; the
// run and its reports are conformancerun's.

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/adkproxy/adkproxy/internal/data/conformance"
	"github.com/adkproxy/adkproxy/internal/feature/adk/conformancerun"
	"github.com/urfave/cli/v2"
)

const conformanceExitStatusHelp = `EXIT STATUS:
   0    every case PASSED or was SKIPPED
   1    the run could not happen (no corpus, no case selected, the server command failed)
   64   usage error (unknown flag, missing --corpus or --server-cmd, bad --format, --profile or --cases)
   73   the --out file could not be written
   76   a case FAILED`

// conformanceWriters are the --format values of conformance.
var conformanceWriters = map[string]func(io.Writer, *conformancerun.Result) error{
	"table":    conformancerun.WriteTable,
	"json":     conformancerun.WriteJSON,
	"junit":    conformancerun.WriteJUnit,
	"markdown": conformancerun.WriteMarkdown,
}

func conformanceCommand() *cli.Command {
	return &cli.Command{
		Name:  "conformance",
		Usage: "run ADK's conformance corpus against an ADK API server of any language, offline",
		Description: "For each case of the corpus (--corpus: the folder holding tests/ and agents/): imports its\n" +
			"recordings (as 'adkproxy import adk-conformance' does), starts --server-cmd for the case's agent\n" +
			"(one server per agent, reused by its cases) with GOOGLE_GEMINI_BASE_URL pointing at an adkproxy\n" +
			"that replays the case with conformance keying (user message, agent, that agent's call index, as\n" +
			"ADK's ReplayPlugin keys calls), drives the spec's turns (as 'adkproxy drive' does), and compares\n" +
			"the session the server ends with against generated-session.yaml by ADK's stripping rules.\n\n" +
			"{agents_dir} in --server-cmd is a folder with the case's agent: the corpus's YAML (which ADK\n" +
			"Python loads) and a generated agent.mjs (which ADK-JS's server loads, through the YAML loader and\n" +
			"JS tool ports @google/adk-devtools ships); {port} is a free port. The command runs under sh -c.\n" +
			"Each case PASSes, FAILs with its first difference, or is SKIPped when its agent cannot load.\n" +
			"How each model request's body differs from ADK Python's is listed per case as findings, grouped\n" +
			"(system instruction, tool declarations, generation config, contents, other); --profile says\n" +
			"which groups fail a case. No key and no network are needed.\n\n" +
			conformanceExitStatusHelp,
		Flags: append([]cli.Flag{
			stringFlag("corpus", "", "`DIR` of the conformance corpus, holding tests/ and agents/ (required)"),
			stringFlag("server-cmd", "", "shell `COMMAND` that serves {agents_dir} on {port}, e.g. 'npx adk api_server {agents_dir} -h 127.0.0.1 -p {port}' (required)"),
			stringFlag("prefix", "", "`PATH` the server mounts the API under: empty for ADK Python and ADK-JS, /api for ADK Go"),
			stringFlag("cases", "", "only the cases whose name (<category>/<case>) matches `GLOB`, e.g. 'core/*'"),
			stringFlag("format", "table", "output `FORMAT`: table, json, junit or markdown"),
			stringFlag("profile", "default", "`PROFILE` of findings that fail a case: default (none: the session decides), strict (all), or a comma-separated list of groups (system_instruction, tools, generation_config, contents, other)"),
			stringFlag("out", "", "write the report to `FILE` (atomically) instead of stdout"),
			&cli.StringSliceFlag{Name: "ignore-event-field", Usage: "leave the event field at `PATH` (camelCase, dotted: avgLogprobs, usageMetadata.trafficType) out of the session comparison, on both sides (repeatable)", EnvVars: envFor("ignore-event-field")},
			stringFlag("work", "", "keep the imported cassettes (DIR/cassettes) and the agents folders served (DIR/agents) in `DIR`, to rerun a case by hand; default: a temporary folder, removed"),
		}, outboundFlags()...),
		Action:       runConformance,
		OnUsageError: commandUsageError,
	}
}

func runConformance(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageErrorf("conformance: unexpected argument %q (see 'adkproxy conformance --help')", c.Args().First())
	}
	corpus, serverCmd := c.String("corpus"), c.String("server-cmd")
	if corpus == "" || serverCmd == "" {
		return usageErrorf("conformance: --corpus and --server-cmd are required (see 'adkproxy conformance --help')")
	}
	if err := conformancerun.CheckServerCmd(serverCmd); err != nil {
		return usageErrorf("conformance: --server-cmd: %v", err)
	}
	format := c.String("format")
	write, ok := conformanceWriters[format]
	if !ok {
		return usageErrorf("conformance: --format %q: want table, json, junit or markdown", format)
	}
	profile, err := conformance.ParseProfile(c.String("profile"))
	if err != nil {
		return usageErrorf("conformance: --profile: %v", err)
	}
	policy, err := outboundPolicy(c)
	if err != nil {
		return err
	}
	res, err := conformancerun.Run(c.Context, conformancerun.Options{HTTPClient: policy.Client(),
		Corpus: corpus, ServerCmd: serverCmd, Prefix: c.String("prefix"), Cases: c.String("cases"),
		Profile: profile, IgnoreEventFields: c.StringSlice("ignore-event-field"), Work: c.String("work"), Progress: c.App.ErrWriter,
	})
	if res == nil {
		if errors.Is(err, conformancerun.ErrBadGlob) {
			return usageErrorf("conformance: --cases: %v", err)
		}
		return fmt.Errorf("conformance: %w", err)
	}
	var out bytes.Buffer
	if werr := write(&out, res); werr != nil {
		return fmt.Errorf("conformance: writing %s: %w", format, werr)
	}
	path := c.String("out")
	if werr := writeOutput(c, path, out.Bytes()); werr != nil {
		return werr
	}
	summary := conformancerun.Summary(res)
	if path != "" || format != "table" {
		fmt.Fprintln(c.App.ErrWriter, "adkproxy: conformance: "+summary)
	}
	if err != nil {
		return fmt.Errorf("conformance: %w", err)
	}
	if res.Failed() {
		return withCode(exitUnmatched, errors.New(""))
	}
	return nil
}
