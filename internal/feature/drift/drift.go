// Run: the recording read, the agent run live, the two compared.

package drift

import (
	"context"
	"fmt"
	"slices"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/recorded"
	"github.com/adkproxy/adkproxy/internal/feature/report/rundiff"
)

// Options are what Run compares.
type Options struct {
	// Dir is the recorded cassettes folder (or one cassette file); it is
	// only read.
	Dir string
	// Live runs the agent.
	Live Live
	// MinRouge is the ROUGE-1 F below which a response text changed; 0
	// means DefaultMinRouge.
	MinRouge float64
}

// Report is what drifted.
type Report struct {
	Cassettes string   `json:"cassettes"`
	Summary   Summary  `json:"summary"`
	Changes   []Change `json:"changes"`
	// Diff is diff's comparison of the recorded run with the live one.
	Diff *rundiff.Report `json:"diff"`
}

// Summary counts the changes by kind and by severity; Highest is the
// highest severity present ("" when nothing drifted).
type Summary struct {
	Changes    int              `json:"changes"`
	ByKind     map[Kind]int     `json:"by_kind"`
	BySeverity map[Severity]int `json:"by_severity"`
	Highest    Severity         `json:"highest"`
}

// Run reads the recorded folder, runs the agent live into a temporary
// folder (removed after) and compares them. A live run whose command
// failed still gives its report, with the command's error.
func Run(ctx context.Context, o Options) (*Report, error) {
	dir, rec, err := cassettes.LoadPath(o.Dir)
	if err != nil {
		return nil, err
	}
	if len(rec) == 0 {
		return nil, fmt.Errorf("%w: %s holds no cassette to compare the live run with; record one first", cassettes.ErrNotFound, o.Dir)
	}
	live, remove, runErr := o.Live.record(ctx)
	defer remove()
	if live == nil {
		return nil, runErr
	}
	minRouge := o.MinRouge
	if minRouge == 0 {
		minRouge = DefaultMinRouge
	}
	recRun, liveRun := recorded.Build(dir, rec), recorded.Build(dir, live)
	r := &Report{Cassettes: o.Dir, Changes: Compare(recRun, liveRun, minRouge)}
	if r.Changes == nil {
		r.Changes = []Change{}
	}
	r.Diff = rundiff.Diff(o.Dir, "live", recRun, liveRun, rundiff.Options{})
	r.Summary = summarize(r.Changes)
	return r, runErr
}

func summarize(changes []Change) Summary {
	s := Summary{Changes: len(changes), ByKind: map[Kind]int{}, BySeverity: map[Severity]int{}}
	for _, c := range changes {
		s.ByKind[c.Kind]++
		s.BySeverity[c.Severity]++
		if c.Severity.rank() > s.Highest.rank() {
			s.Highest = c.Severity
		}
	}
	return s
}

// ParseSeverity reads --fail-on: a severity, or "never".
func ParseSeverity(s string) (Severity, error) {
	if s == "never" || slices.Contains(Severities, Severity(s)) {
		return Severity(s), nil
	}
	return "", fmt.Errorf("%q: want low, medium, high or never", s)
}

// Fails says whether the report has a change of severity failOn or above
// ("never" never fails).
func (r *Report) Fails(failOn Severity) bool {
	return failOn != "never" && r.Summary.Highest != "" && r.Summary.Highest.rank() >= failOn.rank()
}
