// --analysis FILE of score and simulate: the judge's root-cause report of
// the failed cases, written beside the other outputs.

package main

import (
	"fmt"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/textfmt"
	"github.com/adkproxy/adkproxy/scoring"
	"github.com/urfave/cli/v2"
)

func analysisFlag() cli.Flag {
	return stringFlag("analysis", "", "write a Markdown root-cause report of the failed cases, drafted by the judge model, to `FILE` (needs --judge-cassettes; recorded and replayed like the judge)")
}

// writeAnalysis writes the root-cause report of r when --analysis is set:
// without a judge it says why it writes none; a judge call that fails
// fails the run, since the file asked for is missing.
func writeAnalysis(c *cli.Context, jr *judgeRun, r *scoring.Result) error {
	path := c.String("analysis")
	if path == "" {
		return nil
	}
	if jr == nil || r == nil {
		fmt.Fprintf(c.App.ErrWriter, "adkproxy: --analysis %s not written: the report is drafted by the judge model, and no judge was given (--judge-cassettes DIR; record once with --judge-mode record and a key)\n", path)
		return nil
	}
	text, err := jr.judge.Analyze(c.Context, r, "")
	if err != nil {
		return withCode(exitFailure, fmt.Errorf("--analysis %s not written: %w", path, err))
	}
	if err := cassettes.WriteFileAtomic(path, []byte(text)); err != nil {
		return withCode(exitCantWrite, fmt.Errorf("--analysis: %w", err))
	}
	failed := 0
	for _, cr := range r.Cases {
		if cr.Status == scoring.Failed {
			failed++
		}
	}
	fmt.Fprintf(c.App.ErrWriter, "adkproxy: root-cause analysis of %s written to %s\n", textfmt.Plural(failed, "failed case"), path)
	return nil
}
