// Trajectory checks (adkproxy.checks): deterministic rules on what the
// agent did, with no judge and no expected conversation — a tool never
// called or called at most N times, one tool before another, constraints
// on a tool's arguments, the final answer matching a pattern, no secret or
// personal data in any answer, a step or token budget per invocation.
// Each is a metric in ADK's result shape whose failures name the
// invocation and step.

package scoring

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/pii"
	"github.com/adkproxy/adkproxy/internal/base/pyjson"
	"github.com/adkproxy/adkproxy/internal/wire"
)

// checkKinds are the keys a check object may hold, exactly one of them.
var checkKinds = []string{
	"tool_never_called", "tool_called_at_most", "tool_before", "tool_args",
	"final_response_matches", "final_response_not_matches",
	"no_secrets", "no_personal_data", "max_steps", "max_tokens",
}

// check is one configured trajectory check.
type check struct {
	Kind string
	// Tools: the tools tool_never_called forbids; the tool of
	// tool_called_at_most and tool_args.
	Tools []string
	// Times and PerInvocation: tool_called_at_most's limit and its scope
	// (the whole session unless "per": "invocation").
	Times         int
	PerInvocation bool
	// First and Then: tool_before's order.
	First, Then string
	// Args: tool_args' constraints, by argument name.
	Args map[string]argConstraint
	// Pattern: final_response_matches and final_response_not_matches.
	Pattern *regexp.Regexp
	// Limit: max_steps and max_tokens.
	Limit int64
}

// argConstraint is an argument matcher (the syntax of arg_matchers) with
// the value it compares with, where the matcher needs one.
type argConstraint struct {
	matcher  ArgMatcher
	value    any
	hasValue bool
}

// violation is one broken rule, placed at its invocation (from 0) and step
// (from 1; 0 when the invocation has no recorded model calls).
type violation struct {
	Invocation int    `json:"invocation"`
	Step       int    `json:"step,omitempty"`
	Message    string `json:"message"`
}

func (v violation) String() string {
	if v.Step > 0 {
		return fmt.Sprintf("invocation %d, step %d: %s", v.Invocation+1, v.Step, v.Message)
	}
	return fmt.Sprintf("invocation %d: %s", v.Invocation+1, v.Message)
}

// parseChecks reads adkproxy.checks: an object of named checks, each an
// object with one kind key, e.g.
//
//	{"no_deletes": {"tool_never_called": "delete_file"},
//	 "auth_first": {"tool_before": {"first": "login", "then": "pay"}}}
func (cfg *Config) parseChecks(n pyjson.Value) error {
	o, err := n.Object()
	if err != nil {
		return err
	}
	for _, name := range o.Keys() {
		cn := n.At(name)
		cn.V = o.Val(name)
		if !metricNameRE.MatchString(name) {
			return cn.Errorf("a check name is letters, digits, _ . and -, starting with a letter")
		}
		if _, known := metrics[name]; known || isADKMetric(name) || cfg.criterion(name) != nil || cfg.adkproxyCriterion(name) != nil {
			return cn.Errorf("%s is already a metric: give the check another name", name)
		}
		ck, err := parseCheck(cn)
		if err != nil {
			return err
		}
		fields := map[string]any{"threshold": 1.0}
		for k, v := range pyjson.Plain(cn.V).(map[string]any) {
			fields[k] = v
		}
		cfg.Adkproxy.Criteria = append(cfg.Adkproxy.Criteria, Criterion{Metric: name, Threshold: 1, Adkproxy: true, check: ck, Fields: fields})
	}
	return nil
}

func parseCheck(n pyjson.Value) (*check, error) {
	o, err := n.Object()
	if err != nil {
		return nil, n.Errorf("a check is an object with one of %s, got %s", strings.Join(checkKinds, ", "), pyjson.Describe(n.V))
	}
	if err := n.CheckKeys(o, checkKinds...); err != nil {
		return nil, err
	}
	if len(o.Keys()) != 1 {
		return nil, n.Errorf("a check has exactly one of %s; write two checks for two rules", strings.Join(checkKinds, ", "))
	}
	kind := o.Keys()[0]
	v, _ := n.Field(o, kind)
	ck := &check{Kind: kind}
	switch kind {
	case "tool_never_called":
		if s, ok := v.V.(string); ok {
			ck.Tools = []string{s}
		} else if ck.Tools, err = v.Strings(); err != nil {
			return nil, v.Errorf("expected a tool name or a list of them, got %s", pyjson.Describe(v.V))
		}
		if len(ck.Tools) == 0 {
			return nil, v.Errorf("name at least one tool")
		}
	case "tool_called_at_most":
		err = ck.parseAtMost(v)
	case "tool_before":
		err = ck.parseBefore(v)
	case "tool_args":
		err = ck.parseArgs(v)
	case "final_response_matches", "final_response_not_matches":
		s, err := v.Str()
		if err != nil {
			return nil, err
		}
		if ck.Pattern, err = regexp.Compile(s); err != nil {
			return nil, v.Errorf("bad pattern (Go RE2 syntax): %v", err)
		}
	case "no_secrets", "no_personal_data":
		b, err := v.Bool()
		if err != nil {
			return nil, err
		}
		if !b {
			return nil, v.Errorf("write true, or leave the check out")
		}
	case "max_steps", "max_tokens":
		ck.Limit, err = count(v)
	}
	if err != nil {
		return nil, err
	}
	return ck, nil
}

// count reads a whole number ≥ 0.
func count(v pyjson.Value) (int64, error) {
	f, err := v.Number()
	if err != nil {
		return 0, err
	}
	if f < 0 || f != float64(int64(f)) {
		return 0, v.Errorf("must be a whole number ≥ 0, got %g", f)
	}
	return int64(f), nil
}

// toolObject reads a check's object of the given keys (shape is how an
// error spells it) and its required "tool" into ck.Tools.
func (ck *check) toolObject(v pyjson.Value, shape, what string, keys ...string) (*pyjson.Object, error) {
	o, err := v.Object()
	if err != nil {
		return nil, v.Errorf("expected %s, got %s", shape, pyjson.Describe(v.V))
	}
	if err := v.CheckKeys(o, keys...); err != nil {
		return nil, err
	}
	t, err := v.Required(o, "tool", what)
	if err != nil {
		return nil, err
	}
	tool, err := t.Str()
	if err != nil {
		return nil, err
	}
	ck.Tools = []string{tool}
	return o, nil
}

func (ck *check) parseAtMost(v pyjson.Value) error {
	o, err := ck.toolObject(v, `{"tool": NAME, "times": N}`, "the tool to count", "tool", "times", "per")
	if err != nil {
		return err
	}
	times, err := v.Required(o, "times", "the most calls allowed")
	if err != nil {
		return err
	}
	n, err := count(times)
	if err != nil {
		return err
	}
	ck.Times = int(n)
	if p, ok := v.Field(o, "per"); ok {
		switch s, _ := p.V.(string); s {
		case "invocation":
			ck.PerInvocation = true
		case "session":
		default:
			return p.Errorf(`expected "invocation" or "session", got %s`, pyjson.Describe(p.V))
		}
	}
	return nil
}

func (ck *check) parseBefore(v pyjson.Value) error {
	o, err := v.Object()
	if err != nil {
		return v.Errorf(`expected {"first": TOOL, "then": TOOL}, got %s`, pyjson.Describe(v.V))
	}
	if err := v.CheckKeys(o, "first", "then"); err != nil {
		return err
	}
	for _, f := range []struct {
		key string
		to  *string
	}{{"first", &ck.First}, {"then", &ck.Then}} {
		fv, err := v.Required(o, f.key, "a tool name")
		if err != nil {
			return err
		}
		if *f.to, err = fv.Str(); err != nil {
			return err
		}
	}
	return nil
}

func (ck *check) parseArgs(v pyjson.Value) error {
	o, err := ck.toolObject(v, `{"tool": NAME, "args": {ARG: CONSTRAINT}}`, "the tool whose arguments are checked", "tool", "args")
	if err != nil {
		return err
	}
	a, err := v.Required(o, "args", "the constraints, by argument name")
	if err != nil {
		return err
	}
	ao, err := a.Object()
	if err != nil {
		return err
	}
	ck.Args = map[string]argConstraint{}
	for _, arg := range ao.Keys() {
		an := a.At(arg)
		an.V = ao.Val(arg)
		c, err := parseArgConstraint(an)
		if err != nil {
			return err
		}
		ck.Args[arg] = c
	}
	if len(ck.Args) == 0 {
		return a.Errorf("name at least one argument")
	}
	return nil
}

// parseArgConstraint reads one argument's constraint: an arg_matchers
// matcher, and for the matchers that compare the value it is given:
// {"regex": P}, {"tolerance": T, "value": V}, {"exact": V}, {"subset": V},
// {"superset": V}, or "absent".
func parseArgConstraint(n pyjson.Value) (argConstraint, error) {
	if s, ok := n.V.(string); ok && s == "absent" {
		return argConstraint{matcher: ArgMatcher{Kind: "exact"}}, nil
	}
	o, err := n.Object()
	if err != nil {
		return argConstraint{}, n.Errorf(`expected {"regex": P}, {"tolerance": T, "value": V}, {"exact": V}, {"subset": V}, {"superset": V} or "absent", got %s`, pyjson.Describe(n.V))
	}
	if err := n.CheckKeys(o, "regex", "tolerance", "value", "exact", "subset", "superset"); err != nil {
		return argConstraint{}, err
	}
	for _, kind := range []string{"exact", "subset", "superset"} {
		if ev, ok := n.Field(o, kind); ok {
			if len(o.Keys()) != 1 {
				return argConstraint{}, n.Errorf("%q takes the value to compare with alone", kind)
			}
			return argConstraint{matcher: ArgMatcher{Kind: kind}, value: pyjson.Plain(ev.V), hasValue: true}, nil
		}
	}
	val, hasVal := n.Field(o, "value")
	// The matcher alone, as arg_matchers spells it.
	mo := pyjson.NewObject()
	for _, k := range o.Keys() {
		if k != "value" {
			mo.Set(k, o.Val(k))
		}
	}
	mn := n
	mn.V = mo
	m, err := parseArgMatcher(mn)
	if err != nil {
		return argConstraint{}, err
	}
	if m.Kind == "tolerance" && !hasVal {
		return argConstraint{}, n.Errorf(`a tolerance needs the "value" to be near`)
	}
	if m.Kind == "regex" && hasVal {
		return argConstraint{}, n.Errorf(`a regex takes no "value"`)
	}
	c := argConstraint{matcher: m, hasValue: hasVal}
	if hasVal {
		c.value = pyjson.Plain(val.V)
	}
	return c, nil
}

// stepCall is a tool call with the step (from 1) that made it.
type stepCall struct {
	step int
	call cassettes.ToolCall
}

// callsOf lists an invocation's tool calls with their steps; calls read
// from an eval set, which has no steps, have step 0.
func callsOf(inv *Invocation) []stepCall {
	var out []stepCall
	if len(inv.Steps) == 0 {
		for _, c := range inv.ToolCalls {
			out = append(out, stepCall{0, c})
		}
		return out
	}
	for i, s := range inv.Steps {
		for _, c := range s.ToolCalls {
			out = append(out, stepCall{i + 1, c})
		}
	}
	return out
}

// stepText is a model answer's text with the step (from 1) that wrote it.
type stepText struct {
	step int
	text string
}

// answersOf lists an invocation's model texts with their steps.
func answersOf(inv *Invocation) []stepText {
	var out []stepText
	if len(inv.Steps) == 0 {
		for _, t := range inv.IntermediateResponses {
			out = append(out, stepText{0, t.Text})
		}
		if inv.FinalResponse != "" {
			out = append(out, stepText{0, inv.FinalResponse})
		}
		return out
	}
	for i, s := range inv.Steps {
		if s.Text != "" {
			out = append(out, stepText{i + 1, s.Text})
		}
	}
	return out
}

// finalStep is the step (from 1) whose text is the final response, by
// wire's rule (the last with text and no tool call); 0 when none is.
func finalStep(inv *Invocation) int {
	steps := make([]wire.Step, len(inv.Steps))
	for i, s := range inv.Steps {
		steps[i] = wire.Step{Text: s.Text, ToolCalls: s.ToolCalls}
	}
	return wire.FinalStep(steps) + 1
}

// evaluateCheck computes a check's metric: per invocation 1 without a
// violation, else 0; the score is their mean, and any violation fails it.
func evaluateCheck(ck *check, c *Case, m *MetricResult) {
	if c.Failure != "" {
		m.Status, m.Reason = NotEvaluated, "not checked: "+c.Failure
		return
	}
	if len(c.Actual) == 0 {
		m.Status, m.Reason = NotEvaluated, "no recorded invocations to check"
		return
	}
	vs, why := ck.violations(c.Actual)
	if why != "" {
		m.Status, m.Reason = NotEvaluated, why
		return
	}
	bad := map[int][]string{}
	for _, v := range vs {
		bad[v.Invocation] = append(bad[v.Invocation], v.String())
	}
	perInvocation(c, m, func(i int, _ *Invocation) *float64 {
		if len(bad[i]) > 0 {
			return Float(0)
		}
		return Float(1)
	})
	for i := range m.PerInvocation {
		m.PerInvocation[i].Reason = strings.Join(bad[i], "; ")
	}
	m.Score = meanOf(m.PerInvocation)
	// judge puts the invocations' reasons into the metric's.
	m.Details = map[string]any{"check": ck.Kind, "violations": len(vs)}
	if len(vs) > 0 {
		m.Details["failures"] = vs
	}
}

// violations lists what breaks the check over a session's invocations, or
// why it cannot be checked.
func (ck *check) violations(invs []Invocation) ([]violation, string) {
	var out []violation
	add := func(inv, step int, format string, args ...any) {
		out = append(out, violation{Invocation: inv, Step: step, Message: fmt.Sprintf(format, args...)})
	}
	switch ck.Kind {
	case "tool_never_called":
		for i := range invs {
			for _, sc := range callsOf(&invs[i]) {
				if slices.Contains(ck.Tools, sc.call.Name) {
					add(i, sc.step, "%s was called; the check forbids it", sc.call.Name)
				}
			}
		}
	case "tool_called_at_most":
		n := 0
		for i := range invs {
			if ck.PerInvocation {
				n = 0
			}
			for _, sc := range callsOf(&invs[i]) {
				if sc.call.Name != ck.Tools[0] {
					continue
				}
				if n++; n == ck.Times+1 {
					add(i, sc.step, "%s call number %d; at most %d allowed %s", sc.call.Name, n, ck.Times, ck.scope())
				}
			}
		}
	case "tool_before":
		seen := false
		for i := range invs {
			for _, sc := range callsOf(&invs[i]) {
				switch sc.call.Name {
				case ck.First:
					seen = true
				case ck.Then:
					if !seen {
						add(i, sc.step, "%s was called before any call of %s", ck.Then, ck.First)
					}
				}
			}
		}
	case "tool_args":
		for i := range invs {
			for _, sc := range callsOf(&invs[i]) {
				if sc.call.Name == ck.Tools[0] {
					for _, msg := range ck.argProblems(sc.call) {
						add(i, sc.step, "%s", msg)
					}
				}
			}
		}
	case "final_response_matches", "final_response_not_matches":
		want := ck.Kind == "final_response_matches"
		for i := range invs {
			if ck.Pattern.MatchString(invs[i].FinalResponse) != want {
				verb := "does not match"
				if !want {
					verb = "matches"
				}
				add(i, finalStep(&invs[i]), "the final response %s /%s/", verb, ck.Pattern)
			}
		}
	case "no_secrets", "no_personal_data":
		out = ck.leaks(invs)
	case "max_steps":
		for i := range invs {
			if n := int64(len(invs[i].Steps)); n > ck.Limit {
				add(i, int(ck.Limit)+1, "%d model calls; at most %d allowed per invocation", n, ck.Limit)
			}
		}
	case "max_tokens":
		counted := false
		for i := range invs {
			var total int64
			for j, s := range invs[i].Steps {
				counted = counted || s.Usage.Total > 0
				if total += s.Usage.Total; total > ck.Limit && total-s.Usage.Total <= ck.Limit {
					add(i, j+1, "%d total tokens by this step; at most %d allowed per invocation", total, ck.Limit)
				}
			}
		}
		if !counted {
			return nil, "no token counts recorded (usageMetadata.totalTokenCount) to check max_tokens against"
		}
	}
	return out, ""
}

func (ck *check) scope() string {
	if ck.PerInvocation {
		return "per invocation"
	}
	return "per session"
}

// argProblems says how a call's arguments break the constraints.
func (ck *check) argProblems(call cassettes.ToolCall) []string {
	var out []string
	names := make([]string, 0, len(ck.Args))
	for k := range ck.Args {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, arg := range names {
		c := ck.Args[arg]
		a, hasA := call.Args[arg]
		ok := false
		switch {
		case !c.hasValue && c.matcher.Kind == "exact": // "absent"
			ok = !hasA
		default:
			ok = hasA && c.matcher.match(a, hasA, c.value, c.hasValue)
		}
		if !ok {
			got := "absent"
			if hasA {
				got = pyjson.Repr(a)
			}
			out = append(out, fmt.Sprintf("%s(%s=%s) breaks %s", call.Name, arg, got, c))
		}
	}
	return out
}

func (c argConstraint) String() string {
	switch {
	case !c.hasValue && c.matcher.Kind == "exact":
		return `"absent"`
	case c.matcher.Kind == "regex":
		return c.matcher.String()
	case c.matcher.Kind == "tolerance":
		return fmt.Sprintf(`{"tolerance": %g, "value": %s}`, c.matcher.Tolerance, pyjson.Dumps(c.value, false))
	}
	return fmt.Sprintf(`{%q: %s}`, c.matcher.Kind, pyjson.Dumps(c.value, false))
}

// leaks finds secrets or personal data in the answers. Secrets are the
// shapes of API keys and tokens, and the values of this process's
// credential environment variables (GOOGLE_API_KEY and the like), found in
// every encoded form by the scanner that guards cassette writes. What was
// found is named by kind, never quoted.
func (ck *check) leaks(invs []Invocation) []violation {
	var out []violation
	var scanner *cassettes.Redactor
	if ck.Kind == "no_secrets" {
		scanner = envSecrets()
	}
	for i := range invs {
		for _, a := range answersOf(&invs[i]) {
			text := a.text
			var found []string
			if ck.Kind == "no_secrets" {
				for _, f := range pii.Secrets(text) {
					found = append(found, "a "+f.Rule)
				}
				if err := scanner.Scan([]byte(text)); err != nil {
					found = append(found, "a credential from the environment")
				}
			} else {
				for _, f := range pii.PersonalData(text) {
					found = append(found, "a "+f.Rule)
				}
			}
			if len(found) > 0 {
				slices.Sort(found)
				out = append(out, violation{Invocation: i, Step: a.step, Message: "the answer holds " + strings.Join(slices.Compact(found), ", ")})
			}
		}
	}
	return out
}

// envSecrets is a scanner for the values of the environment's credential
// variables (names that IsCredentialName accepts, values of 8 bytes or more).
func envSecrets() *cassettes.Redactor {
	r := cassettes.NewRedactor()
	for _, kv := range os.Environ() {
		name, value, _ := strings.Cut(kv, "=")
		if len(value) >= 8 && cassettes.IsCredentialName(name) {
			r.Add(value, "the "+name+" variable")
		}
	}
	return r
}
