// adkproxy mcp: a stdio MCP server's command, prefixed in the agent's MCP
// config, relayed through the running record or replay
// (internal/feature/mcp).

package main

import (
	"errors"

	"github.com/adkproxy/adkproxy/internal/feature/mcp"
	"github.com/urfave/cli/v2"
)

func mcpCommand() *cli.Command {
	return &cli.Command{
		Name:      "mcp",
		Usage:     "run a stdio MCP server through the running adkproxy record or replay",
		ArgsUsage: "-- SERVER [ARGS...]",
		Description: "Put it in front of the server's command in the agent's MCP config. Under adkproxy record it starts\n" +
			"the server and records every JSON-RPC exchange in the proxy's cassette, filed under the step whose\n" +
			"model call asked for the tool; under adkproxy replay it answers from the cassette and starts nothing.\n" +
			"It finds the proxy by --proxy-url (ADKPROXY_URL), else by the discovery file its record or replay\n" +
			"ancestor wrote under $HOME/.cache/adkproxy/run (ADKPROXY_RUN_DIR)" +
			" (docs/mcp.md); with no proxy it runs the server unrecorded.\n\n" +
			"EXIT STATUS:\n   N    the server's own (0 in replay)\n   64   usage error\n   69   the proxy found does not answer\n   127  the server could not be started",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "name", Usage: "the server's `NAME` in the cassette (default: from the command, e.g. weather for 'node weather.js')", EnvVars: []string{"ADKPROXY_MCP_NAME"}},
			&cli.StringFlag{Name: "proxy-url", Usage: "the proxy's `URL` (default: the discovery file of the record or replay this runs under)", EnvVars: []string{"ADKPROXY_URL"}},
			stringFlag("cassette", "", "send the server's exchanges to cassette `NAME` instead of the proxy's default"),
		},
		Action: func(c *cli.Context) error {
			if !c.Args().Present() {
				return usageErrorf("mcp needs the server's command after --, as in: adkproxy mcp -- node server.js")
			}
			code, err := mcp.Run(c.Context, mcp.Options{Command: c.Args().Slice(), Name: c.String("name"), ProxyURL: c.String("proxy-url"),
				Cassette: c.String("cassette"), Stdin: c.App.Reader, Stdout: c.App.Writer, Stderr: c.App.ErrWriter})
			if err != nil {
				return withCode(code, err)
			}
			if code != 0 {
				return withCode(code, errors.New("")) // the server has said what went wrong
			}
			return nil
		},
		OnUsageError: commandUsageError,
	}
}
