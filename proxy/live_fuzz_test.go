package proxy_test

import (
	"bufio"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/proxy"
)

// FuzzLiveFrameReader writes fuzzed client frames (text or binary, cut
// into fragments, with a declared length that may lie) to a recording
// proxy's Live endpoint whose body limit is 1 KiB. Whatever comes, the
// proxy ends the connection once the client stops, never waits for the
// payload of a message declared over the limit (it closes with 1009), and
// keeps serving.
func FuzzLiveFrameReader(f *testing.F) {
	const limit = 1 << 10
	f.Add([]byte(setupFrame), []byte{10, 20}, uint32(0), false)
	f.Add([]byte("hello"), []byte{}, uint32(1<<30), false)
	f.Add([]byte(strings.Repeat("y", 3*limit)), []byte{200, 200, 200}, uint32(0), true)
	up := testutil.StartCounting(f, &fakegemini.Handler{}, nil)
	upURL, err := url.Parse(up.URL)
	if err != nil {
		f.Fatal(err)
	}
	srv, err := proxy.New(proxy.Config{Mode: proxy.ModeRecord, Dir: f.TempDir(), Upstream: upURL, MaxBody: limit})
	if err != nil {
		f.Fatal(err)
	}
	hs := httpTestServer(f, srv)
	addr := strings.TrimPrefix(hs, "http://")

	f.Fuzz(func(t *testing.T, payload, cuts []byte, declared uint32, binaryFrame bool) {
		c, br := liveHandshake(t, addr)
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		opcode := byte(1)
		if binaryFrame {
			opcode = 2
		}
		if declared > limit {
			// A header that declares more than the limit, and a few bytes.
			writeFrame(c, opcode, true, payload[:min(len(payload), 8)], uint64(declared))
			if code := closeCode(t, br); code != 1009 {
				t.Fatalf("a message declared at %d bytes (limit %d): the connection ended with %d, want 1009 before its payload came", declared, limit, code)
			}
			return
		}
		rest := payload
		for i := 0; ; i++ {
			n := len(rest)
			if i < len(cuts) && int(cuts[i]) < n {
				n = int(cuts[i])
			}
			last := n == len(rest)
			op := opcode
			if i > 0 {
				op = 0 // continuation
			}
			writeFrame(c, op, last, rest[:n], uint64(n))
			rest = rest[n:]
			if last {
				break
			}
		}
		writeFrame(c, 8, true, []byte{0x03, 0xe8}, 2) // close, 1000
		code := closeCode(t, br)
		if len(payload) > limit && code != 1009 && code != 1002 && code != -1 {
			t.Fatalf("a %d-byte message (limit %d) ended with %d, want 1009", len(payload), limit, code)
		}
	})
}

func httpTestServer(f *testing.F, srv *proxy.Server) string {
	hs := &http.Server{Handler: srv}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		f.Fatal(err)
	}
	go hs.Serve(ln)
	f.Cleanup(func() { hs.Close() })
	return "http://" + ln.Addr().String()
}

// liveHandshake opens a raw WebSocket to the Live path.
func liveHandshake(t *testing.T, addr string) (net.Conn, *bufio.Reader) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	key := make([]byte, 16)
	rand.Read(key)
	fmt.Fprintf(c, "GET %s?key=k HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: %s\r\n\r\n",
		jsLivePath, addr, base64.StdEncoding.EncodeToString(key))
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		c.Close()
		t.Fatalf("upgrade: %v %v", resp, err)
	}
	return c, br
}

// writeFrame writes one masked client frame declaring length n.
func writeFrame(w io.Writer, opcode byte, fin bool, payload []byte, n uint64) {
	head := []byte{opcode}
	if fin {
		head[0] |= 0x80
	}
	switch {
	case n < 126:
		head = append(head, 0x80|byte(n))
	case n <= 0xffff:
		head = append(head, 0x80|126)
		head = binary.BigEndian.AppendUint16(head, uint16(n))
	default:
		head = append(head, 0x80|127)
		head = binary.BigEndian.AppendUint64(head, n)
	}
	mask := []byte{1, 2, 3, 4}
	head = append(head, mask...)
	body := make([]byte, len(payload))
	for i, b := range payload {
		body[i] = b ^ mask[i%4]
	}
	w.Write(append(head, body...))
}

// closeCode reads server frames until a close frame (its code, or 1005
// when it has none) or the end of the connection (-1); a read that times
// out fails the test: the proxy waited for a client that had stopped.
func closeCode(t *testing.T, br *bufio.Reader) int {
	for {
		var h [2]byte
		if _, err := io.ReadFull(br, h[:]); err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				t.Fatal("the proxy kept the connection open after the client stopped")
			}
			return -1
		}
		n := uint64(h[1] & 0x7f)
		switch n {
		case 126:
			var b [2]byte
			io.ReadFull(br, b[:])
			n = uint64(binary.BigEndian.Uint16(b[:]))
		case 127:
			var b [8]byte
			io.ReadFull(br, b[:])
			n = binary.BigEndian.Uint64(b[:])
		}
		body := make([]byte, min(n, 1<<20))
		if _, err := io.ReadFull(br, body); err != nil {
			return -1
		}
		if h[0]&0x0f == 8 {
			if len(body) < 2 {
				return 1005
			}
			return int(binary.BigEndian.Uint16(body))
		}
	}
}
