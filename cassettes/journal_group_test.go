package cassettes

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"
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
