package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/sidefile"
)

// prune drops what a strict replay reported unused, so the next strict
// replay of the same run passes; the rest of the cassette is kept.
func TestPruneDropsWhatARunLeftUnused(t *testing.T) {
	t.Parallel()
	dir := recordQuestions(t, "first question", "second question", "third question")
	report := filepath.Join(t.TempDir(), "report.json")
	ask := []string{"QUESTION=second question"}
	if r := adkproxy(t, ask, append([]string{"replay", "--cassettes", dir, "--report", report}, self("ask")...)...); r.code != exitUnmatched || !strings.Contains(r.stderr, "2 recording(s) unused") {
		t.Fatalf("replay: exit %d\n%s", r.code, r.stderr)
	}
	r := adkproxy(t, nil, "prune", "--cassettes", dir, "--report", report, "--dry-run")
	if r.code != 0 || !strings.Contains(r.stderr, "would remove 2 unused recording(s) from 1 cassette(s)") {
		t.Fatalf("dry run: exit %d\n%s", r.code, r.stderr)
	}
	if r := adkproxy(t, ask, append([]string{"replay", "--cassettes", dir}, self("ask")...)...); r.code != exitUnmatched {
		t.Fatalf("--dry-run changed the cassettes: exit %d\n%s", r.code, r.stderr)
	}
	r = adkproxy(t, nil, "prune", "--cassettes", dir, "--report", report)
	if r.code != 0 || !strings.Contains(r.stderr, "removed 2 unused recording(s) from 1 cassette(s)") || !strings.Contains(r.stderr, `"first question"`) {
		t.Fatalf("prune: exit %d\n%s", r.code, r.stderr)
	}
	if r := adkproxy(t, ask, append([]string{"replay", "--cassettes", dir}, self("ask")...)...); r.code != 0 || !strings.Contains(r.stderr, "1 matched") {
		t.Fatalf("replay after prune: exit %d\n%s", r.code, r.stderr)
	}
	if r := adkproxy(t, nil, "prune", "--cassettes", dir, "--report", report); r.code != 0 || !strings.Contains(r.stderr, "already gone") {
		t.Errorf("pruning twice: exit %d\n%s", r.code, r.stderr)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") && !strings.HasPrefix(e.Name(), ".adkproxy") {
			t.Errorf("left behind %s", e.Name())
		}
	}
}

// prune never writes through a symbolic link, and names what it needs.
func TestPruneRefusesSymlinksAndBadInput(t *testing.T) {
	t.Parallel()
	dir := recordQuestions(t, "first question", "second question")
	report := filepath.Join(t.TempDir(), "report.json")
	adkproxy(t, []string{"QUESTION=first question"}, append([]string{"replay", "--cassettes", dir, "--report", report}, self("ask")...)...)
	elsewhere := filepath.Join(t.TempDir(), "elsewhere.yaml")
	file := filepath.Join(dir, "default.yaml")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(elsewhere, data, 0o644)
	os.Remove(file)
	if err := os.Symlink(elsewhere, file); err != nil {
		t.Fatal(err)
	}
	r := adkproxy(t, nil, "prune", "--cassettes", dir, "--report", report)
	if r.code != exitCantWrite || !strings.Contains(r.stderr, "symbolic link") {
		t.Errorf("symlink: exit %d\n%s", r.code, r.stderr)
	}
	if after, _ := os.ReadFile(elsewhere); string(after) != string(data) {
		t.Error("the link's target was changed")
	}
	if fi, err := os.Lstat(file); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the link was replaced")
	}
	for _, tc := range []struct {
		code int
		args []string
		in   string
	}{
		{exitUsage, []string{"prune", "--cassettes", dir}, "--report FILE is required"},
		{exitUsage, []string{"prune", "--report", report}, "--cassettes"},
		{exitDataErr, []string{"prune", "--cassettes", dir, "--report", filepath.Join(dir, "missing.json")}, "missing.json"},
		{exitDataErr, []string{"prune", "--cassettes", dir, "--report", elsewhere}, "elsewhere.yaml"},
	} {
		if r := adkproxy(t, nil, tc.args...); r.code != tc.code || !strings.Contains(r.stderr, tc.in) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, r.code, r.stderr, tc.code, tc.in)
		}
	}
}

// prune removes the side files only the recordings it removed named, and
// keeps those a kept recording names.
func TestPruneRemovesTheSideFilesOfWhatItRemoved(t *testing.T) {
	t.Parallel()
	dir := recordQuestions(t, "first question", "second question", "third question")
	files, err := cassettes.Files(dir)
	if err != nil || len(files) != 1 {
		t.Fatalf("cassettes %v, %v; want one", files, err)
	}
	c, err := cassettes.Load(files[0])
	if err != nil {
		t.Fatal(err)
	}
	sides := map[string]string{} // user text -> side file
	for _, x := range c.Exchanges {
		if x.Place == nil {
			continue
		}
		name, err := sidefile.Write(dir, files[0], x.Request.Body)
		if err != nil {
			t.Fatal(err)
		}
		x.Request.BodyFile = name
		sides[x.Place.User] = filepath.Join(sidefile.Dir(files[0]), name)
	}
	if err := cassettes.Save(files[0], c, nil); err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(t.TempDir(), "report.json")
	ask := []string{"QUESTION=second question"}
	if r := adkproxy(t, ask, append([]string{"replay", "--cassettes", dir, "--report", report}, self("ask")...)...); r.code != exitUnmatched {
		t.Fatalf("replay: exit %d\n%s", r.code, r.stderr)
	}
	if r := adkproxy(t, nil, "prune", "--cassettes", dir, "--report", report); r.code != 0 {
		t.Fatalf("prune: exit %d\n%s", r.code, r.stderr)
	}
	for user, side := range sides {
		_, err := os.Stat(side)
		if kept := err == nil; kept != (user == "second question") {
			t.Errorf("side file of %q: kept=%v after prune (%v)", user, kept, err)
		}
	}
	if r := adkproxy(t, ask, append([]string{"replay", "--cassettes", dir}, self("ask")...)...); r.code != 0 {
		t.Fatalf("replay after prune: exit %d\n%s", r.code, r.stderr)
	}
}
