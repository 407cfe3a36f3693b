// Finding eval set files in a folder, and selecting eval cases the way
// adk eval does: "file.evalset.json:case_1,case_2".

package evalset

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// ErrNoEvalSets is the error of Load for a folder that holds no eval set
// file (scoring then reads the folder as a golden run's cassettes).
var ErrNoEvalSets = errors.New("no eval set files (*.evalset.json, *.test.json)")

// Load reads the eval sets at path: one eval set file (*.evalset.json,
// *.test.json, or any JSON file named explicitly: see ParseEvalSet; the
// list formats of older ADK releases are accepted from any of them), or a
// folder of *.evalset.json and *.test.json files searched recursively
// (hidden folders left out), in path order. An error names the file;
// errors.Is(err, ErrNoEvalSets) for a folder without any.
//
// The list formats are those ADK's AgentEvaluator falls back to when a
// file is not an EvalSet: a bare list of eval cases in the pre-1.0 shape
// [{"name", "data": [{"query", "expected_tool_use": [{"tool_name",
// "tool_input"}], "expected_intermediate_agent_responses", "reference"}],
// "initial_session"}], a bare list of turns [{"query", …}] (one case named
// after the file, without .test.json), or a bare list of EvalCase objects.
func Load(path string) ([]*EvalSet, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		set, err := ReadFile(path)
		if err != nil {
			return nil, err
		}
		return []*EvalSet{set}, nil
	}
	files, err := Files(path)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s holds %w", path, ErrNoEvalSets)
	}
	sets := make([]*EvalSet, 0, len(files))
	for _, f := range files {
		set, err := ReadFile(f)
		if err != nil {
			return nil, err
		}
		sets = append(sets, set)
	}
	return sets, nil
}

// Files are the eval set files under dir (*.evalset.json, *.test.json),
// hidden folders left out, in path order.
func Files(dir string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != dir && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			return nil
		}
		if n := d.Name(); strings.HasSuffix(n, ".evalset.json") || strings.HasSuffix(n, ".test.json") {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	return files, err
}

// LoadSelected is Load of ADK's eval set argument "PATH[:ID,ID…]" (see
// SplitCaseSelection), keeping only the selected cases.
func LoadSelected(arg string) ([]*EvalSet, error) {
	path, ids := SplitCaseSelection(arg)
	sets, err := Load(path)
	if err != nil || ids == nil {
		return sets, err
	}
	var all []string
	for _, s := range sets {
		for _, c := range s.EvalCases {
			all = append(all, c.EvalID)
		}
	}
	wanted, err := Selection(path, all, ids)
	if err != nil {
		return nil, err
	}
	for _, s := range sets {
		kept := s.EvalCases[:0:0]
		for _, c := range s.EvalCases {
			if wanted[c.EvalID] {
				kept = append(kept, c)
			}
		}
		s.EvalCases = kept
	}
	return sets, nil
}

// SplitCaseSelection reads ADK's eval set argument "PATH:ID,ID…" into the
// path and the case ids; a path that exists as written, or without a
// colon, selects nothing (ids nil); "PATH:" selects no case (ids empty,
// which Selection refuses).
func SplitCaseSelection(arg string) (path string, ids []string) {
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
		ids = []string{}
	}
	return arg[:i], ids
}

// Selection is the set of case ids that ids select among the eval cases
// read from path, whose ids are all (in order); an id that names no case is
// an error naming it, the path and the ids there are.
func Selection(path string, all, ids []string) (map[string]bool, error) {
	if len(ids) == 0 {
		return nil, fmt.Errorf("%s: no eval case id after the colon: write %s:CASE_ID[,CASE_ID…]", path, path)
	}
	known := map[string]bool{}
	for _, id := range all {
		known[id] = true
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
		if len(all) > 20 {
			all = append(all[:20:20], "…")
		}
		return nil, fmt.Errorf("%s: no eval case %s (its eval_ids: %s)", path, strings.Join(unknown, ", "), strings.Join(all, ", "))
	}
	return wanted, nil
}
