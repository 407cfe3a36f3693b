// score --baseline: the gate's verdict against a baseline result is the
// exit status (internal/feature/eval/gate).

package main

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/adkproxy/adkproxy/internal/base/samplestat"
	"github.com/adkproxy/adkproxy/internal/base/userfile"
	"github.com/adkproxy/adkproxy/internal/feature/eval/gate"
	"github.com/adkproxy/adkproxy/scoring"
	"github.com/urfave/cli/v2"
)

// exitInconclusive: score --baseline could not tell whether the run is
// worse than its baseline.
const exitInconclusive = 2

func gateScores(c *cli.Context, result *scoring.Result, summary string) error {
	if summary != "" {
		fmt.Fprintln(c.App.ErrWriter, "adkproxy: "+summary)
	}
	path, margin := c.String("baseline"), c.Float64("margin")
	if margin < 0 || margin >= 1 || margin != margin {
		return usageErrorf("score: --margin %g: want a difference of pass rates from 0 up to 1 (0.05 is five points)", margin)
	}
	baseline, err := userfile.Read(path)
	if err != nil {
		return withCode(exitDataErr, fmt.Errorf("--baseline: %w", err))
	}
	var candidate bytes.Buffer
	if err := scoring.WriteJSON(&candidate, result); err != nil {
		return err
	}
	report, err := gate.Compare(baseline, candidate.Bytes(), margin)
	if err != nil {
		return withCode(exitDataErr, fmt.Errorf("--baseline %s: %w", path, err))
	}
	report.WriteText(c.App.ErrWriter)
	switch report.Verdict() {
	case samplestat.Fail:
		return withCode(exitFailure, errors.New(""))
	case samplestat.Inconclusive:
		return withCode(exitInconclusive, errors.New(""))
	}
	return nil
}
