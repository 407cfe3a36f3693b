package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

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
			journal := cassettes.JournalPath(filepath.Join(dir, "default.yaml"))
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
