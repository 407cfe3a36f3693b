// Serving fakes: which fake a tool request gets, the answer it is given in
// the request's dialect, and the report of the run.

package toolfake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/wire"
)

// HeaderFake marks an answer a fake gave (FILE:LINE), in the client's
// response and in a recorded exchange.
const HeaderFake = "X-Adkproxy-Fake"

// Set is a loaded fakes file; it is safe for concurrent use.
type Set struct {
	mu         sync.Mutex
	fakes      []*entry
	unexpected []string // calls of a faked tool or host that no fake answered
}

type entry struct {
	Fake
	served []string // what each call it answered was
}

// Fake answers req, a call of cassette, with the first fake, in file
// order, that still has calls to answer and matches it; ok is false when
// none does. It implements proxy.ToolFaker.
func (s *Set) Fake(cassette string, req *cassettes.Request) (resp *cassettes.Response, delay time.Duration, ok bool) {
	c, ok := callOf(req)
	if !ok {
		return nil, 0, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	about := 0 // the fakes about the call's tool or host
	for _, e := range s.fakes {
		if !e.about(c) || e.Cassette != "" && e.Cassette != cassette {
			continue
		}
		about++
		if e.Times != nil && *e.Times > 0 && len(e.served) >= *e.Times || e.Times == nil && len(e.served) >= 1 {
			continue
		}
		if !e.argsMatch(c.args) {
			continue
		}
		e.served = append(e.served, c.what)
		r := answer(&e.Fake, c, len(e.served))
		r.Header.Set(HeaderFake, fmt.Sprintf("%s:%d", e.file, e.line))
		return r, e.delay, true
	}
	if about > 0 {
		s.unexpected = append(s.unexpected, fmt.Sprintf("%s (none of its %d fake(s) left matches)", c.what, about))
	}
	return nil, 0, false
}

// call is a tool request as fakes see it.
type call struct {
	kind   string // wire.DialectMCP, DialectA2A or DialectHTTP
	name   string // MCP tool or A2A agent
	host   string // host and path, for HTTP
	args   map[string]any
	id     json.RawMessage // the JSON-RPC id to answer with
	method string
	what   string // for the report: get_weather {"city":"Paris"}
}

func callOf(req *cassettes.Request) (call, bool) {
	var rpc struct {
		ID json.RawMessage `json:"id"`
	}
	json.Unmarshal(req.Body, &rpc)
	if m, ok := wire.MCPRequestOf(req); ok {
		if m.Method != "tools/call" {
			return call{}, false // the session's plumbing comes from the cassette or the server
		}
		c := call{kind: wire.DialectMCP, name: m.Name, id: rpc.ID, method: m.Method}
		json.Unmarshal(m.Args, &c.args)
		c.what = m.Name + " " + string(m.Args)
		return c, true
	}
	if a, ok := wire.A2AOf(&cassettes.Exchange{Request: *req}); ok {
		if a.Method != "message/send" && a.Method != "message/stream" {
			return call{}, false
		}
		c := call{kind: wire.DialectA2A, name: a.Agent, args: map[string]any{"text": a.Text}, id: rpc.ID, method: a.Method}
		c.what = fmt.Sprintf("%s %q", a.Agent, a.Text)
		return c, true
	}
	c := call{kind: wire.DialectHTTP, host: req.Host + req.Path, method: req.Method}
	if json.Unmarshal(req.Body, &c.args) != nil || c.args == nil {
		c.args = map[string]any{}
		q, _ := url.ParseQuery(req.Query)
		for k, v := range q {
			if len(v) == 1 {
				c.args[k] = v[0]
			} else {
				c.args[k] = v
			}
		}
	}
	c.what = req.Method + " " + req.Host + req.Path
	return c, true
}

// names says whether the fake is about the call's tool or host, whatever
// its arguments.
func (f *Fake) about(c call) bool {
	if f.Tool != "" {
		return c.kind != wire.DialectHTTP && f.Tool == c.name
	}
	return c.kind == wire.DialectHTTP && (c.host == f.Host || strings.HasPrefix(c.host, f.Host+"/"))
}

// answer is the fake's answer in the call's dialect.
func answer(f *Fake, c call, n int) *cassettes.Response {
	r := &cassettes.Response{Status: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}}, End: cassettes.EndComplete}
	text := func() string {
		if s, ok := f.Result.(string); ok {
			return s
		}
		b, _ := json.Marshal(normal(f.Result))
		return string(b)
	}
	id := c.id
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	switch c.kind {
	case wire.DialectMCP:
		result := map[string]any{"content": []any{map[string]any{"type": "text", "text": text()}}}
		if m, ok := normal(f.Result).(map[string]any); ok && m["content"] != nil {
			result = m // a whole CallToolResult
		} else if ok {
			// An object is the tool's structured result too: a client
			// checks it against the tool's outputSchema, when it has one.
			result["structuredContent"] = m
		}
		if f.Error != "" {
			result = map[string]any{"content": []any{map[string]any{"type": "text", "text": f.Error}}, "isError": true}
		}
		r.Body, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
	case wire.DialectA2A:
		if f.Error != "" {
			r.Body, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": -32603, "message": f.Error}})
			break
		}
		msg := map[string]any{"kind": "message", "role": "agent", "messageId": fmt.Sprintf("adkproxy-fake-%d", n),
			"parts": []any{map[string]any{"kind": "text", "text": text()}}}
		r.Body, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": msg})
	default:
		r.Status = f.Status
		switch {
		case f.Error != "":
			if r.Status == 0 {
				r.Status = http.StatusInternalServerError
			}
			r.Body, _ = json.Marshal(map[string]any{"error": f.Error})
		case f.Result != nil:
			if _, isText := f.Result.(string); isText {
				r.Header.Set("Content-Type", "text/plain; charset=utf-8")
			}
			r.Body = []byte(text())
		}
		if r.Status == 0 {
			r.Status = http.StatusOK
		}
	}
	return r
}

// Report is what a run did with the fakes.
type Report struct {
	// Served lists, in file order, each fake with the calls it answered.
	Served []Use
	// Unconsumed lists the fakes that answered fewer calls than they
	// were given (Times), or none.
	Unconsumed []string
	// Unexpected lists, in order, the calls of a tool or host some fake
	// is about that no fake answered: other arguments, or its fakes used
	// up. They went to their recording, or their server while recording.
	Unexpected []string
}

// Use is one fake and the calls it answered.
type Use struct {
	Fake  string
	Calls []string
}

// Report says what was served and what was left.
func (s *Set) Report() Report {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := Report{Unexpected: append([]string(nil), s.unexpected...)}
	for _, e := range s.fakes {
		where := e.Where()
		if len(e.served) > 0 {
			r.Served = append(r.Served, Use{Fake: where, Calls: append([]string(nil), e.served...)})
		}
		want := 1
		if e.Times != nil {
			want = *e.Times
		}
		if len(e.served) < want || want == 0 && len(e.served) == 0 {
			r.Unconsumed = append(r.Unconsumed, where)
		}
	}
	return r
}

// String is the report in a few lines, for stderr.
func (r Report) String() string {
	var b strings.Builder
	n := 0
	for _, u := range r.Served {
		n += len(u.Calls)
	}
	fmt.Fprintf(&b, "adkproxy: tool fakes: %d call(s) served, %d fake(s) unconsumed, %d unexpected call(s)\n", n, len(r.Unconsumed), len(r.Unexpected))
	for _, u := range r.Served {
		for _, c := range u.Calls {
			fmt.Fprintf(&b, "  served %s: %s\n", u.Fake, c)
		}
	}
	for _, u := range r.Unconsumed {
		fmt.Fprintf(&b, "  unconsumed %s\n", u)
	}
	for _, u := range r.Unexpected {
		fmt.Fprintf(&b, "  unexpected %s\n", u)
	}
	return b.String()
}
