// Running an http.Handler where goproxy wants an *http.Response,
// so requests inside an intercepted tunnel reach the same handlers, with
// the same streaming, as requests on the listener.

package proxy

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
)

// respond runs h for r on its own goroutine and returns the response as
// soon as h has sent its head; the body streams from h through a pipe, so
// an SSE event reaches the client as h writes it, and a handler that
// aborts (http.ErrAbortHandler) breaks the client's connection, as it would
// on the listener.
func respond(h http.Handler, r *http.Request) *http.Response {
	pr, pw := io.Pipe()
	w := &pipeWriter{header: http.Header{}, body: pw, head: make(chan struct{})}
	go func() {
		defer func() {
			if v := recover(); v != nil {
				err, _ := v.(error)
				if err == nil || !errors.Is(err, http.ErrAbortHandler) {
					err = errors.New("adkproxy: handler failed")
				}
				if w.status == 0 {
					w.status = http.StatusBadGateway // nothing was sent: say the answer failed
				}
				w.sendHead()
				pw.CloseWithError(err)
				return
			}
			w.sendHead()
			pw.Close()
		}()
		h.ServeHTTP(w, r)
	}()
	<-w.head
	var body io.ReadCloser = pr
	if w.hijacked != nil {
		body = w.hijacked // a Live connection (live_mitm.go)
	}
	resp := &http.Response{
		StatusCode:    w.status,
		Status:        strconv.Itoa(w.status) + " " + http.StatusText(w.status),
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        w.sent,
		Body:          body,
		ContentLength: -1,
		Request:       r,
	}
	if n, err := strconv.ParseInt(w.sent.Get("Content-Length"), 10, 64); err == nil && n >= 0 {
		resp.ContentLength = n
	}
	if w.hijacked != nil {
		// No body follows the head (an unknown length would add
		// "Connection: close", which clients read as no upgrade).
		resp.ContentLength = 0
	}
	return resp
}

// pipeWriter is the http.ResponseWriter handed to a handler by respond.
type pipeWriter struct {
	header http.Header
	sent   http.Header // header as of WriteHeader
	status int
	body   *io.PipeWriter
	once   sync.Once
	head   chan struct{}
	// hijacked is set when the handler took the connection over.
	hijacked *hijackedBody
}

func (w *pipeWriter) Header() http.Header { return w.header }

func (w *pipeWriter) WriteHeader(code int) {
	if w.status != 0 || code < 200 { // informational heads are not passed on
		return
	}
	w.status = code
	w.sendHead()
}

func (w *pipeWriter) sendHead() {
	w.once.Do(func() {
		if w.status == 0 {
			w.status = http.StatusOK
		}
		w.sent = w.header.Clone()
		close(w.head)
	})
}

func (w *pipeWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.body.Write(p)
}

// Flush is a no-op: every Write already waits until the client's side has
// taken the bytes.
func (w *pipeWriter) Flush() {}

// errorResponse is writeError's answer as an *http.Response, for goproxy
// hooks that cannot run a handler (a refused CONNECT).
func errorResponse(r *http.Request, code int, message string) *http.Response {
	rec := httptest.NewRecorder()
	writeError(rec, code, statusUnavailable, message)
	resp := rec.Result()
	resp.Request = r
	return resp
}
