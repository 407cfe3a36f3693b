// Argument matchers (adkproxy.arg_matchers): how each tool argument is
// compared in the partial-credit trajectory metrics, and parsing them.

package scoring

import (
	"fmt"
	"math"
	"regexp"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/pyjson"
)

// ArgMatcher says how one argument of an actual tool call is compared with
// the expected one, in adkproxy's partial-credit metrics only
// (trajectory_precision, trajectory_recall, trajectory_f1); ADK's
// tool_trajectory_avg_score always compares arguments with Python equality.
//
// Kinds, with A the actual value and E the expected one (a key missing from
// a call counts as "absent"):
//
//	exact      A == E with Python equality (pyEqual); absent on both sides matches
//	ignore     always matches, absent or not
//	subset     A ⊆ E: every key of an object A is in E with a matching value
//	           (recursively), every element of a list A matches a distinct
//	           element of E; other values must be equal. An absent A matches.
//	           (agentevals' "subset": the output's values within the reference's.)
//	superset   A ⊇ E, the mirror image; an absent E matches
//	regex      A is a string and the Go (RE2) pattern matches somewhere in it, as
//	           Python's re.search; E is not looked at
//	tolerance  A and E are numbers (not booleans) with |A − E| ≤ tolerance
type ArgMatcher struct {
	Kind      string // "exact", "ignore", "subset", "superset", "regex" or "tolerance"
	Pattern   *regexp.Regexp
	Tolerance float64
}

// ArgMatchers maps tool name → argument name → matcher. The tool "*" holds
// defaults for every tool and the argument "*" defaults for every argument
// of its tool. Lookup order for (tool, arg): tool.arg, tool.*, *.arg, *.*,
// then exact.
type ArgMatchers map[string]map[string]ArgMatcher

func (m ArgMatchers) lookup(tool, arg string) ArgMatcher {
	for _, t := range [2]string{tool, "*"} {
		args, ok := m[t]
		if !ok {
			continue
		}
		for _, a := range [2]string{arg, "*"} {
			if am, ok := args[a]; ok {
				return am
			}
		}
	}
	return ArgMatcher{Kind: "exact"}
}

// callsMatch reports whether an actual call matches an expected one under
// the matchers: same name, and every argument present on either side
// matches. With no matchers this is ADK's equality (null args ≠ {}).
func (m ArgMatchers) callsMatch(actual, expected cassettes.ToolCall) bool {
	if actual.Name != expected.Name {
		return false
	}
	if len(m) == 0 {
		return argsEqual(actual.Args, expected.Args)
	}
	if (actual.Args == nil) != (expected.Args == nil) {
		// Python's None is no dict: only a tool whose every argument is
		// ignored accepts null arguments against an object.
		return m.lookup(actual.Name, "*").Kind == "ignore"
	}
	for k, av := range actual.Args {
		ev, ok := expected.Args[k]
		if !m.lookup(actual.Name, k).match(av, true, ev, ok) {
			return false
		}
	}
	for k, ev := range expected.Args {
		if _, ok := actual.Args[k]; ok {
			continue
		}
		if !m.lookup(actual.Name, k).match(nil, false, ev, true) {
			return false
		}
	}
	return true
}

func (am ArgMatcher) match(a any, hasA bool, e any, hasE bool) bool {
	switch am.Kind {
	case "ignore":
		return true
	case "subset":
		if !hasA {
			return true
		}
		return hasE && contains(e, a)
	case "superset":
		if !hasE {
			return true
		}
		return hasA && contains(a, e)
	case "regex":
		s, ok := a.(string)
		return hasA && ok && am.Pattern != nil && am.Pattern.MatchString(s)
	case "tolerance":
		if !hasA || !hasE {
			return hasA == hasE
		}
		x, ok1 := number(a)
		y, ok2 := number(e)
		return ok1 && ok2 && math.Abs(x-y) <= am.Tolerance
	}
	if !hasA || !hasE {
		return hasA == hasE
	}
	return pyEqual(a, e)
}

// contains reports whether small ⊆ big: objects key by key (recursively),
// lists element by element one-to-one, anything else by equality.
func contains(big, small any) bool {
	if sm, ok := asMap(small); ok {
		bm, ok := asMap(big)
		if !ok {
			return false
		}
		for k, sv := range sm {
			bv, ok := bm[k]
			if !ok || !contains(bv, sv) {
				return false
			}
		}
		return true
	}
	if sl, ok := asList(small); ok {
		bl, ok := asList(big)
		if !ok {
			return false
		}
		used := make([]bool, len(bl))
		for _, sv := range sl {
			found := false
			for i, bv := range bl {
				if !used[i] && pyEqual(bv, sv) {
					used[i], found = true, true
					break
				}
			}
			if !found {
				return false
			}
		}
		return true
	}
	return pyEqual(big, small)
}

// String renders a matcher as written in the configuration.
func (am ArgMatcher) String() string {
	switch am.Kind {
	case "regex":
		return fmt.Sprintf("{\"regex\": %q}", am.Pattern.String())
	case "tolerance":
		return fmt.Sprintf("{\"tolerance\": %g}", am.Tolerance)
	}
	return am.Kind
}

// parseArgMatchers reads adkproxy.arg_matchers:
//
//	{"get_weather": {"city": "exact", "date": "ignore", "query": {"regex": "^par"},
//	                 "temp": {"tolerance": 0.5}, "filters": "subset", "*": "exact"},
//	 "search": "ignore",              // a string: every argument of the tool
//	 "*": {"request_id": "ignore"}}   // every tool
func parseArgMatchers(n pyjson.Value) (ArgMatchers, error) {
	o, err := n.Object()
	if err != nil {
		return nil, err
	}
	out := ArgMatchers{}
	for _, tool := range o.Keys() {
		tn := n.At(tool)
		tn.V = o.Val(tool)
		args := map[string]ArgMatcher{}
		if _, isStr := tn.V.(string); isStr {
			am, err := parseArgMatcher(tn)
			if err != nil {
				return nil, err
			}
			args["*"] = am
		} else {
			to, err := tn.Object()
			if err != nil {
				return nil, tn.Errorf("expected an object of argument matchers or a matcher name, got %s", pyjson.Describe(tn.V))
			}
			for _, arg := range to.Keys() {
				an := tn.At(arg)
				an.V = to.Val(arg)
				am, err := parseArgMatcher(an)
				if err != nil {
					return nil, err
				}
				args[arg] = am
			}
		}
		out[tool] = args
	}
	return out, nil
}

func parseArgMatcher(n pyjson.Value) (ArgMatcher, error) {
	switch v := n.V.(type) {
	case string:
		switch v {
		case "exact", "ignore", "subset", "superset":
			return ArgMatcher{Kind: v}, nil
		}
		return ArgMatcher{}, n.Errorf("%q is not a matcher: use \"exact\", \"ignore\", \"subset\", \"superset\", {\"regex\": PATTERN} or {\"tolerance\": NUMBER}", v)
	case *pyjson.Object:
		if len(v.Keys()) != 1 {
			return ArgMatcher{}, n.Errorf("a matcher object has exactly one key, \"regex\" or \"tolerance\"")
		}
		k := v.Keys()[0]
		c := n.At(k)
		c.V = v.Val(k)
		switch k {
		case "regex":
			s, err := c.Str()
			if err != nil {
				return ArgMatcher{}, err
			}
			re, err := regexp.Compile(s)
			if err != nil {
				return ArgMatcher{}, c.Errorf("bad pattern: %v", err)
			}
			return ArgMatcher{Kind: "regex", Pattern: re}, nil
		case "tolerance":
			f, err := c.Number()
			if err != nil {
				return ArgMatcher{}, err
			}
			if f < 0 || math.IsInf(f, 0) {
				return ArgMatcher{}, c.Errorf("must be a finite number ≥ 0, got %g", f)
			}
			return ArgMatcher{Kind: "tolerance", Tolerance: f}, nil
		}
		return ArgMatcher{}, c.Errorf("unknown matcher; use \"regex\" or \"tolerance\"")
	}
	return ArgMatcher{}, n.Errorf("expected a matcher (\"exact\", \"ignore\", \"subset\", \"superset\", {\"regex\": …} or {\"tolerance\": …}), got %s", pyjson.Describe(n.V))
}

// Configured reports whether an argument of a tool has a matcher other than
// exact, and if so whether actual (has: present) matches expected under it.
// Comparing runs uses it so that an ignored or tolerated argument change
// does not count.
func (m ArgMatchers) Configured(tool, arg string, actual any, hasActual bool, expected any, hasExpected bool) (configured, matches bool) {
	am := m.lookup(tool, arg)
	if am.Kind == "exact" {
		return false, false
	}
	return true, am.match(actual, hasActual, expected, hasExpected)
}
