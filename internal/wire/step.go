// The step model: what one exchange says, read from its bodies, in types
// that do not depend on the dialect that carried it.

package wire

import "github.com/adkproxy/adkproxy/cassettes"

// ToolCall and ToolResult are the one pair of types every package passes
// tool calls and results around as. They are the cassette's, because the
// public scoring API carries them; wire is what fills them.
type (
	ToolCall   = cassettes.ToolCall
	ToolResult = cassettes.ToolResult
)

// Kind is what an exchange is.
type Kind int

const (
	// Other is an exchange no dialect reads (an upload, a model list) or
	// a request a dialect knows but that is not a model call: countTokens,
	// embeddings, batches.
	Other Kind = iota
	// Model is a model call: it is sent a history and answers a turn.
	Model
	// Tool is a call an agent's tool made to another host.
	Tool
	// Live is a Live API connection: its steps come from its frames.
	Live
)

// Call is what a request path says: which dialect carries it, what kind
// of exchange it is, its method and its model, read without the body.
type Call struct {
	Dialect Dialect
	Kind    Kind
	// Method is the dialect's name for the operation: generateContent,
	// streamGenerateContent, countTokens, interactions, BidiGenerateContent.
	Method string
	// Model is the model named in the path ("" when the path names none).
	Model string
	// Vertex is set for a Vertex AI path (projects/P/locations/L/...).
	Vertex bool
}

// Step is what a model call did: the tool results it was sent (the turn
// it answers), the tool calls and text it answered with (the parts of one
// response joined by line breaks, the chunks of a stream as they are,
// thoughts left out), its finish reason, usage and model version. It is
// the trajectory a cassette writes for reviewers, so its type is the
// cassette's; wire is what reads it.
type Step = cassettes.Trajectory

// Usage is what a model call cost, in tokens; 0 for a count the dialect
// does not report.
type Usage = cassettes.Usage

// Request is everything a model call was sent, read whole: the history,
// the system instruction and the tools.
type Request struct {
	Model    string
	System   *Content
	Contents []Content
	Tools    []Declaration
}

// Content is one turn of a history, or a system instruction.
type Content struct {
	// Role is "user" or "model" ("" when the client sent none, which the
	// model reads as user).
	Role  string
	Parts []Part
}

// Part is one part of a content: text, a function call, a function
// response, or something else (media, code), kept raw.
type Part struct {
	Text string
	// Thought marks text that is the model's reasoning, not its answer.
	Thought          bool
	FunctionCall     *ToolCall
	FunctionResponse *ToolResult
	// Other is the part's JSON when it is none of the above.
	Other []byte
}

// Declaration is one tool the model was offered.
type Declaration struct {
	Name        string
	Description string
	// Parameters is the declaration's parameter schema as JSON, or nil.
	Parameters []byte
}

// ToolExchange is what a tool exchange says: the tool's name, what it was
// asked, what it answered and how it ended.
type ToolExchange struct {
	// Name is how the tool is known: for an HTTP tool, METHOD host/path.
	Name string
	// Arguments is what the tool was asked: for an HTTP tool, the JSON
	// body, or the query as a JSON object when the body is empty.
	Arguments []byte
	// Result is what it answered (for an HTTP tool, the response body).
	Result []byte
	// Status is how it ended (for an HTTP tool, the HTTP status).
	Status int
}

// IsFinal says whether the model call s gave a final response: text and
// no tool call, what the user was told (ADK's rule).
func IsFinal(s *Step) bool { return s.Text != "" && len(s.ToolCalls) == 0 }

// FinalStep is the index of the model call that gave an invocation's
// final response, steps being its calls in order: the last one IsFinal.
// It is -1 when no call did.
func FinalStep(steps []Step) int {
	for i := len(steps) - 1; i >= 0; i-- {
		if IsFinal(&steps[i]) {
			return i
		}
	}
	return -1
}
