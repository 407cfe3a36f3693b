// What a step did, as its cassette shows reviewers: the data of a
// trajectory. Reading it from the bodies is internal/wire's job; a
// cassette is told how through Cassette.Trajectories.

package cassettes

import "time"

// Trajectory is what a model call did, read from its bodies: the tool
// results it was sent, the tool calls and text it answered with, and what
// it cost. Bodies are the truth; a trajectory is always derived from them,
// written for reviewers and never read back.
type Trajectory struct {
	// ToolResults are the function responses the request carried after
	// the model's last turn: the results of the previous step's calls.
	ToolResults []ToolResult
	ToolCalls   []ToolCall
	// Text is the answer's text, thoughts left out.
	Text         string
	FinishReason string
	Usage        *Usage
	ModelVersion string
	Latency      time.Duration
}

// Usage is what a model call cost, in tokens; a count the API did not
// report is 0.
type Usage struct {
	Prompt     int32
	Candidates int32
	Total      int32
	Thoughts   int32
	Cached     int32
	ToolUse    int32
}

// ToolCall is one function call in a model response, the one type every
// package passes tool calls around as. Args is nil when the call had none
// (Python None to ADK). Its JSON is ADK's FunctionCall: {"id" (when set),
// "name", "args"}.
type ToolCall struct {
	ID   string         `json:"id,omitempty"`
	Name string         `json:"name"`
	Args map[string]any `json:"args"`
}

// ToolResult is one function response sent back to the model. Its JSON
// is ADK's FunctionResponse: {"id" (when set), "name", "response"}.
type ToolResult struct {
	ID       string         `json:"id,omitempty"`
	Name     string         `json:"name"`
	Response map[string]any `json:"response"`
}
