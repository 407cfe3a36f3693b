package journal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/journalfile"
)

// TestConcurrentAppendsAreAllKeptAndTheFileReleased: exchanges appended at
// once by many goroutines (grouped into shared writes and fsyncs) are all
// recovered, each once; after a Release the next Append opens the file
// again (journalfile's tests see the descriptor freed).
func TestConcurrentAppendsAreAllKeptAndTheFileReleased(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	j, err := Open(path, "c", true, cassettes.NewRedactor())
	if err != nil {
		t.Fatal(err)
	}
	const writers, each = 16, 8
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if err := j.Append(numbered(w*each + i)); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if err := j.Release(); err != nil {
		t.Fatal(err)
	}
	last := writers * each
	if err := j.Append(numbered(last)); err != nil {
		t.Fatalf("append after Release: %v", err)
	}
	c, err := cassettes.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, x := range c.Exchanges {
		seen[string(x.Request.Body)]++
	}
	for i := range last + 1 {
		if n := seen[string(numbered(i).Request.Body)]; n != 1 {
			t.Errorf("exchange %d recovered %d times; want once", i, n)
		}
	}
}

func numbered(i int) *cassettes.Exchange {
	x := journalExchange(1)
	x.Request.Body = fmt.Appendf(nil, `{"n":%d}`, i)
	return x
}

// TestJournalRecordIsTheExchangesJSON: a record's payload is exactly
// json.Marshal of the exchange (HTML escaped, no trailing newline inside
// the length), whatever buffer it was encoded in.
func TestJournalRecordIsTheExchangesJSON(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	j, err := Open(path, "c", true, nil)
	if err != nil {
		t.Fatal(err)
	}
	x := numbered(1)
	x.Request.Header = map[string][]string{"X-Note": {"<a & b>\n"}}
	for range 2 { // the second reuses the first's buffer
		if err := j.Append(x); err != nil {
			t.Fatal(err)
		}
	}
	want, _ := json.Marshal(x)
	record := fmt.Appendf(nil, "%d %08x\n%s\n", len(want), crc32.ChecksumIEEE(want), want)
	data, err := os.ReadFile(journalfile.Path(path))
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(data, record); n != 2 {
		t.Errorf("the journal holds %d records equal to json.Marshal's; want 2:\n%s", n, data)
	}
	if want := fmt.Sprintf("%d %08x\n", len(want), crc32.ChecksumIEEE(want)); !bytes.HasPrefix(record, []byte(want)) {
		t.Errorf("record header %q; want %q", record[:len(want)], want)
	}
}
