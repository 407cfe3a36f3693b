// Package httprr reads "httprr trace v1" files: recordings of real HTTP
// exchanges, used as test fixtures. A file is the line "httprr trace v1"
// followed, once per exchange, by a line "<reqLen> <respLen>" and exactly
// reqLen bytes of raw HTTP/1.1 request and respLen bytes of raw HTTP
// response. Bodies are kept byte for byte.
package httprr

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
)

// Magic is the first line of every trace file.
const Magic = "httprr trace v1"

// Exchange is one recorded request and the response it got.
type Exchange struct {
	Request  Request
	Response Response
}

// Request is a recorded request.
type Request struct {
	Method string
	// URL is the request target as written; traces use absolute URLs.
	URL *url.URL
	// Host is the Host header (Go keeps it out of Header).
	Host   string
	Header http.Header
	Body   []byte
}

// Response is a recorded response.
type Response struct {
	Status int
	// Header is as recorded, minus "Connection: close", which Go's reader
	// consumes.
	Header http.Header
	Body   []byte
}

// Events splits an event-stream body after each "\r\n\r\n", the separator
// the recorded API sends (an unterminated tail is an event too); it is nil
// for other bodies. It is written apart from the proxy's SSE reader so that
// tests can check that reader against it.
func (r Response) Events() [][]byte {
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "text/event-stream") {
		return nil
	}
	sep := []byte("\r\n\r\n")
	events := [][]byte{}
	for body := r.Body; len(body) > 0; {
		n := bytes.Index(body, sep)
		if n < 0 {
			n = len(body)
		} else {
			n += len(sep)
		}
		events = append(events, body[:n:n])
		body = body[n:]
	}
	return events
}

// Error is a problem at one place in a trace.
type Error struct {
	// File is the trace's path when known (ParseFile).
	File string
	// Record is the 1-based number of the exchange at fault, 0 for the
	// file's first line.
	Record int
	// Offset is the byte offset in the file where the bad part starts.
	Offset int
	Msg    string
	// Err is the underlying error, if any.
	Err error
}

func (e *Error) Error() string {
	where := "header"
	if e.Record > 0 {
		where = "record " + strconv.Itoa(e.Record)
	}
	s := fmt.Sprintf("httprr: %s (byte offset %d): %s", where, e.Offset, e.Msg)
	if e.File != "" {
		s = e.File + ": " + s
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// ParseFile reads and parses the trace at path.
func ParseFile(path string) ([]Exchange, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	xs, err := Parse(data)
	if e, ok := err.(*Error); ok {
		e.File = path
	}
	return xs, err
}

// Parse parses a whole trace. It never panics; any malformed input gives an
// *Error naming the record and what is wrong with it.
func Parse(data []byte) ([]Exchange, error) {
	line, rest, ok := bytes.Cut(data, []byte("\n"))
	if !ok || string(line) != Magic {
		return nil, &Error{Msg: fmt.Sprintf("the file must start with the line %q, not %q", Magic, clip(line))}
	}
	off := len(line) + 1
	var out []Exchange
	for record := 1; len(rest) > 0; record++ {
		line, after, ok := bytes.Cut(rest, []byte("\n"))
		if !ok {
			return nil, &Error{Record: record, Offset: off,
				Msg: fmt.Sprintf("length line %q has no end of line", clip(line))}
		}
		reqLen, respLen, err := parseLengths(line)
		if err != nil {
			return nil, &Error{Record: record, Offset: off,
				Msg: fmt.Sprintf("bad length line %q: want \"<reqLen> <respLen>\"", clip(line)), Err: err}
		}
		off += len(line) + 1
		if reqLen > int64(len(after)) || respLen > int64(len(after))-reqLen {
			return nil, &Error{Record: record, Offset: off,
				Msg: fmt.Sprintf("request (%d bytes) and response (%d bytes) run past the end of the file: only %d bytes are left",
					reqLen, respLen, len(after))}
		}
		reqBytes := after[:reqLen]
		respBytes := after[reqLen : reqLen+respLen]
		rest = after[reqLen+respLen:]

		var x Exchange
		hreq, err := parseRequest(reqBytes, &x.Request)
		if err != nil {
			return nil, &Error{Record: record, Offset: off, Msg: "unparsable request", Err: err}
		}
		off += int(reqLen)
		if err := parseResponse(respBytes, hreq, &x.Response); err != nil {
			return nil, &Error{Record: record, Offset: off, Msg: "unparsable response", Err: err}
		}
		off += int(respLen)
		out = append(out, x)
	}
	return out, nil
}

// parseLengths reads "<reqLen> <respLen>": two decimal numbers, one space.
func parseLengths(line []byte) (reqLen, respLen int64, err error) {
	a, b, ok := bytes.Cut(line, []byte(" "))
	if !ok {
		return 0, 0, fmt.Errorf("no space between the two lengths")
	}
	if reqLen, err = parseLength(a); err != nil {
		return 0, 0, fmt.Errorf("request length: %v", err)
	}
	if respLen, err = parseLength(b); err != nil {
		return 0, 0, fmt.Errorf("response length: %v", err)
	}
	return reqLen, respLen, nil
}

func parseLength(b []byte) (int64, error) {
	if len(b) == 0 {
		return 0, fmt.Errorf("empty")
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("%q is not a decimal number", clip(b))
		}
	}
	return strconv.ParseInt(string(b), 10, 64)
}

func parseRequest(raw []byte, out *Request) (*http.Request, error) {
	src := bytes.NewReader(raw)
	br := bufio.NewReader(src)
	req, err := http.ReadRequest(br)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, fmt.Errorf("body: %w", err)
	}
	if n := br.Buffered() + src.Len(); n > 0 {
		return nil, fmt.Errorf("%d unexpected bytes after the %d-byte body (does Content-Length match?)", n, len(body))
	}
	*out = Request{Method: req.Method, URL: req.URL, Host: req.Host, Header: req.Header, Body: body}
	return req, nil
}

func parseResponse(raw []byte, req *http.Request, out *Response) error {
	src := bytes.NewReader(raw)
	br := bufio.NewReader(src)
	resp, err := http.ReadResponse(br, req)
	if err != nil {
		return err
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("body: %w", err)
	}
	if n := br.Buffered() + src.Len(); n > 0 {
		return fmt.Errorf("%d unexpected bytes after the %d-byte body (does Content-Length match?)", n, len(body))
	}
	*out = Response{Status: resp.StatusCode, Header: resp.Header, Body: body}
	return nil
}

// clip shortens b for an error message.
func clip(b []byte) string {
	const maxShown = 60
	if len(b) > maxShown {
		return string(b[:maxShown]) + "..."
	}
	return string(b)
}
