// replay's --fault and --faults: the faults to inject, checked before
// anything is served.

package main

import (
	"github.com/adkproxy/adkproxy/internal/data/fault"
	"github.com/urfave/cli/v2"
)

// faultSpecs collects --fault specs, then those of the --faults file.
func faultSpecs(c *cli.Context) ([]string, error) {
	var specs []string
	for _, s := range c.StringSlice("fault") {
		f, err := fault.Parse(s)
		if err != nil {
			return nil, usageErrorf("--fault: %v", err)
		}
		specs = append(specs, f.Spec)
	}
	if file := c.String("faults"); file != "" {
		faults, err := fault.ReadFile(file)
		if err != nil {
			return nil, usageErrorf("--faults: %v", err)
		}
		for _, f := range faults {
			specs = append(specs, f.Spec)
		}
	}
	return specs, nil
}
