package journal

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// TestJournalAppendOnAFullDiskIsUndone: an append that fails on a full
// disk (its record written in part) leaves nothing of itself, and the
// records appended once space is freed are read back after the ones
// before, not hidden behind a torn record. The journal stays complete:
// the failed exchange is not kept, its client is told.
func TestJournalAppendOnAFullDiskIsUndone(t *testing.T) {
	dir := testutil.SmallDisk(t, 512<<10)
	path := filepath.Join(dir, "c.yaml")
	j, err := Open(path, "c", false, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	big := func(n, size int) *cassettes.Exchange {
		x := journalExchange(n)
		x.Response.Body = bytes.Repeat([]byte{'a' + byte(n)}, size)
		return x
	}
	if err := j.Append(big(1, 8<<10)); err != nil {
		t.Fatal(err)
	}
	filler := filepath.Join(dir, "filler")
	f, _ := os.Create(filler)
	for { // fill the disk past the prewritten tail, to its last block
		if _, err := f.Write(make([]byte, 4096)); err != nil {
			break
		}
	}
	f.Close()
	if err := j.Append(big(2, 200<<10)); err == nil {
		t.Fatal("an append onto a full disk succeeded")
	}
	os.Remove(filler)
	if err := j.Append(big(3, 8<<10)); err != nil {
		t.Fatal(err)
	}
	c, err := cassettes.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Exchanges) != 2 || c.Exchanges[0].Response.Body[0] != 'b' || c.Exchanges[1].Response.Body[0] != 'd' {
		t.Fatalf("read back %d exchange(s), want the first and the third", len(c.Exchanges))
	}
	if len(c.Warnings) != 0 {
		t.Errorf("warnings: %v", c.Warnings)
	}
}
