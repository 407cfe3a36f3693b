// Selecting eval cases the way adk eval does: "file.evalset.json:case_1,case_2".

package scoring

import (
	"fmt"
	"os"
	"strings"
)

// splitCaseSelection reads ADK's eval set argument "PATH:ID,ID…" into the
// path and the case ids; a path that exists as written, or without a
// colon, selects nothing (ids nil).
func splitCaseSelection(arg string) (path string, ids []string) {
	i := strings.LastIndexByte(arg, ':')
	if i < 0 {
		return arg, nil
	}
	if _, err := os.Stat(arg); err == nil {
		return arg, nil
	}
	for _, id := range strings.Split(arg[i+1:], ",") {
		if id = strings.TrimSpace(id); id != "" {
			ids = append(ids, id)
		}
	}
	if ids == nil {
		ids = []string{} // "file:" selects no case: an error below, not every case
	}
	return arg[:i], ids
}

// selectCases keeps the cases named in ids, in the eval set's order; an id
// that names no case is an error naming it and the file.
func (e *Expected) selectCases(path string, ids []string) error {
	if len(ids) == 0 {
		return fmt.Errorf("%s: no eval case id after the colon: write %s:CASE_ID[,CASE_ID…]", path, path)
	}
	known := map[string]bool{}
	for _, c := range e.Cases {
		known[c.ID] = true
	}
	wanted := map[string]bool{}
	var unknown []string
	for _, id := range ids {
		if !known[id] {
			unknown = append(unknown, fmt.Sprintf("%q", id))
		}
		wanted[id] = true
	}
	if unknown != nil {
		return fmt.Errorf("%s: no eval case %s (its eval_ids: %s)", path, strings.Join(unknown, ", "), strings.Join(caseIDs(e), ", "))
	}
	kept := e.Cases[:0:0]
	for _, c := range e.Cases {
		if wanted[c.ID] {
			kept = append(kept, c)
		}
	}
	e.Cases = kept
	return nil
}

func caseIDs(e *Expected) []string {
	out := make([]string, 0, len(e.Cases))
	for _, c := range e.Cases {
		out = append(out, c.ID)
	}
	if len(out) > 20 {
		out = append(out[:20], "…")
	}
	return out
}
