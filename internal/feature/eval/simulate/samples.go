// Samples: simulate --samples K plays every case K times, sample N's agent
// traffic recorded as cassette NAME@N of the proxy the agent's server runs
// under, and the simulated user's turns as the cases' own samples.

package simulate

import (
	"context"
	"fmt"
	"io"

	"github.com/adkproxy/adkproxy/internal/base/adkapi"
	"github.com/adkproxy/adkproxy/internal/base/samplename"
)

// RunSamples is Run once for k == 0; else Run once per sample n = 1..k of
// every case (Case.InSample), with the proxy at ctl switched to cassette
// NAME@n first, NAME being its cassette before, set back after. It returns
// the transcripts of the samples played, in sample order, and why it
// stopped early (a proxy that could not be read or switched).
func (r *Runner) RunSamples(ctx context.Context, cases []*Case, k int, ctl *adkapi.ConfirmationReporter, log io.Writer) ([]*Transcript, error) {
	if k == 0 {
		return r.Run(ctx, cases), nil
	}
	if k < 0 || k > samplename.Max || ctl == nil || ctl.URL == "" {
		return nil, fmt.Errorf("samples: %d samples need a number 1..%d and the adkproxy the agent's server runs under", k, samplename.Max)
	}
	base, err := ctl.Cassette(ctx)
	if err != nil {
		return nil, fmt.Errorf("samples: %w", err)
	}
	defer ctl.UseCassette(context.WithoutCancel(ctx), base)
	var all []*Transcript
	for n := 1; n <= k; n++ {
		if err := ctl.UseCassette(ctx, samplename.Name(base, n)); err != nil {
			return all, fmt.Errorf("samples: sample %d: %w", n, err)
		}
		fmt.Fprintf(log, "adkproxy: simulate: sample %d of %d into cassette %s\n", n, k, samplename.Name(base, n))
		sample := make([]*Case, len(cases))
		for i, c := range cases {
			sample[i] = c.InSample(n)
		}
		all = append(all, r.Run(ctx, sample)...)
	}
	return all, nil
}
