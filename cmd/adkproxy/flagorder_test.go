package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Flags may follow the positional arguments, as people write them
// ('adkproxy diff old new --format html'), in every command; after "--"
// and in record's and replay's wrapped command they belong to it.
func TestFlagsAfterPositionalArguments(t *testing.T) {
	t.Parallel()
	dir := recordScenario(t, "run", weatherScenario())
	out := t.TempDir()
	for _, c := range []struct {
		args  []string
		check func(r result) bool
	}{
		{[]string{"diff", dir, dir, "--format", "json"}, func(r result) bool { return json.Valid([]byte(r.stdout)) }},
		{[]string{"diff", dir, dir, "--format=markdown", "--fail-on", "any"}, func(r result) bool { return strings.Contains(r.stdout, "|") || strings.Contains(r.stdout, "#") }},
		{[]string{"diff", dir, "--format", "html", dir, "--out", filepath.Join(out, "d.html")}, func(result) bool { return fileHas(filepath.Join(out, "d.html"), "<html") }},
		{[]string{"ls", dir, "--format", "json"}, func(r result) bool { return json.Valid([]byte(r.stdout)) }},
		{[]string{"ls", dir, "--json"}, func(r result) bool { return json.Valid([]byte(r.stdout)) }},
		{[]string{"export", dir, "--out", filepath.Join(out, "golden.evalset.json")}, func(result) bool { return fileHas(filepath.Join(out, "golden.evalset.json"), "eval_cases") }},
		{[]string{"score", dir, "--expected", filepath.Join(out, "golden.evalset.json"), "--format", "json"}, func(r result) bool { return json.Valid([]byte(r.stdout)) }},
		// The wrapped command keeps its own flags.
		{[]string{"replay", "--cassettes", dir, "--allow-empty", "--", "sh", "-c", `printf '%s ' "$@"`, "sh", "x", "--format", "json"}, func(r result) bool { return r.stdout == "x --format json " }},
	} {
		if r := adkproxy(t, nil, c.args...); r.code != 0 || !c.check(r) {
			t.Errorf("adkproxy %s: exit %d\nstdout %.300s\nstderr %s", strings.Join(c.args, " "), r.code, r.stdout, r.stderr)
		}
	}
}

// A bare 'adkproxy' is a usage error with a one-line hint, not help and 0.
func TestBareAdkproxyHints(t *testing.T) {
	t.Parallel()
	r := adkproxy(t, nil)
	if r.code != exitUsage || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "record, replay") || !strings.Contains(r.stderr, "adkproxy --help") || r.stdout != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want 64 and one line naming the commands", r.code, r.stdout, r.stderr)
	}
	if r := adkproxy(t, nil, "--help"); r.code != 0 || !strings.Contains(r.stdout, "COMMANDS:") {
		t.Errorf("--help: exit %d", r.code)
	}
}

func fileHas(path, text string) bool {
	b, err := os.ReadFile(path)
	return err == nil && strings.Contains(string(b), text)
}
