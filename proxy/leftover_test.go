package proxy_test

import (
	"bytes"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/journalfile"
	"github.com/adkproxy/adkproxy/proxy"
)

// killedRecording records one exchange into cassette c of dir and never
// saves it, as a killed recording leaves it: the journal alone holds it.
// It returns the journal's bytes.
func killedRecording(t *testing.T, dir string) []byte {
	t.Helper()
	up, _ := countingUpstream()
	defer up.Close()
	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL)})
	if code, b := askCassette(t, rec.URL, "c", "first"); code != http.StatusOK {
		t.Fatalf("%d %s", code, b)
	}
	rec.http.Close() // no Close: nothing saved
	data, err := os.ReadFile(journalfile.Path(filepath.Join(dir, "c.yaml")))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// keptJournal is the one journal of c.yaml kept under another name.
func keptJournal(t *testing.T, dir string) []byte {
	t.Helper()
	kept, _ := filepath.Glob(journalfile.Path(filepath.Join(dir, "c.yaml")) + ".unread-*")
	if len(kept) != 1 {
		all, _ := os.ReadDir(dir)
		t.Fatalf("kept journals %v; the folder holds %v", kept, all)
	}
	b, _ := os.ReadFile(kept[0])
	return b
}

// TestRecordNeverDeletesAJournalItDidNotReadBack is issue 39's "nothing
// recorded is lost" for leftover journals: a recording deletes only a
// journal it read back whole into the cassette. Not a journal at all,
// bytes after the last whole record, or a journal the mode does not read
// (overwrite) are kept under another name, in every mode that writes; the
// valid records of one with a bad tail are folded in.
func TestRecordNeverDeletesAJournalItDidNotReadBack(t *testing.T) {
	garbage := []byte("not a journal\n3 0\nabc\n")
	for _, tc := range []struct {
		name   string
		mode   proxy.Mode
		leave  func(t *testing.T, dir string) []byte // the journal it leaves
		folded int                                   // exchanges of the journal in the cassette after
	}{
		{"garbage, overwrite", proxy.ModeRecord, func(t *testing.T, dir string) []byte {
			os.WriteFile(journalfile.Path(filepath.Join(dir, "c.yaml")), garbage, 0o644)
			return garbage
		}, 0},
		{"garbage, refresh", proxy.ModeRecordRefresh, func(t *testing.T, dir string) []byte {
			os.WriteFile(journalfile.Path(filepath.Join(dir, "c.yaml")), garbage, 0o644)
			return garbage
		}, 0},
		{"a killed recording, overwrite", proxy.ModeRecord, killedRecording, 0},
		{"bad tail, new-episodes", proxy.ModeRecordNewEpisodes, func(t *testing.T, dir string) []byte {
			b := append(bytes.TrimRight(killedRecording(t, dir), "\x00"), "40 0badc0de\n{\"not\":\"what the checksum says\"}\n"...)
			os.WriteFile(journalfile.Path(filepath.Join(dir, "c.yaml")), b, 0o644)
			return b
		}, 1},
		{"bad tail, once", proxy.ModeRecordOnce, func(t *testing.T, dir string) []byte {
			b := append(bytes.TrimRight(killedRecording(t, dir), "\x00"), "garbage"...)
			os.WriteFile(journalfile.Path(filepath.Join(dir, "c.yaml")), b, 0o644)
			return b
		}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			left := tc.leave(t, dir)
			up, _ := countingUpstream()
			defer up.Close()
			rec := startProxy(t, proxy.Config{Mode: tc.mode, Dir: dir, Upstream: mustURL(t, up.URL)})
			askCassette(t, rec.URL, "c", "second")
			rec.stop(t)
			if got := keptJournal(t, dir); !bytes.Equal(got, left) {
				t.Errorf("the kept journal differs from the one left:\n%q\n%q", got, left)
			}
			c, err := cassettes.Load(filepath.Join(dir, "c.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			firsts := 0
			for _, x := range c.Exchanges {
				if strings.Contains(string(x.Request.Body), "first") {
					firsts++
				}
			}
			if firsts != tc.folded {
				t.Errorf("%d exchange(s) of the journal in the cassette, want %d", firsts, tc.folded)
			}
		})
	}
}

// TestRecordRefusesAJournalItCannotRead: a leftover journal over the size
// cap, or a FIFO, is neither read nor deleted: the cassette is refused as
// an unreadable cassette is (Err matches ErrCorrupt: exit 65), naming the
// journal and what to do, in every mode that writes, as ls refuses it.
func TestRecordRefusesAJournalItCannotRead(t *testing.T) {
	for _, mode := range []proxy.Mode{proxy.ModeRecord, proxy.ModeRecordOnce, proxy.ModeRecordRefresh} {
		for kind, make := range map[string]func(jp string) error{
			"too large": func(jp string) error { return os.WriteFile(jp, nil, 0o644) }, // then truncated
			"fifo":      mkfifo,
		} {
			t.Run(string(mode)+" "+kind, func(t *testing.T) {
				dir := t.TempDir()
				jp := journalfile.Path(filepath.Join(dir, "c.yaml"))
				if err := make(jp); err != nil {
					t.Skipf("%v", err)
				}
				if kind == "too large" {
					if err := os.Truncate(jp, 3<<30); err != nil { // sparse
						t.Skipf("%v", err)
					}
				}
				before, _ := os.Lstat(jp)
				up, n := countingUpstream()
				defer up.Close()
				rec := startProxy(t, proxy.Config{Mode: mode, Dir: dir, Upstream: mustURL(t, up.URL)})
				if code, b := askCassette(t, rec.URL, "c", "q"); code < 400 {
					t.Errorf("%d %s", code, b)
				}
				rec.stop(t)
				if err := rec.Err(); !errors.Is(err, cassettes.ErrCorrupt) || !strings.Contains(err.Error(), jp) || !strings.Contains(err.Error(), "move it out of the cassettes folder") {
					t.Errorf("Err() = %v", err)
				}
				after, err := os.Lstat(jp)
				if err != nil || !os.SameFile(before, after) || after.Size() != before.Size() {
					t.Errorf("the journal was touched: %v", err)
				}
				if n.Load() != 0 {
					t.Errorf("%d request(s) forwarded", n.Load())
				}
			})
		}
	}
}
