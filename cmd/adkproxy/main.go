// Command adkproxy records and replays Gemini API traffic for agent tests.
//
//	adkproxy record --cassettes DIR -- go test ./...   # once, with a key
//	adkproxy replay --cassettes DIR -- go test ./...   # in CI, with no key and no network
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/adkproxy/adkproxy/internal/base/outbound"
)

func main() {
	os.Exit(run(os.Args, os.Stdout, os.Stderr))
}

// run is main without os.Exit, so tests can drive the whole CLI.
func run(args []string, stdout, stderr io.Writer) int {
	if completingWrappedCommand(args) {
		return 0
	}
	app := newApp(stdout, stderr)
	if len(args) == 1 { // a bare 'adkproxy' is a question, not a success
		fmt.Fprintf(stderr, "%s give a command: %s (see 'adkproxy --help')\n", paletteFor(stderr).red("adkproxy:"), commandNames(app))
		return exitUsage
	}
	err := withHint(app.Run(flagsFirst(app, args)))
	if err != nil {
		var ee *exitError
		if !errors.As(err, &ee) || ee.err.Error() != "" {
			// The message names files and values from the user's tree (a
			// cassette's name, a server's text): it reaches the terminal
			// without their control characters.
			fmt.Fprintf(stderr, "%s %s\n", paletteFor(stderr).red("adkproxy:"), outbound.Printable(err.Error()))
		}
	}
	return exitCodeFor(err)
}

func newApp(stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:    "adkproxy",
		Usage:   "record and replay Gemini API traffic for agent tests",
		Version: versionText(),
		Description: "adkproxy sits between an agent and the Gemini API. 'record' forwards traffic to the API and\n" +
			"writes it into YAML cassettes; 'replay' answers from the cassettes with no network and no key,\n" +
			"and fails when the agent sends a request that was not recorded.\n\n" + exitStatusHelp,
		Writer:               stdout,
		ErrWriter:            stderr,
		HideHelpCommand:      true,
		EnableBashCompletion: true, // the hidden --generate-bash-completion that completion.go's scripts ask
		Commands:             []*cli.Command{recordCommand(), replayCommand(), lsCommand(), diffCommand(), driftCommand(), scoreCommand(), forkCommand(), simulateCommand(), exportCommand(), importCommand(), driveCommand(), fakeCommand(), mcpCommand(), conformanceCommand(), pruneCommand(), caCommand(), healthCommand(), completionCommand()},
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return usageErrorf("%v (see 'adkproxy --help')", err)
		},
		CommandNotFound: func(c *cli.Context, name string) {
			fmt.Fprintf(c.App.ErrWriter, "adkproxy: unknown command %q (see 'adkproxy --help')\n", name)
		},
		ExitErrHandler: func(*cli.Context, error) {}, // main decides the status
	}
	app.Before = func(c *cli.Context) error {
		if c.Args().Present() && app.Command(c.Args().First()) == nil {
			return usageErrorf("unknown command %q (commands: %s)", c.Args().First(), commandNames(app))
		}
		return nil
	}
	return app
}

func commandNames(app *cli.App) string {
	var names []string
	for _, c := range app.Commands {
		names = append(names, c.Name)
	}
	return strings.Join(names, ", ")
}
