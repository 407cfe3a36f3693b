package scoring

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
)

// tripSession is a two-invocation session of a travel agent: the first
// logs in, searches twice and answers; the second books and answers.
func tripSession() []Invocation {
	call := func(name string, args map[string]any) cassettes.ToolCall {
		return cassettes.ToolCall{Name: name, Args: args}
	}
	inv1 := Invocation{UserText: "find me a flight to Paris", Steps: []Step{
		{ToolCalls: []cassettes.ToolCall{call("login", map[string]any{"user": "ada"})}, Usage: Usage{Total: 100}},
		{ToolCalls: []cassettes.ToolCall{call("search_flights", map[string]any{"city": "Paris", "passengers": json.Number("2")})}, Usage: Usage{Total: 200}},
		{ToolCalls: []cassettes.ToolCall{call("search_flights", map[string]any{"city": "Paris", "passengers": json.Number("2"), "date": "2026-12-24"})}, Usage: Usage{Total: 300}},
		{Text: "I found AF123 to Paris on 24 December.", Usage: Usage{Total: 400}},
	}}
	inv2 := Invocation{UserText: "book it", Steps: []Step{
		{ToolCalls: []cassettes.ToolCall{call("book", map[string]any{"flight": "AF123"})}, Usage: Usage{Total: 500}},
		{Text: "Booked AF123. Your confirmation is on its way.", Usage: Usage{Total: 600}},
	}}
	for _, inv := range []*Invocation{&inv1, &inv2} {
		for _, s := range inv.Steps {
			inv.ToolCalls = append(inv.ToolCalls, s.ToolCalls...)
			if s.Text != "" {
				inv.FinalResponse = s.Text
			}
		}
	}
	return []Invocation{inv1, inv2}
}

func runCheck(t *testing.T, check string, invs []Invocation) MetricResult {
	t.Helper()
	cfg, err := ParseConfig("eval_config.json", []byte(`{"criteria": {"response_match_score": 0}, "adkproxy": {"checks": {"the_check": `+check+`}}}`))
	if err != nil {
		t.Fatalf("config %s: %v", check, err)
	}
	res := Evaluate(context.Background(), cfg, []Case{{ID: "trip", Actual: invs}})
	for _, m := range res.Cases[0].Metrics {
		if m.Metric == "the_check" {
			return m
		}
	}
	t.Fatalf("no the_check result in %+v", res.Cases[0].Metrics)
	return MetricResult{}
}

// TestChecksPassAndFailNamingTheStep: each check passes on a trajectory
// that keeps its rule and fails on one that breaks it, with a reason that
// names the invocation and step of the break.
func TestChecksPassAndFailNamingTheStep(t *testing.T) {
	good := tripSession()
	tests := []struct {
		name, pass, fail, reason string
		// breakIt changes the good session so that the failing check
		// fails because of the trajectory, not only of its config.
		breakIt func([]Invocation) []Invocation
	}{
		{name: "tool never called", pass: `{"tool_never_called": ["delete_booking", "refund"]}`,
			fail: `{"tool_never_called": "book"}`, reason: "invocation 2, step 1: book was called; the check forbids it"},
		{name: "called at most per session", pass: `{"tool_called_at_most": {"tool": "search_flights", "times": 2}}`,
			fail: `{"tool_called_at_most": {"tool": "search_flights", "times": 1}}`, reason: "invocation 1, step 3: search_flights call number 2; at most 1 allowed per session"},
		{name: "called at most per invocation", pass: `{"tool_called_at_most": {"tool": "login", "times": 1, "per": "invocation"}}`,
			fail: `{"tool_called_at_most": {"tool": "search_flights", "times": 0, "per": "invocation"}}`, reason: "invocation 1, step 2: search_flights call number 1; at most 0 allowed per invocation"},
		{name: "tool before", pass: `{"tool_before": {"first": "login", "then": "book"}}`,
			fail: `{"tool_before": {"first": "search_flights", "then": "login"}}`, reason: "invocation 1, step 1: login was called before any call of search_flights"},
		{name: "args regex", pass: `{"tool_args": {"tool": "search_flights", "args": {"city": {"regex": "^[A-Z][a-z]+$"}}}}`,
			fail: `{"tool_args": {"tool": "search_flights", "args": {"city": {"regex": "^London$"}}}}`, reason: `invocation 1, step 2: search_flights(city='Paris') breaks {"regex": "^London$"}`},
		{name: "args tolerance", pass: `{"tool_args": {"tool": "search_flights", "args": {"passengers": {"tolerance": 1, "value": 3}}}}`,
			fail: `{"tool_args": {"tool": "search_flights", "args": {"passengers": {"tolerance": 0.5, "value": 3}}}}`, reason: `invocation 1, step 2: search_flights(passengers=2) breaks {"tolerance": 0.5, "value": 3}`},
		{name: "args exact and absent", pass: `{"tool_args": {"tool": "book", "args": {"flight": {"exact": "AF123"}, "seat": "absent"}}}`,
			fail: `{"tool_args": {"tool": "search_flights", "args": {"date": "absent"}}}`, reason: `invocation 1, step 3: search_flights(date='2026-12-24') breaks "absent"`},
		{name: "args subset", pass: `{"tool_args": {"tool": "login", "args": {"user": {"exact": "ada"}}}}`,
			fail: `{"tool_args": {"tool": "search_flights", "args": {"city": {"exact": "Lyon"}}}}`, reason: `invocation 1, step 2: search_flights(city='Paris') breaks {"exact": "Lyon"}`},
		{name: "final response matches", pass: `{"final_response_matches": "AF123"}`,
			fail: `{"final_response_matches": "(?i)confirmation"}`, reason: "invocation 1, step 4: the final response does not match /(?i)confirmation/"},
		{name: "final response not matches", pass: `{"final_response_not_matches": "(?i)sorry"}`,
			fail: `{"final_response_not_matches": "Booked"}`, reason: "invocation 2, step 2: the final response matches /Booked/"},
		{name: "max steps", pass: `{"max_steps": 4}`, fail: `{"max_steps": 3}`, reason: "invocation 1, step 4: 4 model calls; at most 3 allowed per invocation"},
		{name: "max tokens", pass: `{"max_tokens": 1100}`, fail: `{"max_tokens": 1000}`, reason: "invocation 2, step 2: 1100 total tokens by this step; at most 1000 allowed per invocation"},
		{name: "no personal data", pass: `{"no_personal_data": true}`, fail: `{"no_personal_data": true}`,
			reason: "invocation 2, step 2: the answer holds a email address, a payment card number",
			breakIt: func(invs []Invocation) []Invocation {
				invs[1].Steps[1].Text = "Booked. Receipt sent to ada@example.com, paid with 4111 1111 1111 1111."
				return invs
			}},
		{name: "no secrets", pass: `{"no_secrets": true}`, fail: `{"no_secrets": true}`,
			reason: "invocation 1, step 4: the answer holds a Google API key",
			breakIt: func(invs []Invocation) []Invocation {
				invs[0].Steps[3].Text = "Use key AIzaSyA1234567890abcdefghijklmnopqrstuv to search yourself."
				return invs
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if m := runCheck(t, tt.pass, good); m.Status != Passed || *m.Score != 1 {
				t.Fatalf("good trajectory: %v score %v: %s", m.Status, m.Score, m.Reason)
			}
			bad := good
			if tt.breakIt != nil {
				bad = tt.breakIt(tripSession())
			}
			m := runCheck(t, tt.fail, bad)
			if m.Status != Failed {
				t.Fatalf("bad trajectory: %v: %s", m.Status, m.Reason)
			}
			if !strings.Contains(m.Reason, tt.reason) {
				t.Fatalf("reason %q\nwant it to hold %q", m.Reason, tt.reason)
			}
			if *m.Score != 0.5 {
				t.Fatalf("score %v, want 0.5 (one of two invocations broke the rule)", *m.Score)
			}
		})
	}
}

func TestNoSecretsFindsTheEnvironmentsKey(t *testing.T) {
	t.Setenv("MY_SERVICE_TOKEN", "s3cr3t-value-42")
	invs := tripSession()
	invs[1].Steps[1].Text = "Booked; the token was s3cr3t-value-42."
	m := runCheck(t, `{"no_secrets": true}`, invs)
	if m.Status != Failed || !strings.Contains(m.Reason, "invocation 2, step 2: the answer holds a credential from the environment") {
		t.Fatalf("%v: %s", m.Status, m.Reason)
	}
	if strings.Contains(m.Reason, "s3cr3t") {
		t.Fatalf("the reason quotes the secret: %s", m.Reason)
	}
}

func TestMaxTokensWithoutCountsIsNotEvaluated(t *testing.T) {
	invs := tripSession()
	for i := range invs {
		for j := range invs[i].Steps {
			invs[i].Steps[j].Usage = Usage{}
		}
	}
	if m := runCheck(t, `{"max_tokens": 10}`, invs); m.Status != NotEvaluated || !strings.Contains(m.Reason, "no token counts") {
		t.Fatalf("%v: %s", m.Status, m.Reason)
	}
}

func TestCheckConfigErrorsNameTheField(t *testing.T) {
	for _, tt := range []struct{ check, want string }{
		{`{"tool_never_called": "a", "max_steps": 2}`, `adkproxy.checks.the_check: a check has exactly one of`},
		{`{"tool_never_caled": "a"}`, `adkproxy.checks.the_check.tool_never_caled: unknown key; known keys: final_response_matches`},
		{`{"tool_called_at_most": {"tool": "a"}}`, `adkproxy.checks.the_check.tool_called_at_most.times: missing`},
		{`{"tool_called_at_most": {"tool": "a", "times": 1.5}}`, `must be a whole number ≥ 0, got 1.5`},
		{`{"tool_called_at_most": {"tool": "a", "times": 1, "per": "day"}}`, `per: expected "invocation" or "session"`},
		{`{"tool_args": {"tool": "a", "args": {"x": {"tolerance": 1}}}}`, `a tolerance needs the "value" to be near`},
		{`{"tool_args": {"tool": "a", "args": {"x": {"regex": "("}}}}`, `x.regex: bad pattern`},
		{`{"final_response_matches": "("}`, `final_response_matches: bad pattern (Go RE2 syntax)`},
		{`{"no_secrets": false}`, `no_secrets: write true, or leave the check out`},
		{`"max_steps"`, `a check is an object with one of`},
		{`{"max_steps": -1}`, `must be a whole number ≥ 0, got -1`},
	} {
		_, err := ParseConfig("eval_config.json", []byte(`{"criteria": {"response_match_score": 0}, "adkproxy": {"checks": {"the_check": `+tt.check+`}}}`))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v\nwant it to hold %q", tt.check, err, tt.want)
		}
	}
	_, err := ParseConfig("eval_config.json", []byte(`{"criteria": {"response_match_score": 0}, "adkproxy": {"checks": {"response_match_score": {"max_steps": 1}}}}`))
	if err == nil || !strings.Contains(err.Error(), "already a metric") {
		t.Errorf("a check named like a metric: %v", err)
	}
}
