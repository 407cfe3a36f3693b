// The in-process transport: an http.RoundTripper that hands each request to
// the Server's handler, so a Go client inside adkproxy (the LLM judge,
// simulated users) records and replays through it without a second port.

package proxy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
)

// ErrAborted is returned by Transport's RoundTrip when the handler broke
// the answer off (a recording that ended in a reset connection, an
// upstream that broke the stream, or an answer over MaxBody).
var ErrAborted = errors.New("adkproxy: the answer was broken off")

// Transport returns an http.RoundTripper that serves every request with
// s.ServeHTTP in the calling goroutine: record forwards it upstream and
// keeps the exchange, replay answers from the cassettes and never dials.
// The whole answer is buffered before RoundTrip returns (streaming is not
// needed by its users), up to MaxBody: a longer answer (an upstream that
// never ends one) is an error wrapping ErrAborted, never held whole in memory. A request's host is ignored: the Server sends it
// upstream by its configuration, as it does for any client.
func (s *Server) Transport() http.RoundTripper { return handlerTransport{s} }

type handlerTransport struct{ s *Server }

func (t handlerTransport) RoundTrip(req *http.Request) (resp *http.Response, err error) {
	if req.Body == nil {
		req.Body = http.NoBody
	}
	defer req.Body.Close()
	w := &bufferedResponse{header: http.Header{}, limit: t.s.cfg.MaxBody}
	defer func() {
		if r := recover(); r != nil {
			if r != http.ErrAbortHandler {
				panic(r)
			}
			resp, err = nil, fmt.Errorf("%s %s: %w", req.Method, req.URL.Path, ErrAborted)
			if w.over {
				err = tooLarge(req, w.limit)
			}
		}
	}()
	in := req.Clone(req.Context())
	in.RequestURI = req.URL.RequestURI()
	t.s.ServeHTTP(w, in)
	if w.over {
		return nil, tooLarge(req, w.limit)
	}
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return &http.Response{
		Status:        strconv.Itoa(w.status) + " " + http.StatusText(w.status),
		StatusCode:    w.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        w.header,
		Body:          io.NopCloser(bytes.NewReader(w.body.Bytes())),
		ContentLength: int64(w.body.Len()),
		Request:       req,
	}, nil
}

// tooLarge is Transport's RoundTrip refusing an answer longer than
// MaxBody: it was neither kept in memory nor recorded.
func tooLarge(req *http.Request, limit int64) error {
	return fmt.Errorf("%s %s: the answer is over %d bytes (--max-body), not recorded: %w", req.Method, req.URL.Path, limit, ErrAborted)
}

// errBufferFull is bufferedResponse's Write past its limit: the handler
// stops copying the answer.
var errBufferFull = errors.New("adkproxy: in-process answer over --max-body")

// bufferedResponse is the http.ResponseWriter Transport hands the Server:
// it keeps the status, headers and body (at most limit bytes) for the
// client's response.
type bufferedResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
	limit  int64
	over   bool
}

func (w *bufferedResponse) Header() http.Header { return w.header }

func (w *bufferedResponse) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}

func (w *bufferedResponse) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	if w.over || int64(w.body.Len())+int64(len(p)) > w.limit {
		w.over = true
		return 0, errBufferFull
	}
	return w.body.Write(p)
}

// Flush is a no-op: the body is handed over whole.
func (w *bufferedResponse) Flush() {}
