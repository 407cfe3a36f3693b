// Package live benchmarks Live API replay: a recorded 50-turn text session
// played back through adkproxy, frames per second, against a WebSocket
// server that plays the same frames with no checks (the limit of the
// connection and the WebSocket library). BENCHMARKS.md reads the results
// (benchtool/live.go); the floor is half the direct server's rate.
package live

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/proxy"
)

// Turns is the number of user turns in the benchmarked session.
const Turns = 50

const livePath = "/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent"

// session is a 50-turn text session: setup and setupComplete, then per
// turn the user's text and the model's answer in two pieces, its
// turnComplete and its usage, the server frames binary as the API sends
// them.
func session() *cassettes.Exchange {
	at := time.Duration(0)
	frame := func(client bool, kind cassettes.FrameKind, data string) cassettes.Frame {
		at += time.Millisecond
		return cassettes.Frame{FromClient: client, Kind: kind, Data: []byte(data), At: at}
	}
	frames := []cassettes.Frame{
		frame(true, cassettes.FrameText, `{"setup":{"model":"models/gemini-live-2.5-flash-preview","generationConfig":{"responseModalities":["TEXT"]},"systemInstruction":{"parts":[{"text":"You are a helpful assistant."}]}}}`),
		frame(false, cassettes.FrameBinary, `{"setupComplete":{}}`),
	}
	for i := range Turns {
		frames = append(frames,
			frame(true, cassettes.FrameText, fmt.Sprintf(`{"clientContent":{"turns":[{"role":"user","parts":[{"text":"Question number %d: what happened next in the story?"}]}],"turnComplete":true}}`, i)),
			frame(false, cassettes.FrameBinary, fmt.Sprintf(`{"serverContent":{"modelTurn":{"parts":[{"text":"In part %d the fox crossed the river "}]}}}`, i)),
			frame(false, cassettes.FrameBinary, `{"serverContent":{"modelTurn":{"parts":[{"text":"and found the orchard on the other side."}]}}}`),
			frame(false, cassettes.FrameBinary, `{"serverContent":{"turnComplete":true}}`),
			frame(false, cassettes.FrameBinary, fmt.Sprintf(`{"usageMetadata":{"promptTokenCount":%d,"responseTokenCount":16,"totalTokenCount":%d}}`, 20*i+12, 20*i+28)),
		)
	}
	return &cassettes.Exchange{
		Request:  cassettes.Request{Method: "GET", Path: livePath},
		Response: cassettes.Response{Status: http.StatusSwitchingProtocols},
		Live:     &cassettes.Live{Frames: frames},
	}
}

// direct plays the session's server frames after each client frame,
// reading what the client sends without looking at it.
func direct(frames []cassettes.Frame) http.Handler {
	up := websocket.Upgrader{ReadBufferSize: 64 << 10, WriteBufferSize: 64 << 10}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		for _, f := range frames {
			if f.FromClient {
				if _, _, err := c.ReadMessage(); err != nil {
					return
				}
				continue
			}
			if c.WriteMessage(websocket.BinaryMessage, f.Data) != nil {
				return
			}
		}
	})
}

// BenchmarkLiveReplay plays the session b.N times over c connections at
// once; an op is one whole session, frames/s counts both directions.
func BenchmarkLiveReplay(b *testing.B) {
	x := session()
	dir := b.TempDir()
	if err := cassettes.Save(filepath.Join(dir, "default.yaml"), &cassettes.Cassette{Name: "default", Exchanges: []*cassettes.Exchange{x}}, nil); err != nil {
		b.Fatal(err)
	}
	srv, err := proxy.New(proxy.Config{Mode: proxy.ModeReplay, Dir: dir, AllowRepeats: true})
	if err != nil {
		b.Fatal(err)
	}
	for _, via := range []struct {
		name string
		h    http.Handler
	}{{"direct", direct(x.Live.Frames)}, {"proxy", srv.HTTPServer().Handler}} {
		hs := httptest.NewServer(via.h)
		url := "ws" + strings.TrimPrefix(hs.URL, "http") + livePath
		for _, c := range []int{1, 16} {
			b.Run(fmt.Sprintf("via=%s/c=%d", via.name, c), func(b *testing.B) {
				runSessions(b, url, x.Live.Frames, c)
			})
		}
		hs.Close()
	}
}

func runSessions(b *testing.B, url string, frames []cassettes.Frame, c int) {
	var next sync.Mutex
	left := b.N
	take := func() bool {
		next.Lock()
		defer next.Unlock()
		left--
		return left >= 0
	}
	errs := make(chan error, c)
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for range c {
		wg.Go(func() {
			for take() {
				if err := play(url, frames); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	select {
	case err := <-errs:
		b.Fatal(err)
	default:
	}
	b.ReportMetric(float64(b.N*len(frames))/elapsed.Seconds(), "frames/s")
}

// play runs one session as a client: each client frame sent, then the
// server frames that follow it read.
func play(url string, frames []cassettes.Frame) error {
	conn, _, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		return err
	}
	defer conn.Close()
	for _, f := range frames {
		if f.FromClient {
			if err := conn.WriteMessage(websocket.TextMessage, f.Data); err != nil {
				return err
			}
			continue
		}
		if _, _, err := conn.ReadMessage(); err != nil {
			return fmt.Errorf("reading a server frame: %w", err)
		}
	}
	conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
	return nil
}
