package journal

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/journalfile"
)

// TestJournalRecordsFillThePrewrittenTail: the journal is made with zeros
// after its header, records are written over them, so most appends leave
// the file's size as it was (their sync flushes data only), and the file
// grows a chunk at a time. Read while the recording still runs (a kill),
// every record comes back, and the zeros after the last are not taken for
// an unfinished record.
func TestJournalRecordsFillThePrewrittenTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	j, err := Open(path, "c", true, nil)
	if err != nil {
		t.Fatal(err)
	}
	jp := journalfile.Path(path)
	size := func() int64 {
		info, err := os.Stat(jp)
		if err != nil {
			t.Fatal(err)
		}
		return info.Size()
	}
	if size() < 64<<10 {
		t.Fatalf("a new journal is %d bytes; want its header and a prewritten tail of %d", size(), 64<<10)
	}
	const n = 400
	grew := 0
	for i := range n {
		x := numbered(i)
		x.Response.Body = bytes.Repeat([]byte("a"), 1000)
		before := size()
		if err := j.Append(x); err != nil {
			t.Fatal(err)
		}
		if size() != before {
			grew++
		}
		data, err := os.ReadFile(jp)
		if err != nil {
			t.Fatal(err)
		}
		end := int64(len(bytes.TrimRight(data, "\x00"))) // where the records end
		if int64(len(data)) <= end || data[end-1] != '\n' || len(bytes.Trim(data[end:], "\x00")) != 0 {
			t.Fatalf("after record %d: the file is %d bytes, the records end at %d; want zeros after them", i, len(data), end)
		}
	}
	// 400 records of about 1.5 KB: 600 KB, from 64 KB doubling to 1 MB chunks.
	if grew > 5 {
		t.Errorf("the file grew on %d of %d appends; want only when the records ran past the zeros", grew, n)
	}
	j.MarkIncomplete() // so that cassettes.Load would warn of an unfinished record
	c, err := cassettes.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Exchanges) != n {
		t.Fatalf("loaded %d exchanges; want %d", len(c.Exchanges), n)
	}
	for _, w := range c.Warnings {
		if strings.Contains(w, "unfinished record") {
			t.Errorf("the prewritten tail was taken for an unfinished record: %s", w)
		}
	}
}

// TestJournalReopenedAfterAReleaseWritesAfterItsRecords: a journal whose
// file was closed between exchanges (Release) and opened again writes its
// next record after the last one, not after the prewritten zeros, and a
// streamed record (a large body) does too.
func TestJournalReopenedAfterAReleaseWritesAfterItsRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	j, err := Open(path, "c", true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Append(numbered(0)); err != nil {
		t.Fatal(err)
	}
	j.Release()
	if err := j.Append(numbered(1)); err != nil {
		t.Fatal(err)
	}
	big := numbered(2)
	big.Response.Body = bytes.Repeat([]byte("b"), streamedRecord)
	if err := j.Append(big); err != nil {
		t.Fatal(err)
	}
	if err := j.Append(numbered(3)); err != nil {
		t.Fatal(err)
	}
	c, err := cassettes.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Exchanges) != 4 || !bytes.Equal(c.Exchanges[2].Response.Body, big.Response.Body) || string(c.Exchanges[3].Request.Body) != `{"n":3}` {
		t.Fatalf("loaded %d exchanges; want the four appended, in order", len(c.Exchanges))
	}
}
