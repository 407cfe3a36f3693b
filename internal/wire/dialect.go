// Dialects: what each one knows, and the one list they are registered in.

package wire

import (
	"slices"
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
)

// Dialect is one way model or tool traffic is spelled on the wire. Adding
// one is a file of this package with a value implementing it, listed in
// dialects; see docs/development.md, "Adding a dialect".
type Dialect interface {
	// Name names the dialect in messages and tests: "gemini".
	Name() string
	// Recognise reads what req is from its method, path and headers,
	// never its body; ok is false when the dialect does not carry it.
	// It is asked for every request: it must not allocate.
	Recognise(req *cassettes.Request) (c Call, ok bool)
	// Step reads what a model call (a Call of Kind Model) did.
	Step(x *cassettes.Exchange) Step
	// Request reads a model call's request whole; ok is false when the
	// body is not one the dialect can read.
	Request(req *cassettes.Request) (r Request, ok bool)
	// Tool reads a tool exchange (a Call of Kind Tool); ok is false for
	// a dialect that carries no tool calls.
	Tool(x *cassettes.Exchange) (t ToolExchange, ok bool)
	// Matching is what the matcher knows of the dialect's request bodies.
	Matching() *Matching
}

// Matching is a dialect's knowledge the matcher uses to compare and
// address its request bodies. Every field may be left zero.
type Matching struct {
	// Volatile are ignore paths (the --ignore syntax) of request fields
	// that differ between runs of one agent, such as ids the client made
	// up; they are left out of matching by default.
	Volatile []string
	// OfTools: the dialect carries tool calls, so its volatile fields are
	// left out of tool request bodies rather than model calls'.
	OfTools bool
	// JSONStrings are paths (the --ignore syntax) of string fields that
	// hold JSON, such as a chat completion's tool-call arguments: where
	// the string is a JSON object or array it is compared, diffed and
	// addressed as the value it holds, field by field.
	JSONStrings []string
	// ElementName names an array element in a diff path and an --ignore
	// [NAME] selector ("" when it has none): a function declaration by
	// its name, a part by the function it calls or answers.
	ElementName func(v any) string
	// Array says how the matcher compares the array at a body path, both
	// sides given; the zero Array compares by position.
	Array func(path string, recorded, got []any) Array
	// Members are the top-level members the dialect's bodies carry most,
	// whose names the matcher notes without a copy.
	Members []string
	// Group is the report's finding group of a top-level request field
	// ("" when the dialect has none for it).
	Group func(field string) string
	// Bytes are the request fields that hold bytes as base64 text. Clients
	// spell the same bytes in either alphabet, padded or not (genai for
	// Python URL-safe, for Go and JS standard) and the API reads every
	// spelling, so the matcher compares these fields by their bytes.
	Bytes []BytesField
}

// BytesField is a request field that holds bytes: a member Key of an
// object that is itself the value (or an element of the array value) of
// the member In, any object when In is "".
type BytesField struct{ In, Key string }

// Array is how the matcher compares an array of a request body.
type Array struct {
	// Aligned: the elements are a sequence, aligned so that one inserted
	// element is one difference, not a change at every later index.
	Aligned bool
	// Key tells aligned elements apart (a tool by its name, whatever else
	// changed); with Key nil or ok false, by the whole value.
	Key func(v any) (key string, ok bool)
	// Paired: a removed and an added element between two kept ones are
	// one edited element, diffed field by field (a history's turn).
	Paired bool
	// Labelled: an element compared by position is addressed by its
	// ElementName where both sides agree on it (contents[2].parts[f]).
	Labelled bool
}

// dialects is every dialect adkproxy reads, asked in order: the first
// that recognises a request carries it. A tool exchange (another host) is
// told apart first; the Gemini API's paths last, as the widest.
var dialects = []Dialect{
	mcp{},
	a2a{},
	httpTool{},
	live{},
	interactions{},
	openai{},
	gemini{},
}

// matchings is each dialect's Matching, asked once.
var matchings = func() []*Matching {
	out := make([]*Matching, len(dialects))
	for i, d := range dialects {
		out[i] = d.Matching()
	}
	return out
}()

// Dialects lists every dialect, in the order they are asked.
func Dialects() []Dialect { return dialects }

// Recognise says which dialect carries req and what it is. A request no
// dialect knows is a Call of Kind Other with a nil Dialect.
func Recognise(req *cassettes.Request) Call {
	for _, d := range dialects {
		if c, ok := d.Recognise(req); ok {
			return c
		}
	}
	return Call{}
}

// StepOf reads what a model call did, in the dialect that carries it. An
// exchange no dialect calls a model call is read as Gemini's
// generateContent, the shape a Live connection's steps are given; when it
// is not one the step holds only its latency.
func StepOf(x *cassettes.Exchange) Step {
	if c := Recognise(&x.Request); c.Kind == Model {
		return c.Dialect.Step(x)
	}
	return gemini{}.Step(x)
}

// RequestOf reads a model call's request whole; ok is false for any other
// request or a body its dialect cannot read.
func RequestOf(req *cassettes.Request) (Request, bool) {
	c := Recognise(req)
	if c.Kind != Model {
		return Request{}, false
	}
	r, ok := c.Dialect.Request(req)
	if ok && r.Model == "" {
		r.Model = c.Model
	}
	return r, ok
}

// ToolOf reads a tool exchange; ok is false for any other exchange.
func ToolOf(x *cassettes.Exchange) (ToolExchange, bool) {
	c := Recognise(&x.Request)
	if c.Kind != Tool {
		return ToolExchange{}, false
	}
	return c.Dialect.Tool(x)
}

// Volatile lists the volatile fields of every dialect of model calls, or
// with ofTools of tool calls, in dialect order: what a matcher leaves out
// of their request bodies by default.
func Volatile(ofTools bool) []string {
	var out []string
	for _, m := range matchings {
		if m.OfTools == ofTools {
			out = append(out, m.Volatile...)
		}
	}
	return out
}

// ElementName is the first name a dialect gives v (see
// Matching.ElementName), or "". A dialect names only its own elements.
func ElementName(v any) string {
	for _, m := range matchings {
		if f := m.ElementName; f != nil {
			if name := f(v); name != "" {
				return name
			}
		}
	}
	return ""
}

// ArrayAt is how the array at path is compared: the first dialect's rule
// that is not the zero Array.
func ArrayAt(path string, recorded, got []any) Array {
	for _, m := range matchings {
		if f := m.Array; f != nil {
			if a := f(path, recorded, got); a.Aligned || a.Labelled {
				return a
			}
		}
	}
	return Array{}
}

// Group is the finding group a dialect puts the top-level request field
// in, or "" when none does.
func Group(field string) string {
	for _, m := range matchings {
		if f := m.Group; f != nil {
			if g := f(field); g != "" {
				return g
			}
		}
	}
	return ""
}

// BytesFields lists every dialect's byte fields (Matching.Bytes), each
// once.
func BytesFields() []BytesField {
	var out []BytesField
	for _, m := range matchings {
		for _, f := range m.Bytes {
			if !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	return out
}

// Members lists every dialect's most carried top-level members.
func Members() []string {
	var out []string
	for _, m := range matchings {
		out = append(out, m.Members...)
	}
	return out
}

// HoldsJSON reports whether the string at a diff path is one a dialect
// sends JSON in (Matching.JSONStrings), every index or label in either
// read as [*]: messages[user#1].content matches messages[*].content.
func HoldsJSON(path string) bool {
	for _, m := range matchings {
		for _, p := range m.JSONStrings {
			if anyIndex(path) == anyIndex(p) {
				return true
			}
		}
	}
	return false
}

// anyIndex is path with every bracketed index, label or key as [*].
func anyIndex(path string) string {
	if !strings.Contains(path, "[") {
		return path
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(path, '[')
		if i < 0 {
			b.WriteString(path)
			return b.String()
		}
		b.WriteString(path[:i])
		b.WriteString("[*]")
		j := strings.IndexByte(path[i:], ']')
		if j < 0 {
			return b.String()
		}
		path = path[i+j+1:]
	}
}
