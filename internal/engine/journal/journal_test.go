package journal

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
)

func journalExchange(i int) *cassettes.Exchange {
	return &cassettes.Exchange{
		Request:  cassettes.Request{Method: "POST", Path: "/v1beta/models/m:generateContent", Body: []byte(`{"n":` + string(rune('0'+i)) + `}`)},
		Response: cassettes.Response{Status: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte("{}\n")},
		Place:    &cassettes.Place{Session: 1, Invocation: i, User: "turn", Agent: "a"},
	}
}

func TestJournalRecoversAKilledRecording(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "suite", "case.yaml")
	j, err := Open(path, "suite/case", true, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		if err := j.Append(journalExchange(i)); err != nil {
			t.Fatal(err)
		}
	}
	j.Close() // the process dies here: no YAML was ever written

	c, err := cassettes.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "suite/case" || len(c.Exchanges) != 3 || c.Exchanges[2].Place.Invocation != 3 {
		t.Fatalf("recovered %+v", c)
	}
	all, err := cassettes.LoadDir(dir)
	if err != nil || all["suite/case"] == nil || len(all["suite/case"].Exchanges) != 3 {
		t.Fatalf("LoadDir did not find the journal-only cassette: %v %v", all, err)
	}
}

func TestJournalIgnoresATornLastRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	j, _ := Open(path, "c", true, nil)
	j.Append(journalExchange(1))
	j.Append(journalExchange(2))
	j.Close()
	jp := journalfile.Path(path)
	data := journalRecords(t, jp)
	for cut := len(data) - 1; cut > len(data)-40; cut-- { // the kill interrupted the last write
		for _, torn := range cutJournal(data, cut) {
			os.WriteFile(jp, torn, 0o644)
			c, err := cassettes.Load(path)
			if err != nil || len(c.Exchanges) != 1 {
				t.Fatalf("cut at %d of %d bytes: %v, %d exchanges; want the first one back", cut, len(torn), err, len(c.Exchanges))
			}
		}
	}
}

// journalRecords is the journal file at jp up to the end of its records,
// without the zeros prewritten after them.
func journalRecords(t *testing.T, jp string) []byte {
	t.Helper()
	data, err := os.ReadFile(jp)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.TrimRight(data, "\x00")
}

// cutJournal is what a kill during a write at cut leaves of the journal
// records: the file ending there (a journal without a prewritten tail, as
// earlier versions wrote), and the bytes after it zeros up to the end of a
// prewritten tail.
func cutJournal(records []byte, cut int) [][]byte {
	zeroed := make([]byte, len(records)+64<<10) // the first prewritten tail
	copy(zeroed, records[:cut])
	return [][]byte{records[:cut], zeroed}
}

func TestJournalExtendsOrReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.yaml")
	if err := cassettes.Save(path, &cassettes.Cassette{Name: "c", Exchanges: []*cassettes.Exchange{journalExchange(1)}}, nil); err != nil {
		t.Fatal(err)
	}
	extend, _ := Open(path, "c", false, nil)
	extend.Append(journalExchange(2))
	extend.Close()
	if c, err := cassettes.Load(path); err != nil || len(c.Exchanges) != 2 {
		t.Fatalf("extend: %v %d", err, len(c.Exchanges))
	}
	replace, _ := Open(path, "c", true, nil)
	replace.Append(journalExchange(3))
	replace.Close()
	if c, err := cassettes.Load(path); err != nil || len(c.Exchanges) != 1 || c.Exchanges[0].Place.Invocation != 3 {
		t.Fatalf("replace: %v %+v", err, c)
	}
}

// TestJournalThatOutlivedItsSaveIsStale: a crash between writing the YAML
// and deleting the journal must not load the exchanges twice.
func TestJournalThatOutlivedItsSaveIsStale(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	j, _ := Open(path, "c", false, nil)
	j.Append(journalExchange(1))
	j.Close()
	if err := cassettes.Save(path, &cassettes.Cassette{Name: "c", Exchanges: []*cassettes.Exchange{journalExchange(1)}}, nil); err != nil {
		t.Fatal(err)
	}
	// killed here, before the journal was removed
	c, err := cassettes.Load(path)
	if err != nil || len(c.Exchanges) != 1 {
		t.Fatalf("%v: %d exchanges, want 1", err, len(c.Exchanges))
	}
}

func TestJournalRefusesSecrets(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	j, _ := Open(path, "c", true, cassettes.NewRedactor("s3cret-value-42"))
	x := journalExchange(1)
	x.Response.Body = []byte(`{"echo":"s3cret-value-42"}`)
	if err := j.Append(x); !errors.Is(err, cassettes.ErrSecretLeak) {
		t.Fatalf("err %v, want ErrSecretLeak", err)
	}
	data := journalRecords(t, journalfile.Path(path))
	if len(data) == 0 || string(data[len(data)-1]) != "\n" || bytes.Contains(data, []byte("s3cret")) {
		t.Fatalf("journal holds the secret or a partial record: %q", data)
	}
}

// TestJournalIsNeverWrittenThroughASymlink: a symlink where the journal
// goes (a hidden file committed to a repository is enough) must not let a
// recording overwrite the file it points to.
func TestJournalIsNeverWrittenThroughASymlink(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "cas")
	os.MkdirAll(dir, 0o755)
	victim := filepath.Join(root, "victim.txt")
	os.WriteFile(victim, []byte("precious\n"), 0o644)
	path := filepath.Join(dir, "name.yaml")
	if err := os.Symlink(victim, journalfile.Path(path)); err != nil {
		t.Fatal(err)
	}
	j, err := Open(path, "name", true, nil)
	if err == nil {
		j.Append(journalExchange(1))
		j.Close()
	}
	if got, _ := os.ReadFile(victim); string(got) != "precious\n" {
		t.Fatalf("the victim was overwritten through the journal symlink: %q", got)
	}
	if !errors.Is(err, cassettes.ErrSymlink) || !strings.Contains(err.Error(), journalfile.Path(path)) {
		t.Fatalf("Open: %v; want cassettes.ErrSymlink naming the journal", err)
	}
	// Loading does not read through it either.
	if _, err := cassettes.Load(path); !errors.Is(err, cassettes.ErrCorrupt) || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("Load: %v; want cassettes.ErrCorrupt saying it is a symbolic link", err)
	}
}
