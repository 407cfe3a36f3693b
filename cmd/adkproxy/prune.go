// The 'adkproxy prune' command: flags and wiring; which recordings go is
// package prune's.

package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/engine/prune"
	"github.com/adkproxy/adkproxy/internal/engine/reclock"
	"github.com/adkproxy/adkproxy/internal/engine/runpolicy"
	"github.com/urfave/cli/v2"
)

const pruneExitStatusHelp = `EXIT STATUS:
   0    success (also when there was nothing to remove)
   64   usage error (unknown flag, missing --cassettes or --report)
   65   a cassette or the --report file is missing, unreadable or invalid
   73   a cassette could not be written, or is a symbolic link
   75   another adkproxy is recording into the folder; try again when it has finished`

func pruneCommand() *cli.Command {
	return &cli.Command{
		Name:  "prune",
		Usage: "remove the recordings a run left unused, as its --report file lists them",
		Description: "Reads the --report file of a replay (or record --mode once) run and removes from the\n" +
			"cassettes every recording it lists as unused, so a strict replay of what the agent does now\n" +
			"passes. A recording is removed only when the report names it beyond doubt (its place and\n" +
			"request line, every recording at that place reported unused); the others are listed and\n" +
			"kept. Each changed cassette is written atomically; a cassette that is a symbolic link is\n" +
			"refused, never written through. Run it on the report of the run you trust.\n\n" + pruneExitStatusHelp,
		Flags: []cli.Flag{
			stringFlag("cassettes", "", "`DIR` holding the cassettes (required)"),
			stringFlag("report", "", "the run's --report `FILE` (required)"),
			boolFlag("dry-run", "list what would be removed, change nothing"),
		},
		Action:       runPrune,
		OnUsageError: commandUsageError,
	}
}

func runPrune(c *cli.Context) error {
	dir, err := cassettesDir(c)
	if err != nil {
		return err
	}
	if c.Args().Present() {
		return usageErrorf("prune takes no arguments, got %q", c.Args().First())
	}
	path := c.String("report")
	if path == "" {
		return usageErrorf("prune: --report FILE is required: the report of the run whose unused recordings go (or set ADKPROXY_REPORT)")
	}
	report, err := runpolicy.ReadReport(path)
	if err != nil {
		return withCode(exitDataErr, err)
	}
	dry := c.Bool("dry-run")
	if !dry {
		release, err := runpolicy.Lock(dir, nil) // no recorder may write the folder meanwhile
		if errors.Is(err, reclock.ErrLocked) {
			return withCode(exitTempFail, err)
		}
		if err != nil {
			return withCode(exitCantWrite, err)
		}
		defer release()
	}
	loaded, err := cassettes.LoadDir(dir)
	if err != nil {
		return withCode(exitDataErr, err)
	}
	plan := prune.Unused(loaded, report)
	verb := "removed"
	if dry {
		verb = "would remove"
	}
	printPlan(c.App.ErrWriter, plan, verb)
	if !dry {
		if err := prune.Apply(dir, loaded, plan); err != nil {
			return withCode(exitCantWrite, err)
		}
	}
	fmt.Fprintf(c.App.ErrWriter, "adkproxy: %s %d unused recording(s) from %d cassette(s)\n", verb, len(plan.Removed), len(plan.Changed))
	return nil
}

// printPlan says what pruning keeps and removes (or would).
func printPlan(w io.Writer, plan prune.Plan, verb string) {
	for _, k := range plan.Kept {
		fmt.Fprintf(w, "adkproxy: kept %s\n", k)
	}
	for _, r := range plan.Removed {
		fmt.Fprintf(w, "adkproxy: %s %s\n", verb, r)
	}
}
