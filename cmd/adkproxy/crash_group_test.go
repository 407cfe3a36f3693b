package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// TestSIGKILLWithConcurrentWritersToOneCassette is the SIGKILL test with
// 16 clients recording into the same cassette at once, so their exchanges
// are journalled in shared writes and fsyncs (group commit): after a kill
// at a random moment, every exchange a client had read to the end is on
// disk.
func TestSIGKILLWithConcurrentWritersToOneCassette(t *testing.T) {
	up := httptest.NewServer(&fakegemini.Handler{})
	defer up.Close()
	const trials, clients = 10, 16
	for trial := range trials {
		dir := testutil.OutDir(t)
		cmd, base := startOnLoopback(t, nil, "record", "--cassettes", dir, "--upstream", up.URL, "--log-level", "error")
		killAfter := int64(1 + rand.IntN(60))
		var completed atomic.Int64
		var received sync.Map // question -> true once its answer was read to the end
		var wg sync.WaitGroup
		for c := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for n := 0; ; n++ {
					q := fmt.Sprintf("trial %d writer %d request %d", trial, c, n)
					if !fullyReceived(base, q, n%2 == 1, 0) { // cassette client-0 for all
						return // the proxy is gone
					}
					received.Store(q, true)
					if completed.Add(1) == killAfter {
						cmd.Process.Signal(syscall.SIGKILL)
					}
				}
			}()
		}
		cmd.Wait()
		wg.Wait()

		c, err := cassettes.Load(filepath.Join(dir, "client-0.yaml"))
		if err != nil {
			t.Fatalf("trial %d (killed after %d responses): the cassette does not load: %v", trial, killAfter, err)
		}
		kept := map[string]bool{}
		for _, x := range c.Exchanges {
			kept[firstUserText(x.Request.Body)] = true
		}
		received.Range(func(q, _ any) bool {
			if !kept[q.(string)] {
				t.Errorf("trial %d: the client had received the answer to %q, but it is not on disk", trial, q)
			}
			return true
		})
		t.Logf("trial %d: killed after %d responses; %d on disk", trial, killAfter, len(kept))
	}
}

// firstUserText is the text of a recorded request's first turn.
func firstUserText(body []byte) string {
	var req struct {
		Contents []struct{ Parts []struct{ Text string } }
	}
	if json.Unmarshal(body, &req) != nil || len(req.Contents) == 0 || len(req.Contents[0].Parts) == 0 {
		return ""
	}
	return req.Contents[0].Parts[0].Text
}
