package cassettes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/internal/base/syncstat"
)

// TestConcurrentAppendsAreAllKeptAndTheFileReleased: exchanges appended at
// once by many goroutines (grouped into shared writes and fsyncs) are all
// recovered, each once; Release then frees the descriptor, and the next
// Append opens the file again.
func TestConcurrentAppendsAreAllKeptAndTheFileReleased(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	j, err := OpenJournal(path, "c", true, NewRedactor())
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
	j.mu.Lock()
	open := j.f != nil
	j.mu.Unlock()
	if open {
		t.Error("the journal's file is still open after Release")
	}
	last := writers * each
	if err := j.Append(numbered(last)); err != nil {
		t.Fatalf("append after Release: %v", err)
	}
	c, err := Load(path)
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

func numbered(i int) *Exchange {
	x := journalExchange(1)
	x.Request.Body = fmt.Appendf(nil, `{"n":%d}`, i)
	return x
}

// TestRecordsGatherAcrossJournalsWhileTheDiskIsBusy: while a batch is
// being written (held here on one journal's lock), exchanges for other
// journals wait for the next batch, which syncs each dirty journal once:
// three exchanges into a second journal cost it one fsync, not three.
func TestRecordsGatherAcrossJournalsWhileTheDiskIsBusy(t *testing.T) {
	dir := t.TempDir()
	busy, err := OpenJournal(filepath.Join(dir, "busy.yaml"), "busy", true, nil)
	if err != nil {
		t.Fatal(err)
	}
	other, err := OpenJournal(filepath.Join(dir, "other.yaml"), "other", true, nil)
	if err != nil {
		t.Fatal(err)
	}
	before := syncstat.JournalSyncs()
	busy.mu.Lock() // the committer's batch stalls on this journal
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := busy.Append(numbered(0)); err != nil {
			t.Error(err)
		}
	}()
	waitFor(t, "busy is written", func() bool { // the batch holding busy's record has started
		batches.mu.Lock()
		running, waiting := batches.running, len(batches.dirty)
		batches.mu.Unlock()
		busy.queue.mu.Lock()
		defer busy.queue.mu.Unlock()
		return running && waiting == 0 && busy.queue.next == nil
	})
	const n = 3
	for i := 1; i <= n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := other.Append(numbered(i)); err != nil {
				t.Error(err)
			}
		}()
	}
	waitFor(t, "other holds three", func() bool { // all three wait in other's next group
		other.queue.mu.Lock()
		defer other.queue.mu.Unlock()
		return other.queue.next != nil && bytes.Count(other.queue.next.buf, []byte("\n")) == 2*n
	})
	busy.mu.Unlock()
	wg.Wait()
	if got := syncstat.JournalSyncs() - before; got != 2 {
		t.Errorf("%d fsyncs for one exchange in one journal and %d in another; want 2", got, n)
	}
	c, err := Load(filepath.Join(dir, "other.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Exchanges) != n {
		t.Errorf("other recovered %d exchanges; want %d", len(c.Exchanges), n)
	}
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for range 10000 {
		if ok() {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("timed out waiting until %s", what)
}

// TestJournalRecordIsTheExchangesJSON: a record's payload is exactly
// json.Marshal of the exchange (HTML escaped, no trailing newline inside
// the length), whatever buffer it was encoded in.
func TestJournalRecordIsTheExchangesJSON(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	j, err := OpenJournal(path, "c", true, nil)
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
	record := appendRecord(nil, want, crc32.ChecksumIEEE(want))
	data, err := os.ReadFile(JournalPath(path))
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
