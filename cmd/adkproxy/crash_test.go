package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"

	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// TestSIGKILLLosesNothingTheClientReceived kills a recording proxy at a
// random moment while clients send plain and streamed requests at once,
// many times over: clients spread over three cassettes, and 16 writers
// sharing one cassette, so their exchanges are journalled in shared writes
// and fsyncs (group commit). Every time, every cassette on disk must load,
// must hold every exchange whose response a client had read to the end
// before the kill, and no temporary file may be left.
func TestSIGKILLLosesNothingTheClientReceived(t *testing.T) {
	up := httptest.NewServer(&fakegemini.Handler{})
	defer up.Close()
	for _, tc := range []struct {
		name            string
		trials, clients int
		maxKillAfter    int             // completed responses before the kill, at most
		cassette        func(c int) int // the cassette client c records into
	}{
		{"three cassettes", 20, 6, 30, func(c int) int { return c % 3 }},
		{"one cassette, group commit", 10, 16, 60, func(int) int { return 0 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for trial := range tc.trials {
				killAndCheck(t, up.URL, trial, tc.clients, int64(1+rand.IntN(tc.maxKillAfter)), tc.cassette)
			}
		})
	}
}

// killAndCheck is one trial: record, SIGKILL after killAfter completed
// responses, and check what is on disk.
func killAndCheck(t *testing.T, upstream string, trial, clients int, killAfter int64, cassette func(int) int) {
	dir := testutil.OutDir(t)
	cmd, base := startOnLoopback(t, nil, "record", "--cassettes", dir, "--upstream", upstream, "--log-level", "error")
	var completed atomic.Int64
	var mu sync.Mutex
	received := map[string]bool{} // question -> response fully read
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				q := fmt.Sprintf("trial %d client %d request %d", trial, c, n)
				if !fullyReceived(base, q, n%2 == 0, cassette(c)) {
					return // the proxy is gone
				}
				mu.Lock()
				received[q] = true
				mu.Unlock()
				if completed.Add(1) == killAfter {
					cmd.Process.Signal(syscall.SIGKILL)
				}
			}
		}()
	}
	cmd.Wait()
	close(stop)
	wg.Wait()

	all, err := cassettes.LoadDir(dir)
	if err != nil {
		t.Fatalf("trial %d (killed after %d responses): the cassettes do not load: %v", trial, killAfter, err)
	}
	kept := map[string]bool{}
	for _, c := range all {
		for _, x := range c.Exchanges {
			var req struct {
				Contents []struct{ Parts []struct{ Text string } }
			}
			if json.Unmarshal(x.Request.Body, &req) == nil && len(req.Contents) > 0 && len(req.Contents[0].Parts) > 0 {
				kept[req.Contents[0].Parts[0].Text] = true
			}
		}
	}
	for q := range received {
		if !kept[q] {
			t.Errorf("trial %d: the client had received the answer to %q, but it is not on disk", trial, q)
		}
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".*.tmp-*"))
	if len(leftovers) != 0 {
		t.Errorf("trial %d: temporary files left: %v", trial, leftovers)
	}
	t.Logf("trial %d: killed after %d responses; %d fully received, %d on disk", trial, killAfter, len(received), len(kept))
}

// fullyReceived sends one question to cassette client-N and reports
// whether the whole answer arrived (to the end of the body, or of the
// stream).
func fullyReceived(base, question string, stream bool, cassette int) bool {
	path := "/v1beta/models/gemini-2.5-flash:generateContent"
	if stream {
		path = "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
	}
	body := fmt.Sprintf(`{"contents":[{"role":"user","parts":[{"text":%q}]}]}`, question)
	req, _ := http.NewRequest("POST", base+path, strings.NewReader(body))
	req.Header.Set("X-Adkproxy-Cassette", fmt.Sprintf("client-%d", cassette))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(bufio.NewReader(resp.Body))
	return err == nil && resp.StatusCode == 200 && bytes.Contains(data, []byte("You said"))
}
