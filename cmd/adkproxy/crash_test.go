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
// 20 times over. Every time, every cassette on disk must load, and must hold
// every exchange whose response a client had read to the end before the kill.
func TestSIGKILLLosesNothingTheClientReceived(t *testing.T) {
	up := httptest.NewServer(&fakegemini.Handler{})
	defer up.Close()
	const trials, clients = 20, 6
	for trial := range trials {
		dir := testutil.OutDir(t)
		cmd, base := startOnLoopback(t, nil, "record", "--cassettes", dir, "--upstream", up.URL, "--log-level", "error")
		killAfter := int64(1 + rand.IntN(30)) // completed responses before the kill
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
					if fullyReceived(base, q, n%2 == 0, c) {
						mu.Lock()
						received[q] = true
						mu.Unlock()
						if completed.Add(1) == killAfter {
							cmd.Process.Signal(syscall.SIGKILL)
						}
					} else {
						return // the proxy is gone
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
				json.Unmarshal(x.Request.Body, &req)
				kept[req.Contents[0].Parts[0].Text] = true
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
}

// fullyReceived sends one question and reports whether the whole answer
// arrived (to the end of the body, or of the stream).
func fullyReceived(base, question string, stream bool, client int) bool {
	path := "/v1beta/models/gemini-2.5-flash:generateContent"
	if stream {
		path = "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
	}
	body := fmt.Sprintf(`{"contents":[{"role":"user","parts":[{"text":%q}]}]}`, question)
	req, _ := http.NewRequest("POST", base+path, strings.NewReader(body))
	req.Header.Set("X-Adkproxy-Cassette", fmt.Sprintf("client-%d", client%3))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(bufio.NewReader(resp.Body))
	return err == nil && resp.StatusCode == 200 && bytes.Contains(data, []byte("You said"))
}
