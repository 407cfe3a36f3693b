// --proxy-url and --control-token of drive and simulate: where they report
// their answers to the agent's tool confirmation requests, which ADK never
// sends to the model.

package main

import (
	"github.com/urfave/cli/v2"

	"github.com/adkproxy/adkproxy/internal/base/adkapi"
)

// confirmReportFlags are the flags naming the adkproxy that records the
// agent's model traffic.
func confirmReportFlags() []cli.Flag {
	return []cli.Flag{
		// ADKPROXY_URL is what 'adkproxy record -- COMMAND' sets for its command.
		&cli.StringFlag{Name: "proxy-url", Usage: "report each answer to a tool confirmation request to the adkproxy at `URL`, which records it with the agent's model calls (default: none)", EnvVars: []string{"ADKPROXY_URL"}},
		stringFlag("control-token", "", "bearer `TOKEN` for the adkproxy's control API, when it has one (--proxy-url)"),
	}
}

// confirmReporter is the reporter the flags ask for, or nil.
func confirmReporter(c *cli.Context) *adkapi.ConfirmationReporter {
	if c.String("proxy-url") == "" {
		return nil
	}
	return &adkapi.ConfirmationReporter{URL: c.String("proxy-url"), Token: c.String("control-token")}
}
