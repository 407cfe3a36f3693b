// Conformance replay of parallel branches: a model call that does not
// carry the answer of the model call recorded before it in its user message
// (a sibling branch, not a later step) is held until that call is answered,
// as ADK's own replay plugins serve a user message's recordings in order,
// so branches that race on the wire still add their events in the recorded
// order.

package proxy

import (
	"net/http"
	"strings"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/wire"
	"github.com/adkproxy/adkproxy/matcher"
)

// holdLimit bounds how long a call waits for the call recorded before it:
// a server that never makes that one (a failed branch) still gets the rest
// answered, and the run reports what went wrong.
const holdLimit = 5 * time.Second

// settleAfterAnswer is how long after the earlier call's answer a held call
// is answered, so the branch answered first adds its event to the session
// before the next answer arrives. Calls that carry the earlier answer came
// after it anyway and never wait.
const settleAfterAnswer = 100 * time.Millisecond

// recordedOrder notes the order of each recorded invocation's model calls
// (file order, every agent). Callers hold t.mu for add and waitFor.
type recordedOrder struct {
	last  map[[2]int]*entry // latest call of each invocation while indexing
	prev  map[*entry]*entry
	state map[*entry]*answerState
}

// answerState is closed once its call is answered; at is written before.
type answerState struct {
	answered chan struct{}
	at       time.Time
	once     bool
}

func newRecordedOrder() recordedOrder {
	return recordedOrder{last: map[[2]int]*entry{}, prev: map[*entry]*entry{}, state: map[*entry]*answerState{}}
}

// add appends a recorded call of invocation inv, in file order.
func (o *recordedOrder) add(inv [2]int, e *entry) {
	if p := o.last[inv]; p != nil {
		o.prev[e] = p
	}
	o.last[inv] = e
	o.state[e] = &answerState{answered: make(chan struct{})}
}

// waitFor says what answering e with body req must wait for: the answer
// of the call recorded before it, unless req carries that answer already.
func (o *recordedOrder) waitFor(e *entry, req []byte) *answerState {
	p := o.prev[e]
	if p == nil || carries(req, &p.x.Response) {
		return nil
	}
	return o.state[p]
}

// done marks e answered. Callers hold t.mu.
func (o *recordedOrder) done(e *entry) {
	if s := o.state[e]; s != nil && !s.once {
		s.once, s.at = true, time.Now()
		close(s.answered)
	}
}

// pending reports whether s is a call not answered yet.
func (s *answerState) pending() bool {
	if s == nil {
		return false
	}
	select {
	case <-s.answered:
		return false
	default:
		return true
	}
}

// hold waits for the earlier call's answer (up to holdLimit) and until
// settleAfterAnswer has passed since.
func hold(r *http.Request, earlier *answerState) {
	if earlier == nil {
		return
	}
	limit := time.NewTimer(holdLimit)
	defer limit.Stop()
	select {
	case <-earlier.answered:
	case <-limit.C:
		return
	case <-r.Context().Done():
		return
	}
	if wait := time.Until(earlier.at.Add(settleAfterAnswer)); wait > 0 {
		settle := time.NewTimer(wait)
		defer settle.Stop()
		select {
		case <-settle.C:
		case <-r.Context().Done():
		}
	}
}

// carries reports whether a request's history holds what a recorded answer
// said: one of its texts (as the model's turn or relayed "For context:")
// or one of its function calls.
func carries(req []byte, answer *cassettes.Response) bool {
	said := answerParts(answer)
	if len(said) == 0 {
		return false
	}
	history := requestParts(req)
	for _, s := range said {
		if strings.Contains(history, s) {
			return true
		}
	}
	return false
}

// answerParts are a recorded answer's texts (their first line, which a
// relay quotes unchanged) and function calls, across its events.
func answerParts(resp *cassettes.Response) []string {
	var out []string
	for _, payload := range wire.Payloads(resp) {
		v, _ := matcher.ParseJSON(payload)
		for _, content := range wire.AnswerContents(v) {
			out = appendParts(out, content, true)
		}
	}
	return out
}

// requestParts is a request's history as one string to search: its texts
// and function call names.
func requestParts(body []byte) string {
	v, _ := matcher.ParseJSON(body)
	var all []string
	for _, c := range wire.HistoryOf(v) {
		all = appendParts(all, c, false)
	}
	return strings.Join(all, "\n")
}

func appendParts(out []string, content any, firstLine bool) []string {
	wire.EachPart(content, func(text string, hasText bool, call, _ map[string]any) {
		if hasText {
			if firstLine {
				text, _, _ = strings.Cut(strings.TrimSpace(text), "\n")
			}
			if text != "" {
				out = append(out, text)
			}
		}
		if call != nil {
			name, _ := call["name"].(string)
			out = append(out, "\x00call "+name+"\x00")
		}
	})
	return out
}
