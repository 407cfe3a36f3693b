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
	data, _ := os.ReadFile(jp)
	for cut := len(data) - 1; cut > len(data)-40; cut-- { // the kill interrupted the last write
		os.WriteFile(jp, data[:cut], 0o644)
		c, err := Load(path)
		if err != nil || len(c.Exchanges) != 1 {
			t.Fatalf("cut at %d: %v, %d exchanges; want the first one back", cut, err, len(c.Exchanges))
		}
	}
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
	data, _ := os.ReadFile(JournalPath(path))
	if len(data) == 0 || string(data[len(data)-1]) != "\n" || bytes.Contains(data, []byte("s3cret")) {
		t.Fatalf("journal holds the secret or a partial record: %q", data)
	}
}
