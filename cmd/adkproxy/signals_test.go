package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
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
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/journalfile"
	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"google.golang.org/genai"
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

// TestSIGKILLDuringALiveSessionLosesNoTurn kills a recording proxy in the
// middle of a Live session of the Go client, after some turns (and, in
// half the trials, just after the client sent the next one): every turn
// whose end the client had received is on disk, `adkproxy ls` shows them,
// and `adkproxy replay` of the cassette serves them to the same client
// with the upstream stopped; the next recording that reads the cassette
// saves the session once and removes the journal.
func TestSIGKILLDuringALiveSessionLosesNoTurn(t *testing.T) {
	t.Parallel()
	for trial, tc := range []struct {
		turns   int
		midTurn bool // the next question was sent when the proxy was killed
	}{{1, false}, {3, true}, {4, false}, {2, true}} {
		t.Run(fmt.Sprintf("%d turns, mid-turn %v", tc.turns, tc.midTurn), func(t *testing.T) {
			dir := testutil.OutDir(t)
			up := testutil.StartCounting(t, &fakegemini.Handler{}, nil)
			rec, base := startOnLoopback(t, nil, "record", "--cassettes", dir, "--upstream", up.URL, "--log-level", "error")
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			session := connectLive(ctx, t, base)
			var recorded []string
			for turn := range tc.turns {
				recorded = append(recorded, liveTurn(t, session, fmt.Sprintf("trial %d turn %d", trial, turn+1)))
			}
			if tc.midTurn {
				sendTurn(t, session, fmt.Sprintf("trial %d turn %d, cut short", trial, tc.turns+1))
			}
			rec.Process.Signal(syscall.SIGKILL)
			rec.Wait()
			session.Close()

			// The session is on disk with every turn the client saw end.
			all, err := cassettes.LoadDir(dir)
			if err != nil {
				t.Fatalf("the cassettes do not load after the kill: %v", err)
			}
			lives := 0
			for _, c := range all {
				for _, x := range c.Exchanges {
					if x.IsLive() {
						lives++
					}
				}
			}
			if lives != 1 {
				t.Fatalf("%d Live connections on disk after the kill, want the one that was open", lives)
			}
			ls := adkproxy(t, nil, "ls", dir)
			for i := range tc.turns {
				if q := fmt.Sprintf("trial %d turn %d", trial, i+1); ls.code != 0 || !strings.Contains(ls.stdout, q) {
					t.Errorf("adkproxy ls (exit %d) does not show the turn %q:\n%s%s", ls.code, q, ls.stdout, ls.stderr)
				}
			}

			// Replayed with the upstream stopped, the client gets the same answers.
			conns := up.Conns()
			up.Close()
			var repErr bytes.Buffer
			rep, repBase := startOnLoopback(t, &repErr, "replay", "--cassettes", dir, "--log-level", "error")
			session = connectLive(ctx, t, repBase)
			for turn := range tc.turns {
				q := fmt.Sprintf("trial %d turn %d", trial, turn+1)
				if got := liveTurn(t, session, q); got != recorded[turn] {
					t.Errorf("replay answered %q with %q, the recording %q", q, got, recorded[turn])
				}
			}
			session.Close()
			rep.Process.Signal(syscall.SIGTERM)
			if err := rep.Wait(); err != nil || !strings.Contains(repErr.String(), "1 matched, 0 mismatched") {
				t.Errorf("replay: %v, want the connection matched and exit 0:\n%s", err, repErr.String())
			}
			if n := up.Conns() - conns; n != 0 {
				t.Errorf("replay opened %d upstream connections", n)
			}

			// The next recording that reads the cassette saves what the
			// journal held, the connection once, and removes the journal.
			journal := journalfile.Path(filepath.Join(dir, "default.yaml"))
			if _, err := os.Stat(journal); err != nil {
				t.Fatalf("the journal is gone before any save: %v", err)
			}
			once, onceBase := startOnLoopback(t, nil, "record", "--mode", "once", "--cassettes", dir, "--upstream", up.URL, "--log-level", "error")
			session = connectLive(ctx, t, onceBase)
			liveTurn(t, session, fmt.Sprintf("trial %d turn 1", trial))
			session.Close()
			once.Process.Signal(syscall.SIGTERM)
			once.Wait()
			if _, err := os.Stat(journal); !os.IsNotExist(err) {
				t.Errorf("the journal outlived the save: %v", err)
			}
			c, err := cassettes.Load(filepath.Join(dir, "default.yaml"))
			if err != nil || len(c.Exchanges) != 1 || !c.Exchanges[0].IsLive() {
				t.Fatalf("saved: %v, want the one connection", err)
			}
		})
	}
}

// connectLive opens a Live session of the Go client through adkproxy at base.
func connectLive(ctx context.Context, t *testing.T, base string) *genai.Session {
	t.Helper()
	client, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: testutil.SecretAPIKey, Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: "ws" + strings.TrimPrefix(base, "http"), APIVersion: "v1beta"}})
	if err != nil {
		t.Fatal(err)
	}
	session, err := client.Live.Connect(ctx, "gemini-live-2.5-flash-preview", &genai.LiveConnectConfig{ResponseModalities: []genai.Modality{genai.ModalityText}})
	if err != nil {
		t.Fatalf("Live connect: %v", err)
	}
	return session
}

func sendTurn(t *testing.T, session *genai.Session, question string) {
	t.Helper()
	if err := session.SendClientContent(genai.LiveClientContentInput{Turns: []*genai.Content{genai.NewContentFromText(question, genai.RoleUser)}}); err != nil {
		t.Fatalf("send %q: %v", question, err)
	}
}

// liveTurn asks question and returns the answer's text once the turn is
// complete.
func liveTurn(t *testing.T, session *genai.Session, question string) string {
	t.Helper()
	sendTurn(t, session, question)
	var text strings.Builder
	for {
		msg, err := session.Receive()
		if err != nil {
			t.Fatalf("receive the answer to %q: %v", question, err)
		}
		if msg.ServerContent == nil {
			continue // setupComplete, the previous turn's usage
		}
		if turn := msg.ServerContent.ModelTurn; turn != nil {
			for _, p := range turn.Parts {
				text.WriteString(p.Text)
			}
		}
		if msg.ServerContent.TurnComplete {
			if text.Len() == 0 {
				t.Fatal(errors.New("a turn with no text"))
			}
			return text.String()
		}
	}
}
