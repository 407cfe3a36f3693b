// Group commit: records appended at once share writes and syncs, and a
// released file is opened again.

package journalfile

import (
	"bytes"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/internal/base/syncstat"
)

func numbered(i int) []byte { return fmt.Appendf(nil, `{"n":%d}`, i) }

// records reads back the payloads of the journal of the cassette at path.
func records(t *testing.T, path string) []string {
	t.Helper()
	left, err := Read(path)
	if err != nil || left == nil {
		t.Fatalf("Read: %v, %v", left, err)
	}
	var got []string
	if torn := Each(left.Records, func(p []byte) bool { got = append(got, string(p)); return true }); torn != 0 {
		t.Fatalf("%d bytes torn", torn)
	}
	return got
}

// TestReleaseFreesTheFile: Release closes the journal's file, and the
// next Append opens it again and writes after the records before.
// (Concurrent appends of exchanges, grouped into shared writes, are
// internal/engine/journal's TestConcurrentAppendsAreAllKeptAndTheFileReleased.)
func TestReleaseFreesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	j, err := Open(path, "c", true)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Append(numbered(0)); err != nil {
		t.Fatal(err)
	}
	if err := j.Release(); err != nil {
		t.Fatal(err)
	}
	j.mu.Lock()
	open := j.f != nil
	j.mu.Unlock()
	if open {
		t.Error("the journal's file is still open after Release")
	}
	if err := j.Append(numbered(1)); err != nil {
		t.Fatalf("append after Release: %v", err)
	}
	if got := records(t, path); len(got) != 2 || got[0] != string(numbered(0)) || got[1] != string(numbered(1)) {
		t.Errorf("records %q; want both, in order", got)
	}
}

// TestRecordsGatherAcrossJournalsWhileTheDiskIsBusy: while a batch is
// being written (held here on one journal's lock), records for other
// journals wait for the next batch, which syncs each dirty journal once:
// three records into a second journal cost it one fsync, not three.
func TestRecordsGatherAcrossJournalsWhileTheDiskIsBusy(t *testing.T) {
	dir := t.TempDir()
	busy, err := Open(filepath.Join(dir, "busy.yaml"), "busy", true)
	if err != nil {
		t.Fatal(err)
	}
	other, err := Open(filepath.Join(dir, "other.yaml"), "other", true)
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
	if got := records(t, filepath.Join(dir, "other.yaml")); len(got) != n {
		t.Errorf("other holds %d records; want %d", len(got), n)
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
