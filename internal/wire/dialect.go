// Dialects: what each one knows, and the one list they are registered in.

package wire

import "github.com/adkproxy/adkproxy/cassettes"

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
	// JSONStrings are paths (the --ignore syntax) of string fields that
	// hold JSON, such as a chat completion's tool-call arguments: where
	// the string is a JSON object or array it is compared, diffed and
	// addressed as the value it holds, field by field.
	JSONStrings []string
	// ElementName names an array element in a diff path and an --ignore
	// [NAME] selector ("" when it has none): a function declaration by
	// its name, a part by the function it calls or answers.
	ElementName func(v any) string
	// SequenceKey says, for the array at a body path ("contents"), how
	// its elements are told apart when the array is aligned as a
	// sequence; nil keeps positions.
	SequenceKey func(path string) func(v any) string
	// Group is the report's finding group of a top-level request field
	// ("" when the dialect has none for it).
	Group func(field string) string
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
