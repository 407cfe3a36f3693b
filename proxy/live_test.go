package proxy_test

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/proxyopt"
	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/livescenario"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/matcher"
	"github.com/adkproxy/adkproxy/proxy"
)

// jsLivePath is the path @google/genai connects to: a doubled slash after
// the host and the key in the query.
const jsLivePath = "//ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent"

// TestLiveGenaiRecordThenReplay drives the Go client's Live API through a
// recording proxy (Gemini API and Vertex AI sessions), then through a
// replaying one with the upstream stopped: the client sees the same
// messages, the upstream no connection, and no credential reaches disk.
func TestLiveGenaiRecordThenReplay(t *testing.T) {
	dir := testutil.OutDir(t)
	upstream := &fakegemini.Handler{}
	up := testutil.StartCounting(t, upstream, nil)
	upURL := mustURL(t, up.URL)

	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: upURL, VertexUpstream: upURL})
	ws := "ws" + strings.TrimPrefix(rec.URL, "http") // the Go client keeps a ws: base URL as it is
	recorded := runLiveScenarios(t, ws)
	rec.stop(t)
	up.Close()
	if st := rec.Stats(); st.Recorded != 2 || st.WithKey != 2 {
		t.Errorf("record stats %+v, want 2 Live connections recorded, each with a credential", st)
	}
	for _, want := range []string{"toolCall get_weather {\"city\":\"Paris\"}", "text It is 18°C in Paris, sunny."} {
		if !slices.Contains(recorded["gemini"], want) || !slices.Contains(recorded["vertex"], want) {
			t.Errorf("the sessions did not see %q: %q", want, recorded)
		}
	}
	reqs := upstream.Requests()
	credentialed := 0
	for _, r := range reqs {
		if r.Header.Get("X-Goog-Api-Key") == testutil.SecretAPIKey || r.Header.Get("Authorization") == "Bearer "+testutil.SecretBearer {
			credentialed++
		}
	}
	if len(reqs) != 2 || credentialed != 2 {
		t.Errorf("the upstream should have seen both upgrades with the clients' credentials, got %d requests, %d with them", len(reqs), credentialed)
	}
	for _, secret := range []string{testutil.SecretAPIKey, testutil.SecretBearer} {
		if n := testutil.CountInDir(t, dir, secret); n != 0 {
			t.Errorf("a credential appears %d times in the cassettes", n)
		}
	}
	conns := up.Conns()

	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir})
	replayed := runLiveScenarios(t, "ws"+strings.TrimPrefix(rep.URL, "http"))
	rep.stop(t)
	for name, want := range recorded {
		if got := replayed[name]; !slices.Equal(got, want) {
			t.Errorf("%s session differs on replay:\nrecorded %q\nreplayed %q", name, want, got)
		}
	}
	if st := rep.Stats(); st.Replayed != 2 || st.Mismatched+st.Unmatched+st.Unused != 0 {
		t.Errorf("replay stats %+v, want both connections replayed and nothing missed: %+v", st, rep.Misses())
	}
	if up.Conns() != conns {
		t.Errorf("replay opened %d upstream connections", up.Conns()-conns)
	}
}

func runLiveScenarios(t *testing.T, base string) map[string][]string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out := map[string][]string{}
	for name, o := range map[string]livescenario.Options{
		"gemini": {BaseURL: base, APIKey: testutil.SecretAPIKey},
		"vertex": {BaseURL: base, Vertex: true, Token: testutil.SecretBearer},
	} {
		got, err := livescenario.Run(ctx, o)
		if err != nil {
			t.Fatalf("%s Live session: %v (got %q)", name, err, got)
		}
		out[name] = got
	}
	return out
}

// liveConn is a raw client, as JS and Python are: it writes text frames
// and reads whatever the server sends.
type liveConn struct {
	t *testing.T
	*websocket.Conn
}

func dialLive(t *testing.T, base, path string, header http.Header) *liveConn {
	t.Helper()
	c, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(base, "http")+path, header)
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		t.Fatalf("dial %s: %v (HTTP %d)", path, err, status)
	}
	t.Cleanup(func() { c.Close() })
	return &liveConn{t, c}
}

func (c *liveConn) send(frame string) {
	c.t.Helper()
	if err := c.WriteMessage(websocket.TextMessage, []byte(frame)); err != nil {
		c.t.Fatalf("send: %v", err)
	}
}

// next reads one message; a close frame comes back as its error.
func (c *liveConn) next() (kind int, data string, err error) {
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	kind, b, err := c.ReadMessage()
	return kind, string(b), err
}

// turn reads server frames until the one holding until.
func (c *liveConn) turn(until string) []string {
	c.t.Helper()
	var got []string
	for {
		kind, data, err := c.next()
		if err != nil {
			c.t.Fatalf("reading until %q: %v (got %q)", until, err, got)
		}
		if kind != websocket.BinaryMessage {
			c.t.Errorf("server frame %q came as a text frame, but the upstream sent it binary", data)
		}
		got = append(got, data)
		if strings.Contains(data, until) {
			return got
		}
	}
}

const (
	setupFrame    = `{"setup":{"model":"models/gemini-live-2.5-flash-preview","tools":[{"functionDeclarations":[{"name":"get_weather"}]}]}}`
	questionFrame = `{"clientContent":{"turns":[{"role":"user","parts":[{"text":"What is the weather in Paris?"}]}],"turnComplete":true}}`
	toolFrame     = `{"toolResponse":{"functionResponses":[{"id":"call-1","name":"get_weather","response":{"city":"Paris","temp_c":18}}]}}`
)

// recordRawSession records a JS-style session (doubled slash, key in the
// query) and returns what the client received.
func recordRawSession(t *testing.T, dir string) []string {
	t.Helper()
	up := testutil.StartCounting(t, &fakegemini.Handler{}, nil)
	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL)})
	c := dialLive(t, rec.URL, jsLivePath+"?key="+testutil.SecretQueryKey, nil)
	got := rawSession(c, setupFrame, questionFrame, toolFrame)
	c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
	if _, _, err := c.next(); !websocket.IsCloseError(err, websocket.CloseNormalClosure) {
		t.Fatalf("after the client's close: %v, want the upstream's close echoed", err)
	}
	rec.stop(t)
	if n := testutil.CountInDir(t, dir, testutil.SecretQueryKey); n != 0 {
		t.Fatalf("the query key appears %d times in the cassettes", n)
	}
	return got
}

func rawSession(c *liveConn, setup, question, tool string) []string {
	c.send(setup)
	got := c.turn("setupComplete")
	c.send(question)
	got = append(got, c.turn("toolCall")...)
	c.send(tool)
	return append(got, c.turn("usageMetadata")...)
}

// TestLiveReplayMatchesPythonSpelling: a recording made with camelCase
// frames replays for a client sending Python's snake_case keys, and the
// binary server frames go out as binary frames; the client's close gets
// the recorded close back.
func TestLiveReplayMatchesPythonSpelling(t *testing.T) {
	dir := testutil.OutDir(t)
	recorded := recordRawSession(t, dir)

	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir})
	c := dialLive(t, rep.URL, "/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent", http.Header{"X-Goog-Api-Key": {proxyopt.ReplayPlaceholderKey}})
	got := rawSession(c,
		`{"setup": {"model": "models/gemini-live-2.5-flash-preview", "tools": [{"function_declarations": [{"name": "get_weather"}]}]}}`,
		`{"client_content": {"turns": [{"role": "user", "parts": [{"text": "What is the weather in Paris?"}]}], "turn_complete": true}}`,
		`{"tool_response": {"function_responses": [{"id": "call-1", "name": "get_weather", "response": {"city": "Paris", "temp_c": 18}}]}}`)
	if !slices.Equal(got, recorded) {
		t.Fatalf("replayed frames differ:\nrecorded %q\nreplayed %q", recorded, got)
	}
	c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
	if _, _, err := c.next(); !websocket.IsCloseError(err, websocket.CloseNormalClosure) {
		t.Fatalf("after the client's close: %v, want the recorded close", err)
	}
	rep.stop(t)
	if err := rep.Failure(); err != nil {
		t.Fatalf("the replay failed: %v", err)
	}
}

// TestLiveReplayChangedFrameCloses1008: a client frame that differs from
// the recording gets a close frame with code 1008 naming the field, is
// reported as a mismatch and fails the strict run; lenient replay goes on.
func TestLiveReplayChangedFrameCloses1008(t *testing.T) {
	dir := testutil.OutDir(t)
	recordRawSession(t, dir)
	berlin := strings.Replace(questionFrame, "Paris", "Berlin", 1)

	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir})
	c := dialLive(t, rep.URL, jsLivePath, nil)
	c.send(setupFrame)
	c.turn("setupComplete")
	c.send(berlin)
	_, data, err := c.next()
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.ClosePolicyViolation || !strings.Contains(ce.Text, "clientContent.turns[0].parts[0].text") {
		t.Fatalf("got %q, %v; want a close frame 1008 naming clientContent.turns[0].parts[0].text", data, err)
	}
	rep.stop(t)
	misses := rep.Misses()
	if len(misses) != 1 || misses[0].Outcome != matcher.OutcomeMismatched || !strings.Contains(misses[0].Message, "Berlin") {
		t.Fatalf("misses %+v, want one mismatch showing Berlin", misses)
	}
	if err := rep.Failure(); !errors.Is(err, proxy.ErrRunFailed) {
		t.Fatalf("Failure() = %v, want the strict run failed", err)
	}

	lenient := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Lenient: true, Dir: dir})
	c = dialLive(t, lenient.URL, jsLivePath, nil)
	got := rawSession(c, setupFrame, berlin, toolFrame)
	if !strings.Contains(got[len(got)-1], "usageMetadata") {
		t.Fatalf("lenient replay did not serve the recording: %q", got)
	}
	lenient.stop(t)
	if st := lenient.Stats(); st.Mismatched != 1 || lenient.Failure() != nil {
		t.Fatalf("lenient stats %+v, failure %v; want the mismatch reported and the run passed", st, lenient.Failure())
	}
}

// TestLiveReplayUsedUpCloses: a frame past the end of the recording gets a
// close frame, never a wait; a second connection when one was recorded is
// refused as unmatched.
func TestLiveReplayUsedUpCloses(t *testing.T) {
	dir := testutil.OutDir(t)
	recordRawSession(t, dir)
	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir})
	c := dialLive(t, rep.URL, jsLivePath, nil)
	rawSession(c, setupFrame, questionFrame, toolFrame)
	c.send(questionFrame) // the recording has the client closing here
	_, _, err := c.next()
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.ClosePolicyViolation {
		t.Fatalf("a frame past the recording got %v, want close 1008", err)
	}
	_, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(rep.URL, "http")+jsLivePath, nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("a second connection: %v, want HTTP 400 (the one recording is used)", err)
	}
	rep.stop(t)
	if st := rep.Stats(); st.Unmatched != 1 || st.Mismatched != 1 {
		t.Fatalf("stats %+v, want one mismatch and one unmatched connection", st)
	}
}

// TestLiveReplayTiming: with --replay-timing each server frame waits the
// recorded time since the previous frame, the client's included.
func TestLiveReplayTiming(t *testing.T) {
	dir := testutil.OutDir(t)
	x := &cassettes.Exchange{
		Request:  cassettes.Request{Method: "GET", Path: "/ws/google.ai.generativelanguage.v1alpha.GenerativeService.BidiGenerateContentConstrained"},
		Response: cassettes.Response{Status: http.StatusSwitchingProtocols},
		Live: &cassettes.Live{Frames: []cassettes.Frame{
			{FromClient: true, Kind: cassettes.FrameText, Data: []byte(`{"setup":{}}`), At: 5 * time.Millisecond},
			{Kind: cassettes.FrameText, Data: []byte(`{"setupComplete":{}}`), At: 125 * time.Millisecond},
			{Kind: cassettes.FrameBinary, Data: []byte{1, 2, 3}, At: 465 * time.Millisecond},
		}},
	}
	if err := cassettes.Save(filepath.Join(dir, "default.yaml"), &cassettes.Cassette{Name: "default", Exchanges: []*cassettes.Exchange{x}}, nil); err != nil {
		t.Fatal(err)
	}
	clock := &gateClock{permit: make(chan struct{})}
	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir, ReplayTiming: true, Clock: clock})
	c := dialLive(t, rep.URL, x.Request.Path+"?access_token=auth_tokens/abc", nil)
	c.send(`{"setup": {}}`)
	clock.permit <- struct{}{}
	if kind, data, err := c.next(); err != nil || kind != websocket.TextMessage || data != `{"setupComplete":{}}` {
		t.Fatalf("first frame %d %q %v", kind, data, err)
	}
	clock.permit <- struct{}{}
	if kind, data, err := c.next(); err != nil || kind != websocket.BinaryMessage || data != "\x01\x02\x03" {
		t.Fatalf("second frame %d %q %v", kind, data, err)
	}
	if _, _, err := c.next(); !websocket.IsCloseError(err, websocket.CloseNormalClosure) {
		t.Fatalf("after the recording: %v, want a normal close", err)
	}
	clock.mu.Lock()
	defer clock.mu.Unlock()
	if fmt.Sprint(clock.slept) != "[120ms 340ms]" {
		t.Fatalf("slept %v, want [120ms 340ms]", clock.slept)
	}
}

// TestLiveAudioInSideFile: large realtimeInput audio is recorded into a
// side file beside the cassette and replays matching the same audio.
func TestLiveAudioInSideFile(t *testing.T) {
	dir := testutil.OutDir(t)
	audio := base64Audio(96 << 10)
	audioFrame := `{"realtimeInput":{"audio":{"data":"` + audio + `","mimeType":"audio/pcm;rate=16000"}}}`
	up := testutil.StartCounting(t, &fakegemini.Handler{}, nil)
	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL)})
	c := dialLive(t, rec.URL, jsLivePath, nil)
	c.send(setupFrame)
	c.turn("setupComplete")
	c.send(audioFrame)
	c.send(`{"realtimeInput":{"text":"Hello"}}`)
	recorded := c.turn("usageMetadata")
	c.Close()
	rec.stop(t)
	files, _ := filepath.Glob(filepath.Join(dir, "default.files", "sha256-*"))
	yaml, _ := os.ReadFile(filepath.Join(dir, "default.yaml"))
	if len(files) != 1 || strings.Contains(string(yaml), audio[:64]) || !strings.Contains(string(yaml), "blobs:") {
		t.Fatalf("side files %v; the cassette should name one instead of holding the audio:\n%.2000s", files, yaml)
	}

	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir})
	c = dialLive(t, rep.URL, jsLivePath, nil)
	c.send(setupFrame)
	c.turn("setupComplete")
	c.send(audioFrame)
	c.send(`{"realtime_input":{"text":"Hello"}}`)
	if got := c.turn("usageMetadata"); !slices.Equal(got, recorded) {
		t.Fatalf("replayed %q, recorded %q", got, recorded)
	}
	c.Close()
	rep.stop(t)
	if st := rep.Stats(); st.Mismatched != 0 || st.Replayed != 1 {
		t.Fatalf("replay stats %+v: %+v", st, rep.Misses())
	}
}

// base64Audio is n bytes of a tone, as base64.
func base64Audio(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i * 7)
	}
	return base64.StdEncoding.EncodeToString(b)
}

// TestLiveThroughForwardProxy: a client with only HTTPS_PROXY and trust in
// the local CA opens wss://generativelanguage.googleapis.com; the
// intercepted upgrade is recorded (sent to --upstream) and replayed like a
// base-URL one.
func TestLiveThroughForwardProxy(t *testing.T) {
	dir := testutil.OutDir(t)
	auth := newCA(t)
	up := testutil.StartCounting(t, &fakegemini.Handler{}, nil)
	session := func(hs string) []string {
		u := mustURL(t, hs)
		dialer := websocket.Dialer{Proxy: http.ProxyURL(u), TLSClientConfig: &tls.Config{RootCAs: poolOf(auth)}}
		conn, resp, err := dialer.Dial("wss://generativelanguage.googleapis.com"+jsLivePath+"?key="+testutil.SecretQueryKey, nil)
		if err != nil {
			if resp != nil {
				b, _ := io.ReadAll(resp.Body)
				t.Fatalf("wss through the forward proxy: %v: %d %v %s", err, resp.StatusCode, resp.Header, b)
			}
			t.Fatalf("wss through the forward proxy: %v", err)
		}
		defer conn.Close()
		c := &liveConn{t, conn}
		got := rawSession(c, setupFrame, questionFrame, toolFrame)
		c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
		if _, _, err := c.next(); !websocket.IsCloseError(err, websocket.CloseNormalClosure) {
			t.Fatalf("after the client's close: %v", err)
		}
		return got
	}
	rec, recHS := serveForward(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL), Forward: &proxy.ForwardProxy{Leaf: auth.Leaf}})
	recorded := session(recHS.URL)
	recHS.Close()
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	up.Close()
	if n := testutil.CountInDir(t, dir, testutil.SecretQueryKey); n != 0 || rec.Stats().Recorded != 1 {
		t.Fatalf("recorded %d, key on disk %d times", rec.Stats().Recorded, n)
	}
	rep, repHS := serveForward(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir, Forward: &proxy.ForwardProxy{Leaf: auth.Leaf}})
	if got := session(repHS.URL); !slices.Equal(got, recorded) {
		t.Fatalf("replayed %q, recorded %q", got, recorded)
	}
	repHS.Close()
	rep.Close()
	if st := rep.Stats(); st.Replayed != 1 || rep.Failure() != nil {
		t.Fatalf("replay stats %+v, failure %v", st, rep.Failure())
	}
}

// TestLiveRecordScrubsEphemeralToken: an ephemeral token in the query of
// the Constrained path reaches the upstream and never the cassette.
func TestLiveRecordScrubsEphemeralToken(t *testing.T) {
	dir := testutil.OutDir(t)
	upstream := &fakegemini.Handler{}
	up := testutil.StartCounting(t, upstream, nil)
	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL)})
	path := "//ws/google.ai.generativelanguage.v1alpha.GenerativeService.BidiGenerateContentConstrained"
	c := dialLive(t, rec.URL, path+"?access_token=auth_tokens/"+testutil.SecretQueryKey, http.Header{"Authorization": {"Token auth_tokens/" + testutil.SecretBearer}})
	c.send(setupFrame)
	c.turn("setupComplete")
	c.Close()
	rec.stop(t)
	reqs := upstream.Requests()
	if len(reqs) != 1 || !strings.Contains(reqs[0].Query, testutil.SecretQueryKey) || !strings.Contains(reqs[0].Header.Get("Authorization"), testutil.SecretBearer) {
		t.Fatalf("the upstream should have had the token in the query and the header: %+v", reqs)
	}
	for _, secret := range []string{testutil.SecretQueryKey, testutil.SecretBearer} {
		if n := testutil.CountInDir(t, dir, secret); n != 0 {
			t.Errorf("a token appears %d times in the cassettes", n)
		}
	}
	loaded, err := cassettes.Load(filepath.Join(dir, "default.yaml"))
	if err != nil || len(loaded.Exchanges) != 1 || loaded.Exchanges[0].Request.Path != path || loaded.Exchanges[0].Request.Query != "" {
		t.Fatalf("the cassette should hold the connection under its path without the query: %v", err)
	}
}
