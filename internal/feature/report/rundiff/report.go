// The report: what two runs do differently, as every view renders it.

package rundiff

import "github.com/adkproxy/adkproxy/internal/data/recorded"

// Kind is the class of one change; the list is fixed (and is the enum of
// schema.json).
type Kind string

const (
	CassetteAdded     Kind = "cassette_added"
	CassetteRemoved   Kind = "cassette_removed"
	SessionAdded      Kind = "session_added"
	SessionRemoved    Kind = "session_removed"
	InvocationAdded   Kind = "invocation_added"
	InvocationRemoved Kind = "invocation_removed"
	ToolAdded         Kind = "tool_added"
	ToolRemoved       Kind = "tool_removed"
	ToolMoved         Kind = "tool_moved"
	ArgsChanged       Kind = "args_changed"
	ResultChanged     Kind = "result_changed"
	// ConfirmationChanged: the user approved a tool call ADK asked to
	// confirm in one run and refused it in the other.
	ConfirmationChanged Kind = "confirmation_changed"
	ResponseChanged     Kind = "response_changed"
	ModelChanged        Kind = "model_changed"
	ConfigChanged       Kind = "config_changed"
	InstructionChange   Kind = "instruction_changed"
	ToolsChanged        Kind = "tools_changed"
)

// Kinds lists every kind in the order views count them.
var Kinds = []Kind{CassetteAdded, CassetteRemoved, SessionAdded, SessionRemoved, InvocationAdded, InvocationRemoved,
	ToolAdded, ToolRemoved, ToolMoved, ArgsChanged, ConfirmationChanged, ResultChanged, ResponseChanged,
	ModelChanged, ConfigChanged, InstructionChange, ToolsChanged}

// Change is one difference. Path is a JSON path inside a tool call's
// arguments, a tool result's response or the generation config; Old and
// New are compact JSON for those, plain text for answers and instructions.
type Change struct {
	Kind  Kind   `json:"kind"`
	Agent string `json:"agent,omitempty"`
	Tool  string `json:"tool,omitempty"`
	Path  string `json:"path,omitempty"`
	Old   string `json:"old,omitempty"`
	New   string `json:"new,omitempty"`
	// Words is a word diff of Old and New ("the [-old-]{+new+} words").
	Words string `json:"words,omitempty"`
}

// Status of a cassette, session or invocation in the comparison.
const (
	Same    = "same"
	Changed = "changed"
	Added   = "added"
	Removed = "removed"
	Moved   = "moved" // a tool call only
)

// Report is the comparison of two runs.
type Report struct {
	Old       string         `json:"old"`
	New       string         `json:"new"`
	Summary   Summary        `json:"summary"`
	Cassettes []CassetteDiff `json:"cassettes"`
}

// Summary counts what the report holds.
type Summary struct {
	Cassettes   int `json:"cassettes"`
	Invocations int `json:"invocations"`
	Same        int `json:"same"`
	Changed     int `json:"changed"`
	Added       int `json:"added"`
	Removed     int `json:"removed"`
	// Changes counts the changes of each kind present.
	Changes map[Kind]int `json:"changes"`
	Cost    Cost         `json:"cost"`
	// MinSimilarity is the lowest ROUGE-1 F of a paired final response, or
	// null when no invocation had one on both sides.
	MinSimilarity *float64 `json:"min_similarity"`
}

// CassetteDiff compares one cassette name.
type CassetteDiff struct {
	Name     string        `json:"name"`
	Status   string        `json:"status"`
	Changes  []Change      `json:"changes"`
	Sessions []SessionDiff `json:"sessions"`
}

// SessionDiff compares one conversation; OldID or NewID is 0 where the
// session is only on the other side.
type SessionDiff struct {
	OldID       int              `json:"old_id"`
	NewID       int              `json:"new_id"`
	User        string           `json:"user"`
	Status      string           `json:"status"`
	Changes     []Change         `json:"changes"`
	Invocations []InvocationDiff `json:"invocations"`
}

// InvocationDiff compares one user turn. Its changes come in the order of
// the issue: tool calls, tool results, final response, what the model was
// sent.
type InvocationDiff struct {
	OldID   int    `json:"old_id"`
	NewID   int    `json:"new_id"`
	User    string `json:"user"`
	NewUser string `json:"new_user,omitempty"` // when the paired turn's text differs
	Status  string `json:"status"`
	// Tools is the aligned sequence of tool calls.
	Tools   []ToolStep `json:"tools"`
	Changes []Change   `json:"changes"`
	// Similarity is the ROUGE-1 F of the new final response against the
	// old one, when both sides have one.
	Similarity *float64 `json:"similarity"`
	Cost       Cost     `json:"cost"`

	// Old and New are the invocations compared (nil on the missing side).
	Old *recorded.Invocation `json:"-"`
	New *recorded.Invocation `json:"-"`
}

// ToolStep is one tool call of the aligned sequences: Status is same,
// args_changed, added, removed or moved; OldIndex and NewIndex count
// calls within the invocation from 0 (-1 on the missing side); Args are
// NEW's, or OLD's for a removed call.
type ToolStep struct {
	Status   string         `json:"status"`
	Agent    string         `json:"agent"`
	Name     string         `json:"name"`
	Args     map[string]any `json:"args"`
	OldIndex int            `json:"old_index"`
	NewIndex int            `json:"new_index"`
	// ArgChanges are this call's args_changed changes (also in the
	// invocation's Changes), for views that show them on the call's line.
	ArgChanges []Change `json:"-"`
}

// Figures are one side's cost.
type Figures struct {
	Prompt    int64   `json:"prompt"`
	Output    int64   `json:"output"`
	Thoughts  int64   `json:"thoughts"`
	Total     int64   `json:"total"`
	Calls     int     `json:"model_calls"`
	LatencyMs float64 `json:"latency_ms"`
}

// Cost is what the invocations cost, old and new.
type Cost struct {
	Old Figures `json:"old"`
	New Figures `json:"new"`
}

func (f *Figures) add(g Figures) {
	f.Prompt += g.Prompt
	f.Output += g.Output
	f.Thoughts += g.Thoughts
	f.Total += g.Total
	f.Calls += g.Calls
	f.LatencyMs += g.LatencyMs
}

func figuresOf(inv *recorded.Invocation) Figures {
	if inv == nil {
		return Figures{}
	}
	f := Figures{Calls: len(inv.Steps), LatencyMs: float64(inv.Latency().Microseconds()) / 1000}
	if u, ok := inv.Usage(); ok {
		f.Prompt, f.Output, f.Thoughts, f.Total = int64(u.Prompt), int64(u.Candidates), int64(u.Thoughts), int64(u.Total)
	}
	return f
}
