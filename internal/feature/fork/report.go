// The fork's report: the original against each variant, by the same code
// as score (verdict, each criterion's score) and diff (trajectory and
// response deltas, tokens, model calls, latency).

package fork

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/textfmt"
	"github.com/adkproxy/adkproxy/internal/data/recorded"
	"github.com/adkproxy/adkproxy/internal/feature/report/rundiff"
	"github.com/adkproxy/adkproxy/scoring"
)

// Scoring is how the report scores each side: the config, and the
// expectations when there are any (nil: metrics that need none).
type Scoring struct {
	Config   *scoring.Config
	Expected *scoring.Expected
}

// Comparison is the original against one variant.
type Comparison struct {
	Variant  Variant
	Original *scoring.Result
	Forked   *scoring.Result
	Diff     *rundiff.Report
}

// Compare scores the original cassette and each variant and diffs them.
func Compare(ctx context.Context, o Options, sc Scoring, variants []Variant) ([]Comparison, error) {
	orig, err := cassettes.LoadDir(o.Dir)
	if err != nil {
		return nil, err
	}
	forked, err := cassettes.LoadDir(o.Out)
	if err != nil {
		return nil, err
	}
	oldRun := one(o.Dir, o.Cassette, orig[o.Cassette])
	var out []Comparison
	for _, v := range variants {
		c := forked[v.Name]
		if c == nil {
			return out, fmt.Errorf("%s: the fork recorded no cassette %q", o.Out, v.Name)
		}
		newRun := one(o.Out, o.Cassette, c)
		out = append(out, Comparison{Variant: v, Original: score(ctx, sc, o.Cassette, orig[o.Cassette]), Forked: score(ctx, sc, o.Cassette, c),
			Diff: rundiff.Diff(o.Dir, o.Out+"#"+v.Name, oldRun, newRun, rundiff.Options{ArgMatchers: sc.Config.Adkproxy.ArgMatchers})})
	}
	return out, nil
}

// one is a run of the cassette c alone, under name (a variant NAME@N is
// compared as NAME).
func one(dir, name string, c *cassettes.Cassette) recorded.Run {
	return recorded.Build(dir, map[string]*cassettes.Cassette{name: c})
}

func score(ctx context.Context, sc Scoring, name string, c *cassettes.Cassette) *scoring.Result {
	sessions := scoring.SessionsOf(map[string]*cassettes.Cassette{name: c})
	cases, unpaired := scoring.Pair(sessions, sc.Expected)
	r := scoring.Evaluate(ctx, sc.Config, cases)
	r.Unpaired = append(r.Unpaired, unpaired...)
	return r
}

// WriteText writes the report for people: the fork, then per variant the
// verdicts, each criterion's score old → new, and the diff.
func WriteText(w io.Writer, o Options, cmp []Comparison) error {
	var b strings.Builder
	fmt.Fprintf(&b, "FORK cassette %q at %s (session %d, invocation %d, step %d): %s\n", o.Cassette, o.At, o.At.Session, o.At.Invocation, o.At.Step, changeText(o))
	for _, c := range cmp {
		fmt.Fprintf(&b, "\nVARIANT %s (%s): %d model call(s) replayed from the recording, %d sent upstream\n",
			c.Variant.Name, o.Out, c.Variant.Replayed, c.Variant.Forwarded)
		if c.Variant.CommandErr != nil {
			fmt.Fprintf(&b, "  the command failed: %s\n", textfmt.OneLine(c.Variant.CommandErr.Error()))
		}
		fmt.Fprintf(&b, "  verdict: %s → %s\n", scoring.ResultStatus(c.Original), scoring.ResultStatus(c.Forked))
		for _, line := range scoreDeltas(c.Original, c.Forked) {
			b.WriteString("  " + line + "\n")
		}
		b.WriteString("  " + rundiff.SummaryLine(c.Diff) + "\n")
		var d strings.Builder
		if err := rundiff.WriteText(&d, c.Diff, false); err != nil {
			return err
		}
		for _, l := range strings.Split(strings.TrimRight(d.String(), "\n"), "\n") {
			b.WriteString("  " + l + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func changeText(o Options) string {
	var parts []string
	ch := o.Change
	if ch.Model != "" {
		parts = append(parts, "model "+ch.Model)
	}
	if ch.SystemInstruction != nil {
		parts = append(parts, "system instruction "+textfmt.Truncate(textfmt.OneLine(*ch.SystemInstruction), 60))
	}
	if ch.Tools != nil {
		parts = append(parts, "tools replaced")
	}
	for _, s := range ch.Set {
		parts = append(parts, s.Path+" = "+textfmt.Truncate(string(s.Value), 40))
	}
	return strings.Join(parts, ", ")
}

// scoreDeltas are each criterion's mean score over the cases, original →
// variant, with the difference.
func scoreDeltas(old, new *scoring.Result) []string {
	means := func(r *scoring.Result) (map[string]float64, []string) {
		sum, n := map[string]float64{}, map[string]int{}
		var order []string
		for _, c := range r.Cases {
			for _, m := range c.Metrics {
				if _, seen := n[m.Metric]; !seen {
					order = append(order, m.Metric)
					n[m.Metric] = 0
				}
				if m.Score != nil {
					sum[m.Metric] += *m.Score
					n[m.Metric]++
				}
			}
		}
		out := map[string]float64{}
		for k, v := range sum {
			out[k] = v / float64(n[k])
		}
		return out, order
	}
	om, order := means(old)
	nm, _ := means(new)
	var lines []string
	for _, m := range order {
		o, okO := om[m]
		n, okN := nm[m]
		switch {
		case okO && okN:
			lines = append(lines, fmt.Sprintf("%s: %s → %s (%+g)", m, num(o), num(n), roundTo(n-o)+0))
		case okO:
			lines = append(lines, fmt.Sprintf("%s: %s → not evaluated", m, num(o)))
		case okN:
			lines = append(lines, fmt.Sprintf("%s: not evaluated → %s", m, num(n)))
		}
	}
	return lines
}

func roundTo(f float64) float64 { return math.Round(f*1e4) / 1e4 }

func num(f float64) string { return fmt.Sprint(roundTo(f)) }
