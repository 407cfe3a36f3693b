// Reading a cassette: Unmarshal and the reference reader, which walks the
// YAML nodes of versions 1 and 2 and names the line of every problem.

package cassettes

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strings"
	"unsafe"

	"gopkg.in/yaml.v3"

	"github.com/adkproxy/adkproxy/internal/base/sidefile"
)

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
	r := reader{file: file, sets: &headerSets{}}
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
	top, err := r.fields(doc.Content[0], "the cassette", "version", "name", "provenance", "interactions", "sessions", "other", "live")
	if err != nil {
		return nil, 0, err
	}
	if top["version"] == nil {
		return nil, 0, r.errorf(doc.Content[0], "missing 'version: %d' at the top", formatVersion)
	}
	version, err := r.integer(top["version"], "version")
	if err != nil {
		return nil, 0, err
	}
	if version < 1 || version > formatVersion {
		return nil, 0, &FormatError{File: file, Line: top["version"].Line, Err: ErrVersion,
			Msg: fmt.Sprintf("cassette format version %d is not supported by this adkproxy (it reads version %d); upgrade adkproxy or re-record", version, formatVersion)}
	}
	c := &document{hadSessions: top["sessions"] != nil}
	if c.Name, err = r.str(top["name"], "name"); err != nil {
		return nil, 0, err
	}
	if c.Provenance, err = r.provenance(top["provenance"]); err != nil {
		return nil, 0, err
	}
	fieldsOf := map[int][]string{1: {"interactions"}, 2: {"sessions", "other", "live"}}
	for _, k := range []string{"interactions", "sessions", "other", "live"} {
		if top[k] != nil && !slices.Contains(fieldsOf[version], k) {
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
	live, err := r.live(top["live"])
	if err != nil {
		return nil, 0, err
	}
	c.Exchanges = append(c.Exchanges, live...)
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
				x, err := r.exchange(tn, where, stepFields...)
				if err != nil {
					return nil, err
				}
				sf, _ := r.fields(tn, where, stepFields...)
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
				if x.Confirmations, err = r.confirmations(sf["confirmations"], where); err != nil {
					return nil, err
				}
				x.Place = &p
				out = append(out, x)
				calls, err := r.httpCalls(sf["http_calls"], where, &p)
				if err != nil {
					return nil, err
				}
				out = append(out, calls...)
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
	f, err := r.fields(n, where, "scheme", "host", "method", "path", "query", "headers", "body", "body_encoding")
	if err != nil {
		return err
	}
	if req.Scheme, err = r.str(f["scheme"], where+" scheme"); err != nil {
		return err
	}
	if req.Host, err = r.str(f["host"], where+" host"); err != nil {
		return err
	}
	if err := checkTool(req); err != nil {
		return r.errorf(n, "%s: %v", where, err)
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
	req.Body, req.BodyFile, err = r.storedBody(f["body"], f["body_encoding"], where)
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
	if resp.Body, resp.BodyFile, err = r.storedBody(f["body"], f["body_encoding"], where); err != nil {
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
	shared, ok := r.sets.lookup(n) // headersets.go
	if shared != nil {
		return shared, nil
	}
	h := make(http.Header, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !isString(k) {
			return nil, r.errorf(k, "%s header name must be a string", where)
		}
		name := http.CanonicalHeaderKey(k.Value)
		if _, dup := h[name]; dup {
			return nil, r.errorf(k, "%s header %s appears twice; list its values once, as [a, b]", where, name)
		}
		if v.Kind == yaml.SequenceNode {
			values := make([]string, 0, len(v.Content))
			for _, item := range v.Content {
				s, err := r.headerValue(item, where, name)
				if err != nil {
					return nil, err
				}
				values = append(values, s)
			}
			h[name] = values
			continue
		}
		s, err := r.headerValue(v, where, name)
		if err != nil {
			return nil, err
		}
		h[name] = []string{s}
	}
	if ok {
		r.sets.add(h)
	}
	return h, nil
}

// isString: what r.str reads without complaint.
func isString(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag != "!!null" }

// headerValue reads one value of header name: a string, or {base64: ...}
// for bytes that are not UTF-8. The field's description is only made for
// an error (making it for every header was a tenth of reading them).
func (r reader) headerValue(n *yaml.Node, where, name string) (string, error) {
	if isString(n) {
		return n.Value, nil
	}
	what := where + " header " + name
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

// storedBody is body for request and response bodies, which may also be
// kept in a side file (body_encoding: file); sideFile is its name then.
func (r reader) storedBody(n, encoding *yaml.Node, where string) (body []byte, sideFile string, err error) {
	if encoding == nil || encoding.Value != encodingFile {
		body, err = r.body(n, encoding, where)
		return body, "", err
	}
	if sideFile, err = r.str(n, where+" body"); err != nil {
		return nil, "", err
	}
	if body, err = sidefile.Read(r.file, sideFile); err != nil {
		return nil, "", r.errorf(n, "%s: %v", where, err)
	}
	return body, sideFile, nil
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
	var b []byte
	switch {
	case (enc == encodingJSON || enc == encodingText) && r.owned.take(value):
		// The value's bytes are this load's alone (ownedValues): a text
		// body is them, a JSON body is compacted over them.
		b, err = unsafe.Slice(unsafe.StringData(value), len(value)), nil
		if enc == encodingJSON {
			b, err = compactInPlace(value)
		}
	default:
		b, err = decodeBody(value, enc)
	}
	if err != nil {
		return nil, r.errorf(n, "%s: %v", where, err)
	}
	return b, nil
}
