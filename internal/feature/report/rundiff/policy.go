// The CI policy: which classes of change fail a run.

package rundiff

import (
	"fmt"
	"slices"
)

// FailClasses are the values of --fail-on.
var FailClasses = []string{"none", "tools", "args", "response", "any"}

// classKinds are the kinds each class of --fail-on counts ("any" counts
// every kind, "none" none).
var classKinds = map[string][]Kind{
	"tools":    {ToolAdded, ToolRemoved, ToolMoved, ConfirmationChanged},
	"args":     {ArgsChanged},
	"response": {ResponseChanged},
}

// Failures lists what fails the report under class (one of FailClasses)
// and minSimilarity (0 for none): "2 args_changed", "response similarity
// 0.42 < 0.8". An unknown class is an error.
func (r *Report) Failures(class string, minSimilarity float64) ([]string, error) {
	if !slices.Contains(FailClasses, class) {
		return nil, fmt.Errorf("--fail-on %q: want one of none, tools, args, response, any", class)
	}
	var out []string
	for _, k := range Kinds {
		n := r.Summary.Changes[k]
		if n > 0 && (class == "any" || slices.Contains(classKinds[class], k)) {
			out = append(out, fmt.Sprintf("%d %s", n, k))
		}
	}
	if s := r.Summary.MinSimilarity; s != nil && *s < minSimilarity {
		out = append(out, fmt.Sprintf("response similarity %.2f < %g", *s, minSimilarity))
	}
	return out, nil
}
