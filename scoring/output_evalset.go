// Writing recorded sessions as an ADK eval set, so a golden run becomes
// the expectations.

package scoring

import (
	"io"

	"github.com/adkproxy/adkproxy/internal/data/evalset"
)

// WriteEvalSet writes recorded sessions as an ADK eval set (an
// *.evalset.json file), turning a golden run into expectations that `adk
// eval` and `adkproxy score --expected` both read: one eval case per
// session, named as golden runs name their cases (the cassette's name when
// it holds one session, "<cassette>/<session id>" when it holds several,
// so that Pair finds each session by name), whose conversation holds each invocation
// with its user content, final response and intermediate data (tool_uses,
// tool_responses, intermediate_responses as [author, parts] pairs), and no
// session_input. Keys are snake_case and unset fields left out, as ADK's
// local eval-set files are written; function call ids
// are left out, since they differ every run and ADK never compares them.
// Timestamps are 0 so that exporting the same cassettes twice gives the
// same file.
func WriteEvalSet(w io.Writer, evalSetID string, sessions []Session) error {
	doc := evalset.EvalSet{EvalSetID: evalSetID, Name: evalSetID, EvalCases: []evalset.EvalCase{}}
	for i, id := range sessionIDs(sessions) {
		c := evalset.EvalCase{EvalID: id, Conversation: []evalset.Invocation{}}
		for j := range sessions[i].Invocations {
			c.Conversation = append(c.Conversation, *outADKInvocation(&sessions[i].Invocations[j], false))
		}
		doc.EvalCases = append(doc.EvalCases, c)
	}
	return writeIndentedJSON(w, doc)
}
