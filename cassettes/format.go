package cassettes

import (
	"bytes"
	"fmt"
	"math"
	"net/http"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// FormatVersion is the cassette format this package writes.
const FormatVersion = 1

// Standard SSE event separators. Gemini uses CRLF pairs; the LF form is
// stored with `sep: lf` so either replays byte for byte.
const (
	sepCRLF = "\r\n\r\n"
	sepLF   = "\n\n"
)

const dataPrefix = "data: "

// Marshal renders a cassette as YAML.
func Marshal(c *Cassette) ([]byte, error) {
	interactions := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	for _, x := range c.Exchanges {
		interactions.Content = append(interactions.Content, exchangeNode(x))
	}
	doc := mapping("version", intNode(FormatVersion), "name", strNode(c.Name), "interactions", interactions)
	var buf bytes.Buffer
	buf.WriteString("# adkproxy cassette: recorded Gemini API traffic. Bodies are replayed byte for byte.\n")
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func exchangeNode(x *Exchange) *yaml.Node {
	req := mapping("method", strNode(x.Request.Method), "path", strNode(x.Request.Path))
	if x.Request.Query != "" {
		req.Content = append(req.Content, mapping("query", strNode(x.Request.Query)).Content...)
	}
	addHeaders(req, x.Request.Header)
	addBody(req, x.Request.Body)

	resp := mapping("status", intNode(x.Response.Status))
	addHeaders(resp, x.Response.Header)
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
		resp.Content = append(resp.Content, mapping("end", strNode(string(x.Response.End))).Content...)
	}
	if x.Response.Latency > 0 {
		resp.Content = append(resp.Content, mapping("latency_ms", floatNode(millis(x.Response.Latency))).Content...)
	}
	return mapping("request", req, "response", resp)
}

func addHeaders(m *yaml.Node, h http.Header) {
	if len(h) == 0 {
		return
	}
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	sort.Strings(names)
	hn := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for _, k := range names {
		vs := h[k]
		if len(vs) == 1 {
			hn.Content = append(hn.Content, strNode(k), strNode(vs[0]))
			continue
		}
		seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle}
		for _, v := range vs {
			seq.Content = append(seq.Content, strNode(v))
		}
		hn.Content = append(hn.Content, strNode(k), seq)
	}
	m.Content = append(m.Content, strNode("headers"), hn)
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
	r := reader{file: file}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, &FormatError{File: file, Msg: "not valid YAML: " + strings.TrimPrefix(err.Error(), "yaml: "), Err: ErrCorrupt}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, &FormatError{File: file, Msg: "empty file: a cassette starts with 'version: 1'", Err: ErrCorrupt}
	}
	if err := r.check(&doc); err != nil {
		return nil, err
	}
	top, err := r.fields(doc.Content[0], "the cassette", "version", "name", "interactions")
	if err != nil {
		return nil, err
	}
	if top["version"] == nil {
		return nil, r.errorf(doc.Content[0], "missing 'version: %d' at the top", FormatVersion)
	}
	version, err := r.integer(top["version"], "version")
	if err != nil {
		return nil, err
	}
	if version != FormatVersion {
		return nil, &FormatError{File: file, Line: top["version"].Line, Err: ErrVersion,
			Msg: fmt.Sprintf("cassette format version %d is not supported by this adkproxy (it reads version %d); upgrade adkproxy or re-record", version, FormatVersion)}
	}
	c := &Cassette{}
	if c.Name, err = r.str(top["name"], "name"); err != nil {
		return nil, err
	}
	items, err := r.list(top["interactions"], "interactions")
	if err != nil {
		return nil, err
	}
	for i, item := range items {
		x, err := r.exchange(item, i+1)
		if err != nil {
			return nil, err
		}
		c.Exchanges = append(c.Exchanges, x)
	}
	return c, nil
}

func (r reader) exchange(n *yaml.Node, index int) (*Exchange, error) {
	where := fmt.Sprintf("interaction %d", index)
	f, err := r.fields(n, where, "request", "response")
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
	if resp.Status < 100 || resp.Status > 599 {
		return r.errorf(n, "%s status must be an HTTP status from 100 to 599", where)
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
		name := http.CanonicalHeaderKey(k.Value)
		switch v.Kind {
		case yaml.ScalarNode:
			h[name] = append(h[name], v.Value)
		case yaml.SequenceNode:
			for _, item := range v.Content {
				s, err := r.str(item, where+" header "+name)
				if err != nil {
					return nil, err
				}
				h[name] = append(h[name], s)
			}
		default:
			return nil, r.errorf(v, "%s header %s must be a string or a list of strings", where, name)
		}
	}
	return h, nil
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
