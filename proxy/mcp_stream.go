// MCP's older HTTP+SSE transport: the client opens a GET event stream,
// whose first event names an endpoint, and POSTs its messages there; each
// POST is answered 202 and its response comes on the stream. Recording
// keeps the stream as one exchange (every event, kept when the client
// closes it) and each POST as its own. Replay serves the stream up to its
// endpoint event and holds it open; each replayed POST to that endpoint
// then pushes, after its 202, the recorded events up to the response to
// its request, with the id the client sent.

package proxy

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/wire"
)

// mcpStreams are the HTTP+SSE streams being replayed, by the endpoint
// they announced.
type mcpStreams struct {
	mu   sync.Mutex
	open map[string]*mcpStream
}

// mcpStream is one replayed stream: the recorded events after its
// endpoint, which of them were pushed, and the channel to push them on.
type mcpStream struct {
	mu     sync.Mutex
	events []cassettes.Event
	pushed []bool
	push   chan []byte
	stop   chan struct{} // closed when the server shuts down
	gone   chan struct{} // closed when the stream's handler returns
}

// send queues an event for the stream, unless it has ended.
func (st *mcpStream) send(b []byte) {
	select {
	case st.push <- b:
	case <-st.gone:
	}
}

// streamKey names an endpoint: the tool host (as stored) with the path and
// query, from the endpoint an event announced (a path, or a whole URL)
// or from a POST's request.
func streamKey(host, endpoint string) string {
	if u, err := url.Parse(endpoint); err == nil && u.Host != "" {
		return cassettes.ToolHost(u.Scheme, u.Host) + u.RequestURI()
	}
	return host + endpoint
}

func requestKey(req *cassettes.Request) string {
	if req.Query == "" {
		return req.Host + req.Path
	}
	return req.Host + req.Path + "?" + req.Query
}

// serveMCPStream replays a recorded HTTP+SSE stream: the events up to its
// endpoint, then what the POSTs to that endpoint push, until the client
// goes or the server shuts down.
func (s *Server) serveMCPStream(w http.ResponseWriter, r *http.Request, name string, e *entry, endpoint string, at int) {
	s.report.matched(name, e.x)
	resp := &e.x.Response
	st := &mcpStream{events: resp.Events[at+1:], pushed: make([]bool, len(resp.Events)-at-1),
		push: make(chan []byte, len(resp.Events)), stop: make(chan struct{}), gone: make(chan struct{})}
	defer close(st.gone)
	key := streamKey(e.x.Request.Host, endpoint)
	s.mcpStreams.mu.Lock()
	if s.mcpStreams.open == nil {
		s.mcpStreams.open = map[string]*mcpStream{}
	}
	s.mcpStreams.open[key] = st
	s.mcpStreams.mu.Unlock()
	defer func() {
		s.mcpStreams.mu.Lock()
		if s.mcpStreams.open[key] == st {
			delete(s.mcpStreams.open, key)
		}
		s.mcpStreams.mu.Unlock()
	}()

	copyHeaders(w.Header(), resp.Header)
	w.Header().Del("Content-Length")
	w.WriteHeader(resp.Status)
	flusher, _ := w.(http.Flusher)
	for _, ev := range resp.Events[:at+1] {
		w.Write(ev.Data)
	}
	for {
		if flusher != nil {
			flusher.Flush()
		}
		select {
		case b := <-st.push:
			w.Write(b)
		case <-st.stop:
			return
		case <-r.Context().Done():
			return
		}
	}
}

// pushMCPStream gives a replayed POST's response on the stream that
// announced its endpoint: the recorded events not yet pushed up to the
// response to the recorded request (the server's own notifications and
// requests before it included), the response with the id got sent.
func (s *Server) pushMCPStream(recorded, got *cassettes.Request) {
	s.mcpStreams.mu.Lock()
	st := s.mcpStreams.open[requestKey(got)]
	s.mcpStreams.mu.Unlock()
	id := wire.JSONRPCID(recorded.Body)
	if st == nil || id == nil {
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	answer := -1
	for i, ev := range st.events {
		if got, ok := wire.MCPStreamAnswerID(ev.Data); !st.pushed[i] && ok && bytes.Equal(got, id) {
			answer = i
			break
		}
	}
	if answer < 0 {
		return
	}
	for i := 0; i <= answer; i++ {
		if st.pushed[i] {
			continue
		}
		if _, isAnswer := wire.MCPStreamAnswerID(st.events[i].Data); isAnswer && i != answer {
			continue // another request's: it waits for its POST
		}
		st.pushed[i] = true
		ev := &cassettes.Response{Events: []cassettes.Event{st.events[i]}}
		if i == answer {
			if r, ok := wire.AnswerWithID(recorded, got, ev); ok {
				ev = r
			}
		}
		st.send(ev.Events[0].Data)
	}
}

// fakeOnStream: a fake's answer to a POST to a replayed stream's endpoint
// goes on the stream, and the POST is answered 202, as the transport has
// it; false when the POST is to no such endpoint.
func (s *Server) fakeOnStream(w http.ResponseWriter, req *cassettes.Request, resp *cassettes.Response) bool {
	s.mcpStreams.mu.Lock()
	st := s.mcpStreams.open[requestKey(req)]
	s.mcpStreams.mu.Unlock()
	if st == nil {
		return false
	}
	copyHeaders(w.Header(), resp.Header)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusAccepted)
	w.Write([]byte("Accepted"))
	var event bytes.Buffer
	event.WriteString("event: message\r\ndata: ")
	json.Compact(&event, resp.Body)
	event.WriteString("\r\n\r\n")
	st.send(event.Bytes())
	return true
}

// onLiveMCPStream: a request recorded from the server over MCP's
// HTTP+SSE transport (a JSON-RPC POST without Streamable HTTP's headers),
// whose answer comes on a stream that passes straight through while
// recording: a fake cannot answer it there.
func onLiveMCPStream(t *tape, r *http.Request, req *cassettes.Request) bool {
	if !t.recording || req.Scheme == SchemeStdio || !wire.IsMCP(req) {
		return false
	}
	c := wire.Recognise(&cassettes.Request{Scheme: req.Scheme, Host: req.Host, Method: r.Method, Path: req.Path, Header: r.Header})
	return c.Dialect == nil || c.Dialect.Name() != wire.DialectMCP
}

// closeMCPStreams ends the replayed streams when the server shuts down.
func (s *Server) closeMCPStreams() {
	s.mcpStreams.mu.Lock()
	defer s.mcpStreams.mu.Unlock()
	for key, st := range s.mcpStreams.open {
		close(st.stop)
		delete(s.mcpStreams.open, key)
	}
}

// streamFailures wraps w for a replayed POST to an open stream's endpoint:
// an answer refusing it (a mismatch, nothing recorded, the closed world)
// also goes on the stream as the request's JSON-RPC error, since the
// client waits there for its response, not on the POST. done must be
// called once the request has been answered.
func (s *Server) streamFailures(w http.ResponseWriter, req *cassettes.Request) (out http.ResponseWriter, done func()) {
	s.mcpStreams.mu.Lock()
	st := s.mcpStreams.open[requestKey(req)]
	s.mcpStreams.mu.Unlock()
	id := wire.JSONRPCID(req.Body)
	if st == nil || id == nil || req.Method != http.MethodPost {
		return w, func() {}
	}
	rw := &failureRecorder{ResponseWriter: w}
	return rw, func() {
		if rw.status < http.StatusBadRequest {
			return
		}
		var e struct {
			Error struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		json.Unmarshal(rw.body.Bytes(), &e)
		msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id,
			"error": map[string]any{"code": -32603, "message": "adkproxy: " + strings.TrimPrefix(e.Error.Message, "adkproxy: ")}})
		st.send([]byte("event: message\r\ndata: " + string(msg) + "\r\n\r\n"))
	}
}

// failureRecorder notes the status of an answer and, when it refuses the
// request, its body.
type failureRecorder struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (f *failureRecorder) WriteHeader(code int) {
	if f.status == 0 {
		f.status = code
	}
	f.ResponseWriter.WriteHeader(code)
}

func (f *failureRecorder) Write(b []byte) (int, error) {
	if f.status == 0 {
		f.status = http.StatusOK
	}
	if f.status >= http.StatusBadRequest && f.body.Len() < 64<<10 {
		f.body.Write(b)
	}
	return f.ResponseWriter.Write(b)
}
