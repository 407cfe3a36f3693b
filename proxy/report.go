// What happened to each request (matched, mismatched, unmatched, unused,
// recorded): the outcomes kept while serving, the --report document and
// the counts.

package proxy

import (
	"iter"
	"sync"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/matcher"
)

// Report is what a replay or recording did with every request, the JSON
// written by --report (report.schema.json describes it).
type Report struct {
	Mode     string                      `json:"mode"`
	Counts   map[matcher.OutcomeKind]int `json:"counts"`
	Outcomes []matcher.Outcome           `json:"outcomes"`
	// Truncated is how many outcomes were counted but not listed.
	Truncated int `json:"truncated,omitempty"`
	// Faults lists the faults replay injected, and those no request
	// reached (Config.Faults).
	Faults []FaultOutcome `json:"faults,omitempty"`
}

// FaultOutcome is one fault of the run: where it was injected and whether
// the agent recovered (a later request got the recording the fault stood
// in for), or, with Injected false, a fault no request reached.
type FaultOutcome struct {
	Fault      string `json:"fault"`
	Injected   bool   `json:"injected"`
	Recovered  bool   `json:"recovered"`
	Call       int    `json:"call,omitempty"` // the model call it hit, counted from 1
	Cassette   string `json:"cassette,omitempty"`
	Host       string `json:"host,omitempty"`
	Method     string `json:"method,omitempty"`
	Path       string `json:"path,omitempty"`
	Session    int    `json:"session,omitempty"`
	Invocation int    `json:"invocation,omitempty"`
	Step       *int   `json:"step,omitempty"`
	User       string `json:"user,omitempty"`
	Agent      string `json:"agent,omitempty"`
}

func outcomeFor(kind matcher.OutcomeKind, cassette string, req *cassettes.Request, p *cassettes.Place) matcher.Outcome {
	o := matcher.Outcome{Outcome: kind, Cassette: cassette, Scheme: req.Scheme, Host: req.Host, Method: req.Method, Path: req.Path}
	if p != nil {
		step := p.Step
		o.Session, o.Invocation, o.User, o.Step, o.Agent = p.Session, p.Invocation, p.User, &step, p.Agent
	}
	return o
}

// maxListed bounds the outcomes kept for the report; counts stay exact.
const maxListed = 100000

// listChunk is how many listed outcomes share one allocation. One slice
// grown by append copied up to maxListed entries while every replayed
// request waited on the lock (the replay's most contended lock at c=16).
const listChunk = 4096

type reportLog struct {
	mu        sync.Mutex
	mode      string
	counts    map[matcher.OutcomeKind]int
	listed    [][]logged // in chunks of listChunk: growing never copies under the lock
	nListed   int
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
	other    *matcher.Outcome
}

func (g logged) outcome() matcher.Outcome {
	if g.other != nil {
		return *g.other
	}
	return outcomeFor(matcher.OutcomeMatched, g.cassette, &g.matched.Request, g.matched.Place)
}

// all yields the listed outcomes in order; callers hold l.mu.
func (l *reportLog) all() iter.Seq[logged] {
	return func(yield func(logged) bool) {
		for _, chunk := range l.listed {
			for _, g := range chunk {
				if !yield(g) {
					return
				}
			}
		}
	}
}

// matched notes a request answered by the recording x of cassette.
func (l *reportLog) matched(cassette string, x *cassettes.Exchange) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.count(matcher.OutcomeMatched, logged{matched: x, cassette: cassette})
}

func (l *reportLog) add(o matcher.Outcome) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if o.Outcome == matcher.OutcomeMismatched && o.Served {
		l.served++
	}
	l.count(o.Outcome, logged{other: &o})
}

func (l *reportLog) count(kind matcher.OutcomeKind, g logged) {
	if l.counts == nil {
		l.counts = map[matcher.OutcomeKind]int{}
	}
	l.counts[kind]++
	if l.nListed < maxListed {
		if n := len(l.listed); n == 0 || len(l.listed[n-1]) == listChunk {
			l.listed = append(l.listed, make([]logged, 0, listChunk))
		}
		last := &l.listed[len(l.listed)-1]
		*last = append(*last, g)
		l.nListed++
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
	counts := map[matcher.OutcomeKind]int{}
	for _, k := range []matcher.OutcomeKind{matcher.OutcomeMatched, matcher.OutcomeMismatched, matcher.OutcomeUnmatched, matcher.OutcomeUnused, matcher.OutcomeRecorded, matcher.OutcomeForwarded} {
		counts[k] = l.counts[k]
	}
	outcomes := make([]matcher.Outcome, 0, l.nListed)
	for g := range l.all() {
		outcomes = append(outcomes, g.outcome())
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
		Recorded:   int64(l.counts[matcher.OutcomeRecorded]),
		Replayed:   int64(l.counts[matcher.OutcomeMatched] + l.served),
		Mismatched: int64(l.counts[matcher.OutcomeMismatched]),
		Unmatched:  int64(l.counts[matcher.OutcomeUnmatched]),
		Unused:     int64(l.counts[matcher.OutcomeUnused]),
		Failed:     int64(l.refused),
		WithKey:    int64(l.keyed),
	}
}

// Misses returns the requests that did not match (mismatched or unmatched).
func (s *Server) Misses() []matcher.Outcome {
	l := &s.report
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []matcher.Outcome
	for g := range l.all() {
		if o := g.other; o != nil && (o.Outcome == matcher.OutcomeMismatched || o.Outcome == matcher.OutcomeUnmatched) {
			out = append(out, *o)
		}
	}
	return out
}
