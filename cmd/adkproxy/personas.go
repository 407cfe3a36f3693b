// --personas: a persona registry file for simulate and score.

package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/adkproxy/adkproxy/internal/data/scenarios"
)

func personasFlag() cli.Flag {
	return stringFlag("personas", "", "persona registry `FILE` ({\"personas\": [UserPersona…]}): persona ids in scenarios name these first, then the pre-built ones (e.g. ADK's own persona texts)")
}

// loadPersonas reads --personas, before any scenario is parsed.
func loadPersonas(c *cli.Context) error {
	path := c.String("personas")
	if path == "" {
		return nil
	}
	if err := scenarios.LoadPersonaRegistry(path); err != nil {
		return withCode(exitDataErr, fmt.Errorf("--personas: %w", err))
	}
	return nil
}
