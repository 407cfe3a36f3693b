package cassettes

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// FormatVersion is the cassette format this package writes. Version 1 (a
// flat list of interactions) is still read.
const FormatVersion = 2

// Standard SSE event separators. Gemini uses CRLF pairs; the LF form is
// stored with `sep: lf` so either replays byte for byte.
const (
	sepCRLF = "\r\n\r\n"
	sepLF   = "\n\n"
)

const dataPrefix = "data: "

// Marshal renders a cassette as YAML. Every value is stored so that it reads
// back exactly: bodies and header values that YAML cannot carry as text are
// stored as base64, and text fields (name, method, path, query, header names)
// that are not valid UTF-8 are refused with an error rather than mangled.
func Marshal(c *Cassette) ([]byte, error) {
	if c == nil {
		return nil, fmt.Errorf("cannot marshal a nil cassette")
	}
	sessions, other, err := structureNodes(c.Exchanges)
	if err != nil {
		return nil, err
	}
	name, err := textNode(c.Name, "the cassette name")
	if err != nil {
		return nil, err
	}
	doc := mapping("version", intNode(FormatVersion), "name", name)
	if len(sessions.Content) > 0 {
		doc.Content = append(doc.Content, strNode("sessions"), sessions)
	}
	if len(other.Content) > 0 {
		doc.Content = append(doc.Content, strNode("other"), other)
	}
	var buf bytes.Buffer
	buf.WriteString("# adkproxy cassette: recorded Gemini API traffic. Bodies are replayed byte for byte;\n" +
		"# each step's trajectory is derived from them and only there for reading.\n")
	if err := encodeYAML(&buf, doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// structureNodes groups placed exchanges into sessions, invocations and
// steps (in the order they appear in the slice) and lists the rest.
func structureNodes(exchanges []*Exchange) (sessions, other *yaml.Node, err error) {
	sessions = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	other = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	type invKey struct{ session, invocation int }
	type numbered struct {
		id   int
		node *yaml.Node
	}
	steps := map[invKey]*yaml.Node{}
	invocations := map[int][]numbered{}
	var sessionIDs []int
	for i, x := range exchanges {
		n, err := exchangeNode(x)
		if err != nil {
			return nil, nil, fmt.Errorf("interaction %d: %w", i+1, err)
		}
		p := x.Place
		if p == nil {
			other.Content = append(other.Content, n)
			continue
		}
		if p.Session < 1 || p.Invocation < 1 || p.Step < 0 {
			return nil, nil, fmt.Errorf("interaction %d: place %+v needs a session and invocation from 1 and a step from 0", i+1, *p)
		}
		if _, seen := invocations[p.Session]; !seen {
			invocations[p.Session] = nil
			sessionIDs = append(sessionIDs, p.Session)
		}
		k := invKey{p.Session, p.Invocation}
		if steps[k] == nil {
			user, err := textNode(p.User, "the user text")
			if err != nil {
				return nil, nil, fmt.Errorf("interaction %d: %w", i+1, err)
			}
			steps[k] = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
			inv := mapping("id", intNode(p.Invocation), "user", user)
			if p.Tag != "" {
				tag, err := textNode(p.Tag, "the invocation tag")
				if err != nil {
					return nil, nil, err
				}
				inv.Content = append(inv.Content, strNode("tag"), tag)
			}
			inv.Content = append(inv.Content, strNode("steps"), steps[k])
			invocations[p.Session] = append(invocations[p.Session], numbered{p.Invocation, inv})
		}
		agent, err := textNode(p.Agent, "the agent name")
		if err != nil {
			return nil, nil, err
		}
		step := mapping("step", intNode(p.Step), "agent", agent, "trajectory", trajectoryNode(TrajectoryOf(x)))
		step.Content = append(step.Content, n.Content...)
		steps[k].Content = append(steps[k].Content, step)
	}
	sort.Ints(sessionIDs)
	for _, id := range sessionIDs {
		invs := invocations[id]
		sort.SliceStable(invs, func(a, b int) bool { return invs[a].id < invs[b].id })
		list := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for _, inv := range invs {
			list.Content = append(list.Content, inv.node)
		}
		sessions.Content = append(sessions.Content, mapping("id", intNode(id), "invocations", list))
	}
	return sessions, other, nil
}

// trajectoryNode renders a trajectory compactly for reviewers. It is never
// read back: loading derives the trajectory from the bodies again.
func trajectoryNode(t Trajectory) *yaml.Node {
	n := mapping()
	if len(t.ToolResults) > 0 {
		list := flowList()
		for _, r := range t.ToolResults {
			list.Content = append(list.Content, flowMap("name", r.Name, "response", r.Response))
		}
		n.Content = append(n.Content, strNode("tool_results"), list)
	}
	if len(t.ToolCalls) > 0 {
		list := flowList()
		for _, c := range t.ToolCalls {
			list.Content = append(list.Content, flowMap("name", c.Name, "args", c.Args))
		}
		n.Content = append(n.Content, strNode("tool_calls"), list)
	}
	if t.Text != "" {
		n.Content = append(n.Content, strNode("text"), anyNode(t.Text))
	}
	if t.FinishReason != "" {
		n.Content = append(n.Content, strNode("finish_reason"), strNode(t.FinishReason))
	}
	if u := t.Usage; u != nil {
		usage := flowMap("prompt", u.PromptTokenCount, "candidates", u.CandidatesTokenCount, "total", u.TotalTokenCount)
		for _, extra := range []struct {
			name  string
			value int32
		}{{"thoughts", u.ThoughtsTokenCount}, {"cached", u.CachedContentTokenCount}, {"tool_use", u.ToolUsePromptTokenCount}} {
			if extra.value > 0 {
				usage.Content = append(usage.Content, strNode(extra.name), anyNode(extra.value))
			}
		}
		n.Content = append(n.Content, strNode("usage"), usage)
	}
	if t.Latency > 0 {
		n.Content = append(n.Content, strNode("latency_ms"), floatNode(millis(t.Latency)))
	}
	if len(n.Content) == 0 {
		n.Style = yaml.FlowStyle
	}
	return n
}

func flowList() *yaml.Node {
	return &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle}
}

func flowMap(kv ...any) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Style: yaml.FlowStyle}
	for i := 0; i+1 < len(kv); i += 2 {
		n.Content = append(n.Content, strNode(kv[i].(string)), anyNode(kv[i+1]))
	}
	return n
}

// anyNode encodes a JSON-like value; maps come out with sorted keys.
func anyNode(v any) *yaml.Node {
	var n yaml.Node
	if err := n.Encode(v); err != nil {
		return strNode(fmt.Sprint(v))
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" {
		if s, ok := faithfulScalar(n.Value); ok {
			return s
		}
	}
	setFlow(&n)
	return &n
}

func setFlow(n *yaml.Node) {
	if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
		n.Style = yaml.FlowStyle
	}
	for _, c := range n.Content {
		setFlow(c)
	}
}

// encodeYAML writes n with the settings every cassette uses; faithfulScalar
// checks its choices with the same settings.
func encodeYAML(buf *bytes.Buffer, n *yaml.Node) error {
	enc := yaml.NewEncoder(buf)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return err
	}
	return enc.Close()
}

// textNode is a scalar for a text field that must read back exactly.
func textNode(s, what string) (*yaml.Node, error) {
	if !utf8.ValidString(s) {
		return nil, fmt.Errorf("%s is not valid UTF-8 text", what)
	}
	n, ok := faithfulScalar(s)
	if !ok {
		return nil, fmt.Errorf("%s cannot be stored in YAML exactly", what)
	}
	return n, nil
}

// validStatus is the range of HTTP status codes a cassette holds: the
// classes HTTP defines (net/http would also carry 600-999, but nothing
// legitimate sends them).
func validStatus(code int) bool { return code >= 100 && code <= 599 }

// checkExchange refuses what Unmarshal would refuse, so that a cassette is
// never written that cannot be read back.
func checkExchange(x *Exchange) error {
	switch {
	case x == nil:
		return fmt.Errorf("nil exchange")
	case x.Request.Method == "":
		return fmt.Errorf("the request has no method")
	case !strings.HasPrefix(x.Request.Path, "/"):
		return fmt.Errorf("the request path %q does not start with /", x.Request.Path)
	case !validStatus(x.Response.Status):
		return fmt.Errorf("status %d is not an HTTP status", x.Response.Status)
	}
	switch x.Response.End {
	case "", EndComplete, EndEOF, EndReset:
		return nil
	}
	return fmt.Errorf("end %q is not complete, eof or reset", x.Response.End)
}

func exchangeNode(x *Exchange) (*yaml.Node, error) {
	if err := checkExchange(x); err != nil {
		return nil, err
	}
	method, err := textNode(x.Request.Method, "the request method")
	if err != nil {
		return nil, err
	}
	path, err := textNode(x.Request.Path, "the request path")
	if err != nil {
		return nil, err
	}
	req := mapping("method", method, "path", path)
	if x.Request.Query != "" {
		q, err := textNode(x.Request.Query, "the request query")
		if err != nil {
			return nil, err
		}
		req.Content = append(req.Content, strNode("query"), q)
	}
	if err := addHeaders(req, x.Request.Header, "request"); err != nil {
		return nil, err
	}
	addBody(req, x.Request.Body)

	resp := mapping("status", intNode(x.Response.Status))
	if err := addHeaders(resp, x.Response.Header, "response"); err != nil {
		return nil, err
	}
	if x.Response.Streamed() {
		events := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for _, e := range x.Response.Events {
			events.Content = append(events.Content, eventNode(e))
		}
		resp.Content = append(resp.Content, mapping("sse", events).Content...)
	} else {
		addBody(resp, x.Response.Body)
	}
	if x.Response.End != "" && x.Response.End != EndComplete {
		resp.Content = append(resp.Content, strNode("end"), strNode(string(x.Response.End)))
	}
	if x.Response.Latency > 0 {
		resp.Content = append(resp.Content, mapping("latency_ms", floatNode(millis(x.Response.Latency))).Content...)
	}
	return mapping("request", req, "response", resp), nil
}

// addHeaders stores h under canonical names, as Unmarshal reads them back;
// values of names that differ only in case are merged in name order.
func addHeaders(m *yaml.Node, h http.Header, what string) error {
	if len(h) == 0 {
		return nil
	}
	raw := make([]string, 0, len(h))
	for k := range h {
		raw = append(raw, k)
	}
	sort.Strings(raw)
	canonical := make(map[string][]string, len(h))
	var names []string
	for _, k := range raw {
		name := http.CanonicalHeaderKey(k)
		if _, seen := canonical[name]; !seen {
			names = append(names, name)
			canonical[name] = []string{}
		}
		canonical[name] = append(canonical[name], h[k]...)
	}
	sort.Strings(names)
	hn := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for _, k := range names {
		key, err := textNode(k, fmt.Sprintf("the %s header name %q", what, k))
		if err != nil {
			return err
		}
		vs := canonical[k]
		if len(vs) == 1 {
			hn.Content = append(hn.Content, key, headerValueNode(vs[0]))
			continue
		}
		seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle}
		for _, v := range vs {
			vn := headerValueNode(v)
			if vn.Kind != yaml.ScalarNode || vn.Style&yaml.LiteralStyle != 0 {
				// A flow sequence cannot hold a block scalar or a block mapping.
				seq.Style = 0
			}
			seq.Content = append(seq.Content, vn)
		}
		hn.Content = append(hn.Content, key, seq)
	}
	m.Content = append(m.Content, strNode("headers"), hn)
	return nil
}

// headerValueNode stores a header value as text when YAML can carry it
// exactly and as {base64: ...} otherwise (HTTP allows bytes that are not
// UTF-8 in header values).
func headerValueNode(v string) *yaml.Node {
	if utf8.ValidString(v) {
		if n, ok := faithfulScalar(v); ok {
			return n
		}
	}
	n := mapping("base64", base64Node([]byte(v)))
	n.Style = yaml.FlowStyle
	return n
}

func addBody(m *yaml.Node, body []byte) {
	if len(body) == 0 {
		return
	}
	n, enc := bodyNode(body)
	m.Content = append(m.Content, strNode("body"), n)
	if enc != encodingText {
		m.Content = append(m.Content, strNode("body_encoding"), strNode(enc))
	}
}

// eventNode stores `data: <payload><sep>` events as their payload, which
// reads as plain JSON; anything else is kept whole under `raw`.
func eventNode(e Event) *yaml.Node {
	var n *yaml.Node
	if payload, sep, ok := splitDataEvent(e.Data); ok {
		if s, ok := faithfulScalar(payload); ok {
			n = mapping("data", s)
			if sep == sepLF {
				n.Content = append(n.Content, strNode("sep"), strNode("lf"))
			}
		}
	}
	if n == nil {
		body, enc := bodyNode(e.Data)
		n = mapping("raw", body)
		if enc != encodingText {
			n.Content = append(n.Content, strNode("encoding"), strNode(enc))
		}
	}
	if e.After > 0 {
		n.Content = append(n.Content, strNode("after_ms"), floatNode(millis(e.After)))
	}
	return n
}

func splitDataEvent(b []byte) (payload, sep string, ok bool) {
	s := string(b)
	if !strings.HasPrefix(s, dataPrefix) {
		return "", "", false
	}
	for _, sep := range []string{sepCRLF, sepLF} {
		if p, found := strings.CutSuffix(s[len(dataPrefix):], sep); found && !strings.ContainsAny(p, "\r\n") {
			return p, sep, true
		}
	}
	return "", "", false
}

// millis rounds to whole microseconds so files do not carry nanosecond noise.
func millis(d time.Duration) float64 {
	return math.Round(float64(d)/float64(time.Microsecond)) / 1000
}

func fromMillis(ms float64) time.Duration {
	return time.Duration(math.Round(ms * float64(time.Millisecond)))
}

// Unmarshal reads a cassette; file is only used in error messages.
func Unmarshal(file string, data []byte) (*Cassette, error) {
	if c, err := readSplit(file, bytes.NewReader(data), math.MaxInt64, minRun); !errors.Is(err, errNotSplit) {
		return c, err
	}
	doc, _, err := decodeDocument(file, data)
	if err != nil {
		return nil, err
	}
	return &doc.Cassette, nil
}

// document is a cassette read as one YAML document.
type document struct {
	Cassette
	hadSessions bool // the file has a sessions key
}

// decodeDocument reads data as one YAML document; it is the reference
// reader, and the only one that reports problems.
func decodeDocument(file string, data []byte) (*document, int, error) {
	r := reader{file: file}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, 0, r.yamlError(data, err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, 0, &FormatError{File: file, Line: 1, Msg: "empty file: a cassette starts with 'version: 1'", Err: ErrCorrupt}
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case err == nil:
		return nil, 0, r.errorf(&extra, "a second YAML document starts here; a cassette is one document (was a file appended or merged?)")
	case !errors.Is(err, io.EOF):
		return nil, 0, r.yamlError(data, err)
	}
	if err := r.check(&doc); err != nil {
		return nil, 0, err
	}
	top, err := r.fields(doc.Content[0], "the cassette", "version", "name", "interactions", "sessions", "other")
	if err != nil {
		return nil, 0, err
	}
	if top["version"] == nil {
		return nil, 0, r.errorf(doc.Content[0], "missing 'version: %d' at the top", FormatVersion)
	}
	version, err := r.integer(top["version"], "version")
	if err != nil {
		return nil, 0, err
	}
	if version < 1 || version > FormatVersion {
		return nil, 0, &FormatError{File: file, Line: top["version"].Line, Err: ErrVersion,
			Msg: fmt.Sprintf("cassette format version %d is not supported by this adkproxy (it reads version %d); upgrade adkproxy or re-record", version, FormatVersion)}
	}
	c := &document{hadSessions: top["sessions"] != nil}
	if c.Name, err = r.str(top["name"], "name"); err != nil {
		return nil, 0, err
	}
	fieldsOf := map[int][]string{1: {"interactions"}, 2: {"sessions", "other"}}
	for _, k := range []string{"interactions", "sessions", "other"} {
		if top[k] != nil && !contains(fieldsOf[version], k) {
			return nil, 0, r.errorf(top[k], "%q is not a field of version %d cassettes", k, version)
		}
	}
	if version == 2 {
		if c.Exchanges, err = r.sessions(top["sessions"]); err != nil {
			return nil, 0, err
		}
	}
	list := top["interactions"]
	if version == 2 {
		list = top["other"]
	}
	items, err := r.list(list, "interactions")
	if err != nil {
		return nil, 0, err
	}
	for i, item := range items {
		x, err := r.exchange(item, fmt.Sprintf("interaction %d", i+1), "request", "response")
		if err != nil {
			return nil, 0, err
		}
		c.Exchanges = append(c.Exchanges, x)
	}
	return c, version, nil
}

// sessions reads version 2's sessions → invocations → steps, in file order.
func (r reader) sessions(n *yaml.Node) ([]*Exchange, error) {
	sessions, err := r.list(n, "sessions")
	if err != nil {
		return nil, err
	}
	var out []*Exchange
	for si, sn := range sessions {
		where := fmt.Sprintf("session %d", si+1)
		sf, err := r.fields(sn, where, "id", "invocations")
		if err != nil {
			return nil, err
		}
		sid, err := r.positive(sf["id"], sn, where+" id")
		if err != nil {
			return nil, err
		}
		invs, err := r.list(sf["invocations"], where+" invocations")
		if err != nil {
			return nil, err
		}
		for ii, in := range invs {
			where := fmt.Sprintf("session %d invocation %d", sid, ii+1)
			f, err := r.fields(in, where, "id", "user", "tag", "steps")
			if err != nil {
				return nil, err
			}
			place := Place{Session: sid}
			if place.Invocation, err = r.positive(f["id"], in, where+" id"); err != nil {
				return nil, err
			}
			if place.User, err = r.str(f["user"], where+" user"); err != nil {
				return nil, err
			}
			if place.Tag, err = r.str(f["tag"], where+" tag"); err != nil {
				return nil, err
			}
			steps, err := r.list(f["steps"], where+" steps")
			if err != nil {
				return nil, err
			}
			for ti, tn := range steps {
				where := fmt.Sprintf("%s step %d", where, ti+1)
				x, err := r.exchange(tn, where, "request", "response", "step", "agent", "trajectory")
				if err != nil {
					return nil, err
				}
				sf, _ := r.fields(tn, where, "request", "response", "step", "agent", "trajectory")
				p := place
				if p.Step, err = r.integer(sf["step"], where+" step"); err != nil {
					return nil, err
				}
				if p.Agent, err = r.str(sf["agent"], where+" agent"); err != nil {
					return nil, err
				}
				if t := sf["trajectory"]; t != nil && t.Kind != yaml.MappingNode {
					return nil, r.errorf(t, "%s trajectory must be a mapping (it is derived from the bodies and may also be left out)", where)
				}
				x.Place = &p
				out = append(out, x)
			}
		}
	}
	return out, nil
}

func (r reader) positive(n, parent *yaml.Node, what string) (int, error) {
	if n == nil {
		return 0, r.errorf(parent, "%s is missing", what)
	}
	i, err := r.integer(n, what)
	if err == nil && i < 1 {
		err = r.errorf(n, "%s must be 1 or more", what)
	}
	return i, err
}

func (r reader) exchange(n *yaml.Node, where string, known ...string) (*Exchange, error) {
	f, err := r.fields(n, where, known...)
	if err != nil {
		return nil, err
	}
	if f["request"] == nil || f["response"] == nil {
		return nil, r.errorf(n, "%s needs both a request and a response", where)
	}
	x := &Exchange{}
	if err := r.request(f["request"], where+" request", &x.Request); err != nil {
		return nil, err
	}
	if err := r.response(f["response"], where+" response", &x.Response); err != nil {
		return nil, err
	}
	return x, nil
}

func (r reader) request(n *yaml.Node, where string, req *Request) error {
	f, err := r.fields(n, where, "method", "path", "query", "headers", "body", "body_encoding")
	if err != nil {
		return err
	}
	if req.Method, err = r.str(f["method"], where+" method"); err != nil {
		return err
	}
	if req.Path, err = r.str(f["path"], where+" path"); err != nil {
		return err
	}
	if req.Method == "" || !strings.HasPrefix(req.Path, "/") {
		return r.errorf(n, "%s needs a method and a path starting with /", where)
	}
	if req.Query, err = r.str(f["query"], where+" query"); err != nil {
		return err
	}
	if req.Header, err = r.headers(f["headers"], where); err != nil {
		return err
	}
	req.Body, err = r.body(f["body"], f["body_encoding"], where)
	return err
}

func (r reader) response(n *yaml.Node, where string, resp *Response) error {
	f, err := r.fields(n, where, "status", "headers", "body", "body_encoding", "sse", "end", "latency_ms")
	if err != nil {
		return err
	}
	if resp.Status, err = r.integer(f["status"], where+" status"); err != nil {
		return err
	}
	if !validStatus(resp.Status) {
		at := n
		if f["status"] != nil {
			at = f["status"]
		}
		return r.errorf(at, "%s status must be an HTTP status from 100 to 599", where)
	}
	if resp.Header, err = r.headers(f["headers"], where); err != nil {
		return err
	}
	if f["sse"] != nil && f["body"] != nil {
		return r.errorf(f["sse"], "%s has both body and sse; keep one", where)
	}
	if resp.Body, err = r.body(f["body"], f["body_encoding"], where); err != nil {
		return err
	}
	if f["sse"] != nil {
		events, err := r.list(f["sse"], where+" sse")
		if err != nil {
			return err
		}
		resp.Events = make([]Event, 0, len(events))
		for i, en := range events {
			e, err := r.event(en, fmt.Sprintf("%s sse event %d", where, i+1))
			if err != nil {
				return err
			}
			resp.Events = append(resp.Events, e)
		}
	}
	end, err := r.str(f["end"], where+" end")
	if err != nil {
		return err
	}
	switch End(end) {
	case "", EndComplete:
		resp.End = EndComplete
	case EndEOF, EndReset:
		resp.End = End(end)
	default:
		return r.errorf(f["end"], "%s end must be complete, eof or reset, not %q", where, end)
	}
	ms, err := r.number(f["latency_ms"], where+" latency_ms")
	resp.Latency = fromMillis(ms)
	return err
}

func (r reader) event(n *yaml.Node, where string) (Event, error) {
	f, err := r.fields(n, where, "data", "sep", "raw", "encoding", "after_ms")
	if err != nil {
		return Event{}, err
	}
	ms, err := r.number(f["after_ms"], where+" after_ms")
	if err != nil {
		return Event{}, err
	}
	e := Event{After: fromMillis(ms)}
	switch {
	case f["data"] != nil && f["raw"] == nil:
		if f["encoding"] != nil {
			return e, r.errorf(f["encoding"], "%s: encoding applies to raw events only", where)
		}
		payload, err := r.str(f["data"], where+" data")
		if err != nil {
			return e, err
		}
		sep, err := r.str(f["sep"], where+" sep")
		if err != nil {
			return e, err
		}
		switch sep {
		case "", "crlf":
			sep = sepCRLF
		case "lf":
			sep = sepLF
		default:
			return e, r.errorf(f["sep"], "%s sep must be crlf or lf, not %q", where, sep)
		}
		e.Data = []byte(dataPrefix + payload + sep)
	case f["raw"] != nil && f["data"] == nil:
		if f["sep"] != nil {
			return e, r.errorf(f["sep"], "%s: sep applies to data events only; a raw event keeps its own separator", where)
		}
		if e.Data, err = r.body(f["raw"], f["encoding"], where); err != nil {
			return e, err
		}
	default:
		return e, r.errorf(n, "%s needs exactly one of data or raw", where)
	}
	return e, nil
}

func (r reader) headers(n *yaml.Node, where string) (http.Header, error) {
	if n == nil {
		return nil, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, r.errorf(n, "%s headers must be a mapping of name to value", where)
	}
	h := make(http.Header, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		key, err := r.str(k, where+" header name")
		if err != nil {
			return nil, err
		}
		name := http.CanonicalHeaderKey(key)
		if _, dup := h[name]; dup {
			return nil, r.errorf(k, "%s header %s appears twice; list its values once, as [a, b]", where, name)
		}
		what := where + " header " + name
		if v.Kind == yaml.SequenceNode {
			values := make([]string, 0, len(v.Content))
			for _, item := range v.Content {
				s, err := r.headerValue(item, what)
				if err != nil {
					return nil, err
				}
				values = append(values, s)
			}
			h[name] = values
			continue
		}
		s, err := r.headerValue(v, what)
		if err != nil {
			return nil, err
		}
		h[name] = []string{s}
	}
	return h, nil
}

// headerValue reads one header value: a string, or {base64: ...} for bytes
// that are not UTF-8.
func (r reader) headerValue(n *yaml.Node, what string) (string, error) {
	switch n.Kind {
	case yaml.ScalarNode:
		return r.str(n, what)
	case yaml.MappingNode:
		f, err := r.fields(n, what, "base64")
		if err != nil {
			return "", err
		}
		if f["base64"] == nil {
			return "", r.errorf(n, "%s must be a string or {base64: ...}", what)
		}
		b, err := r.body(f["base64"], strNode(encodingBase64), what)
		return string(b), err
	}
	return "", r.errorf(n, "%s must be a string, a list of strings or {base64: ...}", what)
}

func (r reader) body(n, encoding *yaml.Node, where string) ([]byte, error) {
	if n == nil {
		if encoding != nil {
			return nil, r.errorf(encoding, "%s has an encoding but no body", where)
		}
		return nil, nil
	}
	value, err := r.str(n, where+" body")
	if err != nil {
		return nil, err
	}
	enc, err := r.str(encoding, where+" body encoding")
	if err != nil {
		return nil, err
	}
	if enc == "text" {
		enc = encodingText
	}
	b, err := decodeBody(value, enc)
	if err != nil {
		return nil, r.errorf(n, "%s: %v", where, err)
	}
	return b, nil
}
