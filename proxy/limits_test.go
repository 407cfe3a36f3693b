package proxy_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/proxyopt"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/proxy"
)

// failsafe only keeps a broken proxy from hanging a test; nothing asserts
// on how long anything took.
const failsafe = 20 * time.Second

const askHi = `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`

// serveLimited serves cfg the way the CLI does: its HTTPServer over a
// LimitListener on a real loopback port.
func serveLimited(t *testing.T, cfg proxy.Config) string {
	t.Helper()
	srv, err := proxy.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	hs := srv.HTTPServer()
	go hs.Serve(proxyopt.LimitListener(ln, cfg.Limits.MaxConns, log))
	t.Cleanup(func() { hs.Close() })
	return ln.Addr().String()
}

// recordedHiDir records one answer to askHi and returns its cassette folder.
func recordedHiDir(t *testing.T) string {
	up, _ := countingUpstream()
	defer up.Close()
	return record(t, up.URL, askHi)
}

// askOK sends askHi on a fresh connection and fails unless it is answered.
func askOK(t *testing.T, addr string) {
	t.Helper()
	client := &http.Client{Timeout: failsafe, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Post("http://"+addr+generatePath, "application/json", strings.NewReader(askHi))
	if err != nil {
		t.Fatalf("a normal client was not served: %v", err)
	}
	if b := body(t, resp); resp.StatusCode != 200 {
		t.Fatalf("a normal client got %d: %s", resp.StatusCode, b)
	}
}

// waitClosed reads conn until the proxy closes it; it fails if the proxy
// still holds it open after failsafe.
func waitClosed(t *testing.T, conn net.Conn, what string) {
	t.Helper()
	conn.SetReadDeadline(time.Now().Add(failsafe))
	_, err := io.Copy(io.Discard, conn)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("%s: the proxy kept the connection open", what)
	}
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestSlowBodyIsClosedWhileOthersAreServed: a client sending its body a
// byte at a time (slowloris) is cut off once ReadTimeout passes, while
// normal clients go on being served.
func TestSlowBodyIsClosedWhileOthersAreServed(t *testing.T) {
	addr := serveLimited(t, proxy.Config{Mode: proxy.ModeReplay, Dir: recordedHiDir(t), AllowRepeats: true,
		Limits: proxy.Limits{ReadTimeout: time.Second}})
	slow := dial(t, addr)
	fmt.Fprintf(slow, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n", generatePath, len(askHi))
	stop := make(chan struct{})
	defer close(stop)
	go func() { // a byte every 100 ms: the body would take 5 s
		for i := 0; i < len(askHi); i++ {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			if _, err := slow.Write([]byte{askHi[i]}); err != nil {
				return
			}
		}
	}()
	askOK(t, addr)
	waitClosed(t, slow, "slow body")
	askOK(t, addr)
}

// TestIdleConnectionIsClosed: a keep-alive connection that sends no further
// request is closed after IdleTimeout; others are still served.
func TestIdleConnectionIsClosed(t *testing.T) {
	addr := serveLimited(t, proxy.Config{Mode: proxy.ModeReplay, Dir: recordedHiDir(t), AllowRepeats: true,
		Limits: proxy.Limits{IdleTimeout: 300 * time.Millisecond}})
	idle := dial(t, addr)
	fmt.Fprintf(idle, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s", generatePath, len(askHi), askHi)
	br := bufio.NewReader(idle)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != 200 || resp.Close {
		t.Fatalf("first request: status %d, close %v; want a kept-alive 200", resp.StatusCode, resp.Close)
	}
	askOK(t, addr)
	waitClosed(t, idle, "idle keep-alive connection")
	askOK(t, addr)
}

// TestConnectionsBeyondMaxConnsGet503: with MaxConns held by idle clients,
// the next client gets a Gemini-style 503; once one leaves, clients are
// served again.
func TestConnectionsBeyondMaxConnsGet503(t *testing.T) {
	addr := serveLimited(t, proxy.Config{Mode: proxy.ModeReplay, Dir: recordedHiDir(t), AllowRepeats: true,
		Limits: proxy.Limits{MaxConns: 2}})
	holders := []net.Conn{dial(t, addr), dial(t, addr)}
	client := &http.Client{Timeout: failsafe, Transport: &http.Transport{DisableKeepAlives: true}}
	var resp *http.Response
	var err error
	for deadline := time.Now().Add(failsafe); ; { // until the listener has counted both holders
		resp, err = client.Post("http://"+addr+generatePath, "application/json", strings.NewReader(askHi))
		if err != nil {
			t.Fatalf("the client over the limit got no answer: %v", err)
		}
		if resp.StatusCode == http.StatusServiceUnavailable || time.Now().After(deadline) {
			break
		}
		resp.Body.Close()
	}
	var e struct {
		Error struct {
			Code    int
			Status  string
			Message string
		}
	}
	b := body(t, resp)
	if resp.StatusCode != 503 || json.Unmarshal([]byte(b), &e) != nil || e.Error.Code != 503 || e.Error.Status != "UNAVAILABLE" ||
		!strings.Contains(e.Error.Message, "too many connections") || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("over the limit: status %d, body %s; want a Gemini 503 UNAVAILABLE", resp.StatusCode, b)
	}
	holders[0].Close()
	for deadline := time.Now().Add(failsafe); ; { // until the proxy has seen it go
		resp, err := client.Post("http://"+addr+generatePath, "application/json", strings.NewReader(askHi))
		if err != nil {
			t.Fatal(err)
		}
		body(t, resp)
		if resp.StatusCode == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after a holder left, status %d", resp.StatusCode)
		}
	}
}

// TestUpstreamHeaderTimeout: while recording, an upstream that never sends
// its headers gets the client a 502 naming the timeout, and nothing is
// recorded; the proxy goes on serving.
func TestUpstreamHeaderTimeout(t *testing.T) {
	release := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "stall") {
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		io.WriteString(w, `{"ok":true}`)
	}))
	defer up.Close()
	defer close(release)
	dir := testutil.OutDir(t)
	addr := serveLimited(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL),
		Limits: proxy.Limits{UpstreamHeaderTimeout: time.Second}})
	client := &http.Client{Timeout: failsafe}
	resp, err := client.Post("http://"+addr+"/v1beta/models/stall:generateContent", "application/json", strings.NewReader(askHi))
	if err != nil {
		t.Fatalf("no answer while the upstream stalls: %v", err)
	}
	if b := body(t, resp); resp.StatusCode != http.StatusBadGateway || !strings.Contains(b, "timed out") {
		t.Fatalf("status %d: %s; want 502 naming the header timeout", resp.StatusCode, b)
	}
	resp, err = client.Post("http://"+addr+generatePath, "application/json", strings.NewReader(askHi))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("a normal request after the timeout: %v %v", resp, err)
	}
	body(t, resp)
}

// TestSlowReaderOfAnAnswerIsCut: a client that does not take a
// non-streaming answer is cut off after WriteTimeout instead of holding
// the connection (and its buffered answer) for ever; others are served.
func TestSlowReaderOfAnAnswerIsCut(t *testing.T) {
	dir := testutil.OutDir(t)
	// More than the socket buffers hold with the slow client's receive
	// buffer made small; not text, so the cassette keeps it as base64,
	// quick to write and read.
	big := bytes.Repeat([]byte{0xff, 0x00}, 4<<20)
	const askBig = `{"contents":[{"role":"user","parts":[{"text":"a long answer, please"}]}]}`
	xs := []*cassettes.Exchange{
		{Request: cassettes.Request{Method: "POST", Path: generatePath, Body: []byte(askBig)}, Response: cassettes.Response{Status: 200, Body: big}},
		{Request: cassettes.Request{Method: "POST", Path: generatePath, Body: []byte(askHi)}, Response: cassettes.Response{Status: 200, Body: []byte(`{"ok":true}`)}},
	}
	if err := cassettes.Save(filepath.Join(dir, "default.yaml"), &cassettes.Cassette{Name: "default", Exchanges: xs}, nil); err != nil {
		t.Fatal(err)
	}
	addr := serveLimited(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir, AllowRepeats: true,
		Limits: proxy.Limits{WriteTimeout: 300 * time.Millisecond}})
	dialer := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
	}}
	slow, err := dialer.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	fmt.Fprintf(slow, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s", generatePath, len(askBig), askBig)
	askOK(t, addr)
	time.Sleep(time.Second) // the client does not read; the proxy's write stalls and times out
	slow.SetReadDeadline(time.Now().Add(failsafe))
	got, _ := io.Copy(io.Discard, slow)
	if got >= int64(len(big)) {
		t.Fatalf("the slow reader still got the whole %d-byte answer; want it cut", len(big))
	}
	askOK(t, addr)
}
