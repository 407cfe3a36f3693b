// What happened to each request (matched, mismatched, unmatched, unused,
// recorded): the outcomes kept while serving, the --report document and
// the counts.

package proxy

import (
	"sync"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/adk/conformance"
	"github.com/adkproxy/adkproxy/matcher"
)

// Outcome kinds, one per request (and one per recording never requested).
const (
	// OutcomeMatched: answered from the recording of this exact request.
	OutcomeMatched = "matched"
	// OutcomeMismatched: a recording exists at this request's place in the
	// conversation (same agent, invocation and step) but the request
	// differs from it; Diffs says how. Lenient replay served it anyway.
	OutcomeMismatched = "mismatched"
	// OutcomeUnmatched: nothing was recorded at this request's place.
	OutcomeUnmatched = "unmatched"
	// OutcomeUnused: a recording that no request asked for: the agent
	// stopped early or skipped a step.
	OutcomeUnused = "unused"
	// OutcomeRecorded: forwarded upstream and recorded.
	OutcomeRecorded = "recorded"
	// OutcomeForwarded: forwarded upstream, not recorded (passthrough).
	OutcomeForwarded = "forwarded"
)

// Outcome is what happened to one request, where it sits in the
// conversation and, for a mismatch, how it differs from the recording.
type Outcome struct {
	Outcome    string               `json:"outcome"`
	Cassette   string               `json:"cassette"`
	Scheme     string               `json:"scheme,omitempty"` // tool requests only
	Host       string               `json:"host,omitempty"`   // tool requests only
	Method     string               `json:"method"`
	Path       string               `json:"path"`
	Session    int                  `json:"session,omitempty"`
	Invocation int                  `json:"invocation,omitempty"`
	User       string               `json:"user,omitempty"`
	Step       *int                 `json:"step,omitempty"`
	Agent      string               `json:"agent,omitempty"`
	Served     bool                 `json:"served,omitempty"`
	Diffs      []matcher.Difference `json:"diffs,omitempty"`
	Message    string               `json:"message,omitempty"`
	// Conformance is the key a model call was looked up by under
	// MatchConformance, and Findings how its body differs from the
	// recording it was answered with, grouped (keyed.go).
	Conformance *conformance.Key      `json:"conformance,omitempty"`
	Findings    []conformance.Finding `json:"findings,omitempty"`
}

func outcomeFor(kind, cassette string, req *cassettes.Request, p *cassettes.Place) Outcome {
	o := Outcome{Outcome: kind, Cassette: cassette, Scheme: req.Scheme, Host: req.Host, Method: req.Method, Path: req.Path}
	if p != nil {
		step := p.Step
		o.Session, o.Invocation, o.User, o.Step, o.Agent = p.Session, p.Invocation, p.User, &step, p.Agent
	}
	return o
}

// Report is the JSON written by --report; report.schema.json describes it.
type Report struct {
	Mode     string         `json:"mode"`
	Counts   map[string]int `json:"counts"`
	Outcomes []Outcome      `json:"outcomes"`
	// Truncated is how many outcomes were counted but not listed.
	Truncated int `json:"truncated,omitempty"`
	// Faults lists the faults injected and those never reached (faults.go).
	Faults []FaultOutcome `json:"faults,omitempty"`
}

// maxListed bounds the outcomes kept for the report; counts stay exact.
const maxListed = 100000

type reportLog struct {
	mu        sync.Mutex
	mode      string
	counts    map[string]int
	listed    []logged
	truncated int
	refused   int
	served    int // mismatches answered anyway (lenient)
	keyed     int // requests that carried a key or token
}

// logged is one listed outcome. A match, by far the most common, keeps
// only the recording that answered it and is spelled out when a report is
// asked for, so a busy replay does not build an Outcome per request.
type logged struct {
	matched  *cassettes.Exchange
	cassette string
	other    *Outcome
}

func (g logged) outcome() Outcome {
	if g.other != nil {
		return *g.other
	}
	return outcomeFor(OutcomeMatched, g.cassette, &g.matched.Request, g.matched.Place)
}

// matched notes a request answered by the recording x of cassette.
func (l *reportLog) matched(cassette string, x *cassettes.Exchange) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.count(OutcomeMatched, logged{matched: x, cassette: cassette})
}

func (l *reportLog) add(o Outcome) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if o.Outcome == OutcomeMismatched && o.Served {
		l.served++
	}
	l.count(o.Outcome, logged{other: &o})
}

func (l *reportLog) count(kind string, g logged) {
	if l.counts == nil {
		l.counts = map[string]int{}
	}
	l.counts[kind]++
	if len(l.listed) < maxListed {
		l.listed = append(l.listed, g)
	} else {
		l.truncated++
	}
}

func (l *reportLog) sawKey() {
	l.mu.Lock()
	l.keyed++
	l.mu.Unlock()
}

func (l *reportLog) failed() {
	l.mu.Lock()
	l.refused++
	l.mu.Unlock()
}

// Report returns every outcome so far.
func (s *Server) Report() Report {
	l := &s.report
	l.mu.Lock()
	defer l.mu.Unlock()
	counts := map[string]int{}
	for _, k := range []string{OutcomeMatched, OutcomeMismatched, OutcomeUnmatched, OutcomeUnused, OutcomeRecorded, OutcomeForwarded} {
		counts[k] = l.counts[k]
	}
	outcomes := make([]Outcome, len(l.listed))
	for i, g := range l.listed {
		outcomes[i] = g.outcome()
	}
	return Report{Mode: l.mode, Counts: counts, Outcomes: outcomes, Truncated: l.truncated, Faults: s.faults.outcomes()}
}

// Stats counts what the proxy did with requests.
type Stats struct {
	Recorded   int64 // exchanges recorded
	Replayed   int64 // requests answered from a cassette (lenient mismatches included)
	Mismatched int64 // requests that differ from the recording at their place
	Unmatched  int64 // requests with nothing recorded at their place
	Unused     int64 // recordings never requested (counted by Close)
	Failed     int64 // requests refused (bad input, upstream unreachable)
	WithKey    int64 // requests that carried an API key or token (cassettes.HasCredential)
}

// Stats returns the counts so far.
func (s *Server) Stats() Stats {
	l := &s.report
	l.mu.Lock()
	defer l.mu.Unlock()
	return Stats{
		Recorded:   int64(l.counts[OutcomeRecorded]),
		Replayed:   int64(l.counts[OutcomeMatched] + l.served),
		Mismatched: int64(l.counts[OutcomeMismatched]),
		Unmatched:  int64(l.counts[OutcomeUnmatched]),
		Unused:     int64(l.counts[OutcomeUnused]),
		Failed:     int64(l.refused),
		WithKey:    int64(l.keyed),
	}
}

// Misses returns the requests that did not match (mismatched or unmatched).
func (s *Server) Misses() []Outcome {
	l := &s.report
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []Outcome
	for _, g := range l.listed {
		if o := g.other; o != nil && (o.Outcome == OutcomeMismatched || o.Outcome == OutcomeUnmatched) {
			out = append(out, *o)
		}
	}
	return out
}
