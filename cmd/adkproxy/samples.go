// Samples: record --samples K runs the command K times, each run recorded
// as sample N of the cassettes (NAME@N); replay --sample N replays one of
// them, and replay of a folder holding samples replays each in turn.

package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/samplename"
	"github.com/adkproxy/adkproxy/internal/engine/runpolicy"
	"github.com/adkproxy/adkproxy/proxy"
	"github.com/urfave/cli/v2"
)

// runSamples runs the proxy once, or once per sample. Every sample runs
// whatever the one before it did (a stochastic agent's failing run is a
// sample too); the first failure's status is the run's, unless the proxy
// itself could not run (usage, a cassette unreadable or unwritable, the
// lock), which stops at once.
func runSamples(c *cli.Context, mode proxy.Mode) error {
	samples, err := samplesToRun(c, mode)
	if err != nil || samples == nil {
		if err != nil {
			return err
		}
		return runProxy(c, mode, 0)
	}
	var first error
	for i, n := range samples {
		fmt.Fprintf(c.App.ErrWriter, "adkproxy: %s sample %d (%d of %d)\n", mode, n, i+1, len(samples))
		err := runProxy(c, mode, n)
		switch exitCodeFor(err) {
		case exitUsage, exitDataErr, exitCantWrite, exitTempFail:
			return err
		}
		if err != nil && first == nil {
			first = fmt.Errorf("sample %d: %w", n, err)
		}
	}
	return first
}

// samplesToRun is the sample numbers to run in turn, nil for one plain run.
func samplesToRun(c *cli.Context, mode proxy.Mode) ([]int, error) {
	if mode == proxy.ModeRecord {
		k := c.Int("samples")
		switch {
		case k == 0:
			return nil, nil
		case k < 0 || k > samplename.Max:
			return nil, usageErrorf("record: --samples %d: want a number of runs 1..%d", k, samplename.Max)
		case !c.Args().Present():
			return nil, usageErrorf("record: --samples %d needs the command to run: adkproxy record --samples %d -- COMMAND", k, k)
		}
		return count(k), nil
	}
	dir, err := cassettesDir(c)
	if err != nil {
		return nil, err
	}
	have, err := runpolicy.SamplesIn(dir)
	switch {
	case errors.Is(err, cassettes.ErrNotFound):
		return nil, nil // the run says the folder is missing, as it always has
	case err != nil:
		return nil, withCode(exitDataErr, err)
	}
	n := c.Int("sample")
	switch {
	case n == 0 && (len(have) == 0 || !c.Args().Present()):
		return nil, nil // a plain folder, or serving: --sample N picks one
	case n == 0:
		return have, nil
	case n < 0 || n > samplename.Max:
		return nil, usageErrorf("replay: --sample %d: want a sample number 1..%d", n, samplename.Max)
	case !slices.Contains(have, n):
		return nil, usageErrorf("replay: --sample %d: %s holds no cassette NAME@%d (%s)", n, dir, n, samplesSaid(have))
	}
	return []int{n}, nil
}

func samplesSaid(have []int) string {
	if len(have) == 0 {
		return "it holds no samples: record them with 'adkproxy record --samples K -- COMMAND'"
	}
	s := make([]string, len(have))
	for i, n := range have {
		s[i] = strconv.Itoa(n)
	}
	return "its samples: " + strings.Join(s, ", ")
}

func count(k int) []int {
	out := make([]int, k)
	for i := range out {
		out[i] = i + 1
	}
	return out
}

// reportPath is --report, for sample n the file REPORT@n.EXT beside it.
func reportPath(c *cli.Context, n int) string {
	f := c.String("report")
	if f == "" || n == 0 {
		return f
	}
	ext := filepath.Ext(f)
	return strings.TrimSuffix(f, ext) + "@" + strconv.Itoa(n) + ext
}
