package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"google.golang.org/genai"

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
	t.Parallel()
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

func init() { proxiedClients["fill-disk"] = fillDiskClient }

// fillDiskClient asks 30 padded questions with the genai client, one line
// per call: "ok N" for an answer, "err N: ..." for an error.
func fillDiskClient() int {
	ctx := context.Background()
	client, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: "fill-disk-key-0123456789", Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: os.Getenv("GOOGLE_GEMINI_BASE_URL")}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	padding := strings.Repeat("padding ", 1000)
	for i := range 30 {
		resp, err := client.Models.GenerateContent(ctx, "gemini-2.5-flash", genai.Text(fmt.Sprintf("question %d %s", i, padding)), nil)
		if err != nil {
			fmt.Printf("err %d: %v\n", i, strings.ReplaceAll(err.Error(), "\n", " "))
			continue
		}
		if !strings.Contains(resp.Text(), "You said") {
			fmt.Printf("err %d: no answer\n", i)
			continue
		}
		fmt.Printf("ok %d\n", i)
	}
	return 0
}

// TestFullDiskWhileRecording is issue 39 item 3 through the real binary
// and the genai client: recording 30 calls onto a 256 KiB disk. Every
// call whose answer the client got is on disk afterwards (the YAML may not
// fit: the journal holds them), every other call got a 507 naming the
// disk, and the summary counts only what is on disk.
func TestFullDiskWhileRecording(t *testing.T) {
	t.Parallel()
	dir := testutil.SmallDisk(t, 256<<10)
	up := httptest.NewServer(&fakegemini.Handler{})
	defer up.Close()
	r := adkproxy(t, nil, append([]string{"record", "--cassettes", dir, "--upstream", up.URL}, self("fill-disk")...)...)
	answered := map[string]bool{}
	refused := 0
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		n, ok := strings.CutPrefix(line, "ok ")
		switch {
		case ok:
			answered["question "+n] = true
		case strings.HasPrefix(line, "err ") && strings.Contains(line, "507") && strings.Contains(line, "disk"):
			refused++
		default:
			t.Errorf("the client saw neither an answer nor a 507 naming the disk: %s", line)
		}
	}
	if len(answered) == 0 || refused == 0 || len(answered)+refused != 30 {
		t.Fatalf("%d answered, %d refused: the disk did not fill up mid-run\n%s\n%s", len(answered), refused, r.stdout, r.stderr)
	}
	if want := fmt.Sprintf("recorded %d exchange(s)", len(answered)); !strings.Contains(r.stderr, want) {
		t.Errorf("the summary does not say %q:\n%s", want, r.stderr)
	}
	c, err := cassettes.Load(filepath.Join(dir, "default.yaml"))
	if err != nil {
		t.Fatalf("what is on disk does not load: %v", err)
	}
	onDisk := map[string]bool{}
	for _, x := range c.Exchanges {
		var req struct {
			Contents []struct{ Parts []struct{ Text string } }
		}
		json.Unmarshal(x.Request.Body, &req)
		q, _, _ := strings.Cut(req.Contents[0].Parts[0].Text, " padding")
		onDisk[q] = true
	}
	for q := range answered {
		if !onDisk[q] {
			t.Errorf("the client got the answer to %q, but it is not on disk", q)
		}
	}
	if len(onDisk) != len(answered) {
		t.Errorf("%d exchange(s) on disk, %d answered", len(onDisk), len(answered))
	}
	t.Logf("exit %d; %d answered, %d refused; %s", r.code, len(answered), refused, strings.TrimSpace(r.stderr))
}
