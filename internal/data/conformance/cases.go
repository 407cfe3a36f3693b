// Finding a corpus's cases: tests/<category>/<case>/ folders with a spec
// and recordings (and their -sse variants).

package conformance

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// Case is one runnable case of a corpus: a spec with one recordings file.
// A case folder with generated-recordings-sse.yaml yields a second Case
// named <category>/<case>-sse, its streamed run.
type Case struct {
	// Name is <category>/<case>, or <category>/<case>-sse.
	Name string
	Dir  string
	// Recordings and Session are file names inside Dir.
	Recordings string
	Session    string
	// SSE says the case was recorded with streaming on.
	SSE bool
}

// Cases lists the cases under root (the corpus folder holding tests/, or
// tests/ itself), sorted by name.
func Cases(root string) ([]Case, error) {
	tests := filepath.Join(root, "tests")
	if _, err := os.Stat(tests); err != nil {
		tests = root
	}
	var out []Case
	err := filepath.WalkDir(tests, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() || e.Name() != "spec.yaml" {
			return nil
		}
		dir := filepath.Dir(path)
		rel, err := filepath.Rel(tests, dir)
		if err != nil {
			return err
		}
		name := filepath.ToSlash(rel)
		for _, v := range []Case{
			{Name: name, Recordings: "generated-recordings.yaml", Session: "generated-session.yaml"},
			{Name: name + "-sse", Recordings: "generated-recordings-sse.yaml", Session: "generated-session-sse.yaml", SSE: true},
		} {
			if _, err := os.Stat(filepath.Join(dir, v.Recordings)); err == nil {
				v.Dir = dir
				out = append(out, v)
			}
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: no such corpus folder (want the folder holding tests/<category>/<case>/spec.yaml)", root)
	}
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no case found (want tests/<category>/<case>/spec.yaml with generated-recordings.yaml)", root)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
