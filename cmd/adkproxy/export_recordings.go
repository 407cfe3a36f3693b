// 'adkproxy export --format adk-recordings': one cassette as ADK's
// conformance generated-recordings.yaml; the mapping is package conformance's.

package main

import (
	"fmt"
	"sort"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/conformance"
	"github.com/urfave/cli/v2"
)

func runExportRecordings(c *cli.Context, loaded map[string]*cassettes.Cassette) error {
	if len(loaded) != 1 {
		names := make([]string, 0, len(loaded))
		for n := range loaded {
			names = append(names, n)
		}
		sort.Strings(names)
		return usageErrorf("export --format adk-recordings writes one case: give one cassette file, not a folder of %d (%q)", len(loaded), names)
	}
	var cas *cassettes.Cassette
	for _, v := range loaded {
		cas = v
	}
	data, problems, err := conformance.Export(cas)
	if err != nil {
		return withCode(exitDataErr, fmt.Errorf("export: %w", err))
	}
	for _, p := range problems {
		fmt.Fprintf(c.App.ErrWriter, "adkproxy: %s\n", p)
	}
	out := c.String("out")
	if err := writeOutput(c, out, data); err != nil {
		return err
	}
	if len(problems) > 0 {
		return withCode(exitDataErr, fmt.Errorf("export: %d model call(s) could not be converted (listed above); the others were written", len(problems)))
	}
	if out != "" {
		fmt.Fprintf(c.App.ErrWriter, "adkproxy: wrote ADK recordings of cassette %q to %s\n", cas.Name, out)
	}
	return nil
}
