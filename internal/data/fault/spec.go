// The fault spec: "WHERE: WHAT", parsed into a Fault, with an error that
// shows what the grammar accepts.

package fault

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Fault is one fault: which request it hits and what that request gets.
type Fault struct {
	Spec  string // as written, trimmed
	Where Where
	What  What
}

// WhereKind says how a fault picks its request.
type WhereKind string

const (
	// AtCall: the Call-th model call of the run (1-based).
	AtCall WhereKind = "call"
	// AtPlace: the model call whose recording is at Invocation, Step
	// (in Cassette, when set).
	AtPlace WhereKind = "place"
	// AtTool: a tool request to Host whose path starts with Path.
	AtTool WhereKind = "tool"
	// EveryCall: each model call with Probability, drawn from Seed.
	EveryCall WhereKind = "every"
)

// Where picks the request a fault hits.
type Where struct {
	Kind             WhereKind
	Call             int
	Invocation, Step int
	Cassette         string
	Host, Path       string
	Probability      float64
	Seed             uint64
}

// WhatKind names what a fault answers.
type WhatKind string

const (
	Status        WhatKind = "status"         // an HTTP error in Gemini's shape (Code)
	Reset         WhatKind = "reset"          // the connection closed; after Events SSE events when set
	Delay         WhatKind = "delay"          // the answer held back for Duration, then given
	Safety        WhatKind = "safety"         // a candidate with finishReason SAFETY and no content
	MalformedCall WhatKind = "malformed-call" // finishReason MALFORMED_FUNCTION_CALL
	Empty         WhatKind = "empty"          // a 200 with no candidates
	TruncatedJSON WhatKind = "truncated-json" // the answer's JSON cut in half
	LiveClose     WhatKind = "close"          // Live: close with Code after Frames server frames
	GoAway        WhatKind = "goAway"         // Live: a goAway frame after Frames server frames, then close
)

// What is the answer a fault gives instead of the recording.
type What struct {
	Kind WhatKind
	// Code is the HTTP status (Status) or the WebSocket close code
	// (LiveClose).
	Code int
	// RetryAfter is the Retry-After of a 429 (default 1s).
	RetryAfter time.Duration
	// Events: Reset after this many SSE events (0: before any answer).
	Events int
	// Duration of a Delay.
	Duration time.Duration
	// Frames: server frames of a Live connection sent before LiveClose or
	// GoAway.
	Frames int
}

// Live reports whether the fault is about a Live connection.
func (w What) Live() bool { return w.Kind == LiveClose || w.Kind == GoAway }

// ForModel reports whether the fault only makes sense as a model answer
// (not for a tool request).
func (w What) ForModel() bool {
	switch w.Kind {
	case Safety, MalformedCall, Empty:
		return true
	}
	return w.Live()
}

// DefaultRetryAfter is a 429's Retry-After unless the spec says otherwise.
const DefaultRetryAfter = time.Second

// Grammar is what Parse accepts, for error messages and help.
const Grammar = `"WHERE: WHAT" where WHERE is "call N", "invocation I step S [in CASSETTE]", "tool HOST[/PATH]" or "every call P [seed N]" (P as 0.2 or 20%), and WHAT is 429 [retry after D], 500, 503 (or another 4xx/5xx code), reset, reset after K events, delay D, safety, malformed-call, empty, truncated-json, or for Live "close CODE after N frames", "goAway [after N frames]"`

// Parse reads one fault spec.
func Parse(spec string) (Fault, error) {
	spec = strings.TrimSpace(spec)
	// The last colon: a tool's URL or HOST:PORT has its own, a WHAT none.
	at := strings.LastIndex(spec, ":")
	if at < 0 {
		return Fault{}, fmt.Errorf("fault %q has no ':' between where and what; write %s", spec, Grammar)
	}
	where, what := spec[:at], spec[at+1:]
	f := Fault{Spec: spec}
	var err error
	if f.Where, err = parseWhere(strings.Fields(where)); err != nil {
		return Fault{}, fmt.Errorf("fault %q: %v; write %s", spec, err, Grammar)
	}
	if f.What, err = ParseWhat(what); err != nil {
		return Fault{}, fmt.Errorf("fault %q: %v; write %s", spec, err, Grammar)
	}
	if f.Where.Kind == AtTool && f.What.ForModel() {
		return Fault{}, fmt.Errorf("fault %q: %s answers a model call, not a tool request; a tool can get a status, reset, delay or truncated-json", spec, f.What.Kind)
	}
	return f, nil
}

func parseWhere(w []string) (Where, error) {
	if len(w) == 0 {
		return Where{}, fmt.Errorf("it says nothing before ':'")
	}
	switch strings.ToLower(w[0]) {
	case "call":
		if len(w) != 2 {
			return Where{}, fmt.Errorf(`"call" takes one number, the model call of the run counted from 1`)
		}
		n, err := positive(w[1], "call")
		return Where{Kind: AtCall, Call: n}, err
	case "invocation":
		if len(w) != 4 && len(w) != 6 || strings.ToLower(w[2]) != "step" || len(w) == 6 && strings.ToLower(w[4]) != "in" {
			return Where{}, fmt.Errorf(`write "invocation I step S" or "invocation I step S in CASSETTE"`)
		}
		i, err := positive(w[1], "invocation")
		if err != nil {
			return Where{}, err
		}
		s, err := strconv.Atoi(w[3])
		if err != nil || s < 0 {
			return Where{}, fmt.Errorf("step %q is not a number from 0", w[3])
		}
		where := Where{Kind: AtPlace, Invocation: i, Step: s}
		if len(w) == 6 {
			where.Cassette = w[5]
		}
		return where, nil
	case "tool":
		if len(w) != 2 {
			return Where{}, fmt.Errorf(`"tool" takes one HOST or HOST/PATH, e.g. tool api.weather.example/v1/current`)
		}
		target := strings.TrimPrefix(strings.TrimPrefix(w[1], "https://"), "http://")
		host, path, _ := strings.Cut(target, "/")
		if host == "" {
			return Where{}, fmt.Errorf("tool %q names no host", w[1])
		}
		return Where{Kind: AtTool, Host: strings.ToLower(host), Path: "/" + path}, nil
	case "every":
		return parseEvery(w[1:])
	}
	return Where{}, fmt.Errorf("%q is not a place: it starts with call, invocation, tool or every", strings.Join(w, " "))
}

// parseEvery reads "call P [seed N]", also "call with probability P".
func parseEvery(w []string) (Where, error) {
	if len(w) == 0 || strings.ToLower(w[0]) != "call" {
		return Where{}, fmt.Errorf(`write "every call P" (P as 0.2 or 20%%)`)
	}
	w = w[1:]
	if len(w) >= 2 && strings.ToLower(w[0]) == "with" && strings.ToLower(w[1]) == "probability" {
		w = w[2:]
	}
	where := Where{Kind: EveryCall, Probability: 1, Seed: 1}
	if len(w) > 0 && strings.ToLower(w[0]) != "seed" {
		p, err := probability(w[0])
		if err != nil {
			return Where{}, err
		}
		where.Probability, w = p, w[1:]
	}
	if len(w) > 0 {
		if len(w) != 2 || strings.ToLower(w[0]) != "seed" {
			return Where{}, fmt.Errorf("after the probability only \"seed N\" may follow, not %q", strings.Join(w, " "))
		}
		seed, err := strconv.ParseUint(w[1], 10, 64)
		if err != nil {
			return Where{}, fmt.Errorf("seed %q is not a whole number", w[1])
		}
		where.Seed = seed
	}
	return where, nil
}

func probability(s string) (float64, error) {
	pct := strings.HasSuffix(s, "%")
	p, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if pct {
		p /= 100
	}
	if err != nil || math.IsNaN(p) || p < 0 || p > 1 {
		return 0, fmt.Errorf("probability %q is not between 0 and 1 (or 0%% and 100%%)", s)
	}
	return p, nil
}

// ParseWhat reads the part after ':' of a fault spec, also what a
// script item's "fault:" says.
func ParseWhat(s string) (What, error) {
	w := strings.Fields(s)
	if len(w) == 0 {
		return What{}, fmt.Errorf("it says nothing after ':'")
	}
	head := strings.ToLower(w[0])
	if code, err := strconv.Atoi(head); err == nil {
		return parseStatus(code, w[1:])
	}
	switch head {
	case "reset":
		if len(w) == 1 {
			return What{Kind: Reset}, nil
		}
		n, err := afterCount(w[1:], "event", "events")
		return What{Kind: Reset, Events: n}, err
	case "delay":
		if len(w) != 2 {
			return What{}, fmt.Errorf(`write "delay D" with D such as 500ms or 30s`)
		}
		d, err := duration(w[1])
		return What{Kind: Delay, Duration: d}, err
	case "safety", "malformed-call", "empty", "truncated-json":
		if len(w) != 1 {
			return What{}, fmt.Errorf("%s takes nothing after it", head)
		}
		return What{Kind: WhatKind(head)}, nil
	case "close":
		if len(w) != 2 && len(w) != 5 {
			return What{}, fmt.Errorf(`write "close CODE" or "close CODE after N frames", e.g. close 1011 after 2 frames`)
		}
		code, err := strconv.Atoi(w[1])
		if err != nil || code < 1000 || code > 4999 || code == 1005 || code == 1006 || code == 1015 {
			return What{}, fmt.Errorf("close code %q is not one a WebSocket close frame can carry (1000-4999, not 1005, 1006 or 1015)", w[1])
		}
		what := What{Kind: LiveClose, Code: code}
		if len(w) == 5 {
			what.Frames, err = afterCount(w[2:], "frame", "frames")
		}
		return what, err
	case "goaway":
		what := What{Kind: GoAway, Frames: 1}
		if len(w) == 1 {
			return what, nil
		}
		var err error
		what.Frames, err = afterCount(w[1:], "frame", "frames")
		return what, err
	}
	return What{}, fmt.Errorf("%q is not a fault", strings.Join(w, " "))
}

func parseStatus(code int, rest []string) (What, error) {
	if code < 400 || code > 599 {
		return What{}, fmt.Errorf("status %d is not an error status (400-599)", code)
	}
	what := What{Kind: Status, Code: code}
	if code == 429 {
		what.RetryAfter = DefaultRetryAfter
	}
	if len(rest) == 0 {
		return what, nil
	}
	if code != 429 || len(rest) != 3 || strings.ToLower(rest[0]) != "retry" || strings.ToLower(rest[1]) != "after" {
		return What{}, fmt.Errorf(`only "429 retry after D" takes words after the status`)
	}
	d, err := duration(rest[2])
	if err == nil && d%time.Second != 0 {
		err = fmt.Errorf("retry after %s: Retry-After is whole seconds", rest[2])
	}
	what.RetryAfter = d
	return what, err
}

// afterCount reads "after N UNIT(S)".
func afterCount(w []string, one, many string) (int, error) {
	if len(w) != 3 || strings.ToLower(w[0]) != "after" || (strings.ToLower(w[2]) != one && strings.ToLower(w[2]) != many) {
		return 0, fmt.Errorf("write \"after N %s\"", many)
	}
	n, err := strconv.Atoi(w[1])
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q is not a number of %s from 0", w[1], many)
	}
	return n, nil
}

func positive(s, what string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%s %q is not a number from 1", what, s)
	}
	return n, nil
}

// MaxDuration bounds a delay and a 429's retry-after: a test needs
// seconds, a few minutes at most, and a faults file from a pull request
// must not hold every request for a day.
const MaxDuration = 10 * time.Minute

func duration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 || d > MaxDuration {
		return 0, fmt.Errorf("%q is not a duration such as 500ms or 30s (at most %v)", s, MaxDuration)
	}
	return d, nil
}

// String is the fault as written.
func (f Fault) String() string { return f.Spec }
