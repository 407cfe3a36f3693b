package cassettes

import (
	"bytes"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

func journalExchange(i int) *Exchange {
	return &Exchange{
		Request:  Request{Method: "POST", Path: "/v1beta/models/m:generateContent", Body: []byte(`{"n":` + string(rune('0'+i)) + `}`)},
		Response: Response{Status: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte("{}\n")},
		Place:    &Place{Session: 1, Invocation: i, User: "turn", Agent: "a"},
	}
}

func TestJournalRecoversAKilledRecording(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "suite", "case.yaml")
	j, err := OpenJournal(path, "suite/case", true, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		if err := j.Append(journalExchange(i)); err != nil {
			t.Fatal(err)
		}
	}
	j.Close() // the process dies here: no YAML was ever written

	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "suite/case" || len(c.Exchanges) != 3 || c.Exchanges[2].Place.Invocation != 3 {
		t.Fatalf("recovered %+v", c)
	}
	all, err := LoadDir(dir)
	if err != nil || all["suite/case"] == nil || len(all["suite/case"].Exchanges) != 3 {
		t.Fatalf("LoadDir did not find the journal-only cassette: %v %v", all, err)
	}
}

func TestJournalIgnoresATornLastRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	j, _ := OpenJournal(path, "c", true, nil)
	j.Append(journalExchange(1))
	j.Append(journalExchange(2))
	j.Close()
	jp := JournalPath(path)
	data := journalRecords(t, jp)
	for cut := len(data) - 1; cut > len(data)-40; cut-- { // the kill interrupted the last write
		for _, torn := range cutJournal(data, cut) {
			os.WriteFile(jp, torn, 0o644)
			c, err := Load(path)
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
	zeroed := make([]byte, len(records)+prewriteMin)
	copy(zeroed, records[:cut])
	return [][]byte{records[:cut], zeroed}
}

func TestJournalExtendsOrReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.yaml")
	if err := Save(path, &Cassette{Name: "c", Exchanges: []*Exchange{journalExchange(1)}}, nil); err != nil {
		t.Fatal(err)
	}
	extend, _ := OpenJournal(path, "c", false, nil)
	extend.Append(journalExchange(2))
	extend.Close()
	if c, err := Load(path); err != nil || len(c.Exchanges) != 2 {
		t.Fatalf("extend: %v %d", err, len(c.Exchanges))
	}
	replace, _ := OpenJournal(path, "c", true, nil)
	replace.Append(journalExchange(3))
	replace.Close()
	if c, err := Load(path); err != nil || len(c.Exchanges) != 1 || c.Exchanges[0].Place.Invocation != 3 {
		t.Fatalf("replace: %v %+v", err, c)
	}
}

// TestJournalThatOutlivedItsSaveIsStale: a crash between writing the YAML
// and deleting the journal must not load the exchanges twice.
func TestJournalThatOutlivedItsSaveIsStale(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	j, _ := OpenJournal(path, "c", false, nil)
	j.Append(journalExchange(1))
	j.Close()
	if err := Save(path, &Cassette{Name: "c", Exchanges: []*Exchange{journalExchange(1)}}, nil); err != nil {
		t.Fatal(err)
	}
	// killed here, before the journal was removed
	c, err := Load(path)
	if err != nil || len(c.Exchanges) != 1 {
		t.Fatalf("%v: %d exchanges, want 1", err, len(c.Exchanges))
	}
}

func TestJournalRefusesSecrets(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	j, _ := OpenJournal(path, "c", true, NewRedactor("s3cret-value-42"))
	x := journalExchange(1)
	x.Response.Body = []byte(`{"echo":"s3cret-value-42"}`)
	if err := j.Append(x); !errors.Is(err, ErrSecretLeak) {
		t.Fatalf("err %v, want ErrSecretLeak", err)
	}
	data := journalRecords(t, JournalPath(path))
	if len(data) == 0 || string(data[len(data)-1]) != "\n" || bytes.Contains(data, []byte("s3cret")) {
		t.Fatalf("journal holds the secret or a partial record: %q", data)
	}
}
