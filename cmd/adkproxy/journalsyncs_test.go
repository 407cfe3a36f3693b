package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// TestRecordLogsItsJournalSyncsPerExchange: a recording ends by saying how
// many journal syncs kept its exchanges (make bench reads the line):
// concurrent calls share syncs, so there are at most as many as exchanges.
// Passthrough keeps nothing and syncs nothing, and says nothing of it.
func TestRecordLogsItsJournalSyncsPerExchange(t *testing.T) {
	t.Parallel()
	upstream := scriptedUpstream(t)
	defer upstream.Close()
	line := regexp.MustCompile(`msg="journal syncs" syncs=(\d+) exchanges=(\d+) mean_sync_ms=[0-9.]+ per_exchange=([0-9.]+)`)
	for _, mode := range []string{"overwrite", "passthrough"} {
		var stderr bytes.Buffer
		cmd, base := startOnLoopback(t, &stderr, "record", "--mode", mode, "--cassettes", t.TempDir(), "--upstream", upstream.URL, "--log-format", "text")
		const calls = 12
		var wg sync.WaitGroup
		for i := range calls {
			wg.Add(1)
			go func() {
				defer wg.Done()
				body := fmt.Sprintf(`{"contents":[{"role":"user","parts":[{"text":"weather %d"}]}]}`, i)
				resp, err := http.Post(base+"/v1beta/models/gemini-2.5-flash:generateContent", "application/json", strings.NewReader(body))
				if err != nil {
					t.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					t.Errorf("call %d: status %d", i, resp.StatusCode)
				}
			}()
		}
		wg.Wait()
		cmd.Process.Signal(syscall.SIGINT)
		if err := cmd.Wait(); err != nil {
			t.Fatalf("%s: %v\n%s", mode, err, stderr.String())
		}
		m := line.FindStringSubmatch(stderr.String())
		if mode == "passthrough" {
			if m != nil || strings.Contains(stderr.String(), "journal syncs") {
				t.Errorf("passthrough logged journal syncs:\n%s", stderr.String())
			}
			continue
		}
		if m == nil {
			t.Fatalf("no journal syncs line at the end of the recording:\n%s", stderr.String())
		}
		syncs, _ := strconv.Atoi(m[1])
		exchanges, _ := strconv.Atoi(m[2])
		per, _ := strconv.ParseFloat(m[3], 64)
		if exchanges != calls || syncs < 1 || syncs > calls || fmt.Sprintf("%.3f", float64(syncs)/calls) != m[3] || per > 1 {
			t.Errorf("%s: want %d exchanges, 1 to %d syncs and their ratio", m[0], calls, calls)
		}
	}
}
