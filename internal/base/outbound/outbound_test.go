package outbound

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// An endless answer stops at the cap with an error naming the URL.
func TestEndlessAnswerIsCapped(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		chunk := []byte(strings.Repeat("data: {}\n\n", 1000))
		for {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	resp, err := Policy{MaxAnswer: 1 << 20}.Client().Get(srv.URL + "/run_sse")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	var tl *AnswerTooLargeError
	if !errors.As(err, &tl) || n != 1<<20 || !strings.Contains(err.Error(), srv.URL+"/run_sse") || !strings.Contains(err.Error(), "--max-answer") {
		t.Fatalf("read %d bytes, error %v; want the cap's error after 1 MiB", n, err)
	}
	// An answer of exactly the cap is whole.
	exact := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(make([]byte, 1000)) }))
	defer exact.Close()
	resp, err = Policy{MaxAnswer: 1000}.Client().Get(exact.URL)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := io.ReadAll(resp.Body); err != nil || len(b) != 1000 {
		t.Errorf("an answer of exactly the cap: %d bytes, %v", len(b), err)
	}
}

// A server that accepts and never answers times out; one that stops in the
// middle of its answer times out too.
func TestSilentServersTimeOut(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close() // held open, never answered
		}
	}()
	p := Policy{HeaderTimeout: 200 * time.Millisecond, IdleTimeout: 200 * time.Millisecond}
	done := make(chan error, 1)
	go func() {
		resp, err := p.Client().Get("http://" + l.Addr().String() + "/list-apps")
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "timeout awaiting response headers") {
			t.Errorf("error %v, want the header timeout", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a server that never answers held the client")
	}

	stalls := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("data: {}\n\n"))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer stalls.Close()
	resp, err := p.Client().Get(stalls.URL)
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	var idle *IdleError
	if !errors.As(err, &idle) || !strings.Contains(err.Error(), "sent nothing for 200ms") {
		t.Errorf("error %v, want the idle timeout", err)
	}
}

// A 307 to another host:port is refused, naming both ends, and the other
// server gets nothing; the same origin and an allowed one are followed.
func TestRedirectToAnotherOriginIsRefused(t *testing.T) {
	var hits int
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits++; io.WriteString(w, "elsewhere") }))
	defer other.Close()
	first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/moved":
			http.Redirect(w, r, "/here", http.StatusTemporaryRedirect)
		case "/here":
			io.WriteString(w, "here")
		default:
			http.Redirect(w, r, other.URL+"/session", http.StatusTemporaryRedirect)
		}
	}))
	defer first.Close()
	_, err := Policy{}.Client().Post(first.URL+"/apps/a/users/u/sessions", "application/json", strings.NewReader(`{"state": {"secret": 1}}`))
	var re *RedirectError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), other.URL+"/session") || !strings.Contains(err.Error(), first.URL+"/apps") ||
		!strings.Contains(err.Error(), "HTTP 307") || !strings.Contains(err.Error(), "--allow-redirect "+strings.TrimPrefix(other.URL, "http://")) {
		t.Fatalf("error %v; want the refused redirect named", err)
	}
	if hits != 0 {
		t.Errorf("the other origin got %d request(s)", hits)
	}
	resp, err := Policy{}.Client().Get(first.URL + "/moved")
	if err != nil {
		t.Fatalf("a redirect within the origin: %v", err)
	}
	resp.Body.Close()
	resp, err = Policy{AllowRedirect: []string{strings.TrimPrefix(other.URL, "http://")}}.Client().Get(first.URL + "/x")
	if err != nil || hits != 1 {
		t.Fatalf("an allowed origin: %v (hits %d)", err, hits)
	}
	resp.Body.Close()
}

func TestPrintableDropsControlCharacters(t *testing.T) {
	if got, want := Printable("ok\x1b[2J\x1b]8;;http://x\x07link\r\u202eevil\nnext\tcol"), "ok\uFFFD[2J\uFFFD]8;;http://x\uFFFDlink\uFFFD\uFFFDevil\nnext\tcol"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
