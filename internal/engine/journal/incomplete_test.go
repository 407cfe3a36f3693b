package journal

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/journalfile"
)

// TestIncompleteJournalFoldsOnlyWhatIsSafe: the rules for a journal marked
// incomplete, next to a saved cassette and without one, in both modes.
func TestIncompleteJournalFoldsOnlyWhatIsSafe(t *testing.T) {
	good := &cassettes.Cassette{Name: "c", Exchanges: []*cassettes.Exchange{journalExchange(1), journalExchange(2)}}
	for _, tc := range []struct {
		name             string
		saved, replace   bool
		wantInvocations  []int
		wantWarningAbout string
	}{
		{"replace over a saved cassette", true, true, []int{1, 2}, "not folded in"},
		{"extend a saved cassette", true, false, []int{1, 2, 3}, "some of that recording is missing"},
		{"replace with nothing saved", false, true, []int{3}, "some of that recording is missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "c.yaml")
			if tc.saved {
				if err := cassettes.Save(path, good, nil); err != nil {
					t.Fatal(err)
				}
			}
			j, err := Open(path, "c", tc.replace, nil)
			if err != nil {
				t.Fatal(err)
			}
			j.Append(journalExchange(3))
			j.MarkIncomplete()
			j.Close()
			c, err := cassettes.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, x := range c.Exchanges {
				got = append(got, x.Place.Invocation)
			}
			if len(got) != len(tc.wantInvocations) {
				t.Fatalf("loaded invocations %v, want %v", got, tc.wantInvocations)
			}
			for i := range got {
				if got[i] != tc.wantInvocations[i] {
					t.Fatalf("loaded invocations %v, want %v", got, tc.wantInvocations)
				}
			}
			if len(c.Warnings) == 0 || !strings.Contains(c.Warnings[0], tc.wantWarningAbout) || !strings.Contains(c.Warnings[0], journalfile.Path(path)) {
				t.Errorf("warnings %q, want one about %q naming the journal", c.Warnings, tc.wantWarningAbout)
			}
		})
	}
}

// TestJournalMarksItselfIncompleteWhenAnAppendFails: an exchange that
// missed the journal (here a secret refused) makes it incomplete on disk.
func TestJournalMarksItselfIncompleteWhenAnAppendFails(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	cassettes.Save(path, &cassettes.Cassette{Name: "c", Exchanges: []*cassettes.Exchange{journalExchange(1)}}, nil)
	j, _ := Open(path, "c", true, cassettes.NewRedactor("s3cret-value-42"))
	j.Append(journalExchange(2))
	x := journalExchange(3)
	x.Response.Body = []byte(`"s3cret-value-42"`)
	if err := j.Append(x); err == nil {
		t.Fatal("the secret was journalled")
	}
	j.Close()
	c, err := cassettes.Load(path)
	if err != nil || len(c.Exchanges) != 1 || c.Exchanges[0].Place.Invocation != 1 {
		t.Fatalf("%v %+v: want the saved cassette unchanged", err, c)
	}
}

// TestVersion1JournalsStillLoad: journals written before the completeness
// field are complete, as a crash left them.
func TestVersion1JournalsStillLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	j, _ := Open(path, "c d", true, nil)
	j.Append(journalExchange(1))
	j.Close()
	data, _ := os.ReadFile(journalfile.Path(path))
	old := strings.Replace(strings.Replace(string(data), journalfile.Magic, journalfile.MagicV1, 1), " complete=1", "", 1)
	os.WriteFile(journalfile.Path(path), []byte(old), 0o644)
	c, err := cassettes.Load(path)
	if err != nil || c.Name != "c d" || len(c.Exchanges) != 1 || len(c.Warnings) != 0 {
		t.Fatalf("%v %+v", err, c)
	}
}

// TestIncompleteJournalIsSetAsideNotDeleted: what Load did not fold in is
// still on disk after the next recording of the cassette, in both the
// ways a recording replaces a leftover journal.
func TestIncompleteJournalIsSetAsideNotDeleted(t *testing.T) {
	for _, next := range []string{"new journal", "fold and remove"} {
		t.Run(next, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "c.yaml")
			cassettes.Save(path, &cassettes.Cassette{Name: "c", Exchanges: []*cassettes.Exchange{journalExchange(1)}}, nil)
			j, _ := Open(path, "c", true, nil)
			j.Append(journalExchange(7))
			j.MarkIncomplete()
			j.Close()
			left, _ := os.ReadFile(journalfile.Path(path))
			if next == "new journal" {
				j, err := Open(path, "c", true, nil)
				if err != nil {
					t.Fatal(err)
				}
				j.Close()
			} else if _, err := journalfile.Settle(path, true); err != nil {
				t.Fatal(err)
			}
			aside, _ := filepath.Glob(journalfile.Path(path) + ".incomplete-*")
			if len(aside) != 1 {
				t.Fatalf("set aside: %v", aside)
			}
			if got, _ := os.ReadFile(aside[0]); string(got) != string(left) {
				t.Errorf("the set-aside journal differs from the one left")
			}
			if files, _ := cassettes.Files(dir); len(files) != 1 {
				t.Errorf("the set-aside journal is read as a cassette: %v", files)
			}
		})
	}
}
