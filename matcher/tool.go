// Tool requests (an agent's tools calling other hosts): their replay key
// and their field-level differences. Bodies compare as JSON when both are
// JSON, as sorted pairs when both are forms, and byte for byte otherwise.

package matcher

import (
	"crypto/sha256"
	"mime"
	"net/url"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/wire"
)

// ToolKey identifies a tool request for replay: scheme, host, method, path,
// canonical query and canonical body. Requests with one key are
// interchangeable and are answered first in, first out. It is Default's
// (Matcher.ToolKey).
func ToolKey(req *cassettes.Request) Fingerprint { return Default().ToolKey(req) }

// DiffTool is Default's Matcher.DiffTool.
func DiffTool(recorded, got *cassettes.Request) []Difference {
	return Default().DiffTool(recorded, got)
}

// toolBody is a tool request's JSON body as m matches it: m's ignore
// paths (--ignore) and the fields tool dialects' clients make up on every
// run (wire.Volatile(true)) left out, and a JSON-RPC request's id matched
// by place (wire.VolatileJSONRPCID).
func (m *Matcher) toolBody(body []byte) (any, bool) {
	v, ok := ParseJSON(body)
	if !ok {
		return nil, false
	}
	wire.VolatileJSONRPCID(v)
	for _, p := range m.toolIgnore {
		p.Remove(v)
	}
	return v, true
}

// ToolKey identifies a tool request for replay, m's ignored fields left
// out of its body.
func (m *Matcher) ToolKey(req *cassettes.Request) Fingerprint {
	h := sha256.New()
	for _, s := range []string{req.Scheme, req.Host, req.Method, req.Path, canonicalQuery(req.Query)} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	switch {
	case isForm(req):
		h.Write([]byte{'f'})
		h.Write([]byte(canonicalQuery(string(req.Body))))
	default:
		if v, ok := m.toolBody(req.Body); ok {
			h.Write([]byte{'j'})
			h.Write(AppendCanonical(nil, v))
		} else {
			h.Write([]byte{'b'})
			h.Write(req.Body)
		}
	}
	var f Fingerprint
	copy(f[:], h.Sum(nil))
	return f
}

// SameToolPlace reports whether two tool requests go to one endpoint (host,
// method and path): a request that differs from the recording there is
// reported field by field rather than as unrecorded.
func SameToolPlace(a, b *cassettes.Request) bool {
	return a.Scheme == b.Scheme && a.Host == b.Host && a.Method == b.Method && a.Path == b.Path
}

// DiffTool lists how a tool request differs from its recording: scheme,
// host, method and path as a whole, the query parameter by parameter
// (query.city), and the body by JSON field (body.units), form field, or
// as bytes; m's ignored fields are left out of the body.
func (m *Matcher) DiffTool(recorded, got *cassettes.Request) []Difference {
	var out []Difference
	for _, f := range [][3]string{{"scheme", recorded.Scheme, got.Scheme}, {"host", recorded.Host, got.Host},
		{"method", recorded.Method, got.Method}, {"path", recorded.Path, got.Path}} {
		if f[1] != f[2] {
			out = append(out, Difference{Path: f[0], Kind: Changed, Recorded: f[1], Got: f[2]})
		}
	}
	out = append(out, diffPairs("query", recorded.Query, got.Query)...)
	rv, rok := m.toolBody(recorded.Body)
	gv, gok := m.toolBody(got.Body)
	switch {
	case rok && gok:
		out = append(out, DiffJSON("body", rv, gv)...)
	case isForm(recorded) && isForm(got):
		out = append(out, diffPairs("body", string(recorded.Body), string(got.Body))...)
	case string(recorded.Body) != string(got.Body):
		out = append(out, Difference{Path: "body", Kind: Changed, Recorded: describeBytes(recorded.Body), Got: describeBytes(got.Body)})
	}
	return out
}

// diffPairs compares two URL-encoded lists of name=value pairs name by
// name, as JSON objects of their values (a list for a repeated name);
// lists that do not parse compare as a whole.
func diffPairs(path, recorded, got string) []Difference {
	if canonicalQuery(recorded) == canonicalQuery(got) {
		return nil
	}
	rq, rerr := url.ParseQuery(recorded)
	gq, gerr := url.ParseQuery(got)
	if rerr != nil || gerr != nil {
		return []Difference{{Path: path, Kind: Changed, Recorded: quoteOrNone(recorded), Got: quoteOrNone(got)}}
	}
	return DiffJSON(path, QueryValue(rq), QueryValue(gq))
}

// QueryValue is a query (or form) as a JSON object: a parameter given once
// as a string, a repeated one as a list of strings. Diffs address its
// parameters by JSON path.
func QueryValue(q url.Values) map[string]any {
	m := make(map[string]any, len(q))
	for name, vs := range q {
		if len(vs) == 1 {
			m[name] = vs[0]
			continue
		}
		list := make([]any, len(vs))
		for i, v := range vs {
			list[i] = v
		}
		m[name] = list
	}
	return m
}

// isForm: the request says its body is URL-encoded form fields.
func isForm(req *cassettes.Request) bool {
	mt, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type"))
	return mt == "application/x-www-form-urlencoded"
}
