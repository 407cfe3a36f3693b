package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ls, score and export read a folder or one cassette file, named by
// --cassettes or by their one argument; every spelling gives the same output.
func TestReadersTakeAFolderOrAFileByFlagOrArgument(t *testing.T) {
	t.Parallel()
	file := filepath.Join(weatherCassette, "default.yaml")
	for _, tc := range []struct {
		name string
		args []string // the command and its flags; the cassettes are appended
	}{
		{"ls", []string{"ls"}},
		{"score", []string{"score", "--expected", weatherEvalSet, "--config", weatherConfig}},
		{"export", []string{"export"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := adkproxy(t, nil, append(tc.args, "--cassettes", weatherCassette)...)
			if want.code != 0 {
				t.Fatalf("folder by flag: exit %d\n%s", want.code, want.stderr)
			}
			for _, spelling := range [][]string{
				{weatherCassette},
				{file},
				{"--cassettes", file},
			} {
				r := adkproxy(t, nil, append(append([]string{}, tc.args...), spelling...)...)
				got := r.stdout
				if tc.name == "ls" { // ls names the file it read, relative to the folder given
					// the file is named relative to its folder, the same either way
				}
				if r.code != 0 || got != want.stdout {
					t.Errorf("%v: exit %d, stderr %s\ngot:\n%s\nwant:\n%s", spelling, r.code, r.stderr, r.stdout, want.stdout)
				}
			}
		})
	}
}

func TestReadersRefuseTwoDifferentCassettePaths(t *testing.T) {
	t.Parallel()
	other := t.TempDir()
	for _, cmd := range []string{"ls", "score", "export"} {
		r := adkproxy(t, nil, cmd, "--cassettes", weatherCassette, other)
		if r.code != exitUsage || !strings.Contains(r.stderr, "--cassettes") || !strings.Contains(r.stderr, other) {
			t.Errorf("%s: exit %d, stderr %q; want 64 naming both", cmd, r.code, r.stderr)
		}
		r = adkproxy(t, nil, cmd, weatherCassette, other)
		if r.code != exitUsage || !strings.Contains(r.stderr, "one") {
			t.Errorf("%s with two arguments: exit %d, stderr %q", cmd, r.code, r.stderr)
		}
	}
	notCassette := filepath.Join(other, "notes.txt")
	os.WriteFile(notCassette, []byte("x"), 0o644)
	if r := adkproxy(t, nil, "ls", notCassette); r.code != exitDataErr || !strings.Contains(r.stderr, "notes.txt") {
		t.Errorf("a file that is not a cassette: exit %d, stderr %q", r.code, r.stderr)
	}
}
