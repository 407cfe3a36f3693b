package proxy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/internal/data/conformance"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/matcher"
	"github.com/adkproxy/adkproxy/proxy"
)

// TestConformanceKeyingReplaysEveryCorpusCase sends every shared case's
// model calls as ADK Python recorded them through --match conformance: each
// is answered by the recording at its own key, none is left unused, and
// none has a finding (an empty generationConfig added is none). It covers the shapes the corpus has: a long-running
// tool the user answers in a later turn (ADK drops the pending step, so the
// resumed call looks like an earlier one), transfers, parallel branches.
func TestConformanceKeyingReplaysEveryCorpusCase(t *testing.T) {
	cases, err := conformance.Cases(testutil.SharedDir(t, "fixtures", "adk-conformance"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			dir := t.TempDir()
			cas := importCase(t, dir, c.Name)
			p := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir, ConformanceKeys: true})
			for i, x := range cas.Exchanges {
				// ADK Go and ADK-JS send an empty generationConfig where
				// ADK Python sends none: empty counts as absent.
				var body map[string]any
				if err := json.Unmarshal(x.Request.Body, &body); err != nil {
					t.Fatal(err)
				}
				if body["generationConfig"] == nil {
					body["generationConfig"] = map[string]any{}
				}
				sent, _ := json.Marshal(body)
				resp := post(t, p.URL, x.Request.Path, http.Header{"X-Adkproxy-Cassette": {cas.Name}}, string(sent))
				got, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 || string(got) != string(x.Response.Body) {
					t.Fatalf("call %d (%+v): status %d, body %s", i, *x.Place, resp.StatusCode, got)
				}
			}
			p.stop(t)
			r := p.Report()
			if r.Counts[matcher.OutcomeMatched] != len(cas.Exchanges) || r.Counts[matcher.OutcomeUnused] != 0 {
				t.Fatalf("counts %v for %d calls", r.Counts, len(cas.Exchanges))
			}
			for i, o := range r.Outcomes {
				x := cas.Exchanges[i]
				want := matcher.ConformanceKey{UserMessage: x.Place.Invocation - 1, Agent: x.Place.Agent}
				if o.Conformance == nil || o.Conformance.UserMessage != want.UserMessage || o.Conformance.Agent != want.Agent || len(o.Findings) != 0 {
					t.Errorf("call %d: key %+v findings %v, want user message %d agent %s", i, o.Conformance, o.Findings, want.UserMessage, want.Agent)
				}
			}
		})
	}
}

// TestConformanceHoldsParallelBranches: the three branches of
// workflow/parallel_001 arrive in reverse order (as racing branches may);
// each is held until the call recorded before it is answered, so the
// answers come back in the recorded order. The summary call, which
// carries the branches' answers, is not held.
func TestConformanceHoldsParallelBranches(t *testing.T) {
	dir := t.TempDir()
	cas := importCase(t, dir, "workflow/parallel_001")
	if len(cas.Exchanges) != 4 {
		t.Fatalf("%d calls, want 4", len(cas.Exchanges))
	}
	holding := make(chan string, 3)
	log := slog.New(handlerFunc(func(r slog.Record) {
		if strings.HasPrefix(r.Message, "holding a call") {
			holding <- r.Message
		}
	}))
	p := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir, ConformanceKeys: true, Logger: log})
	answered := make(chan int, 3)
	send := func(i int) {
		x := cas.Exchanges[i]
		req, _ := http.NewRequest(http.MethodPost, p.URL+x.Request.Path, strings.NewReader(string(x.Request.Body)))
		req.Header.Set("X-Adkproxy-Cassette", cas.Name)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			answered <- -1
			return
		}
		io.Copy(io.Discard, resp.Body) //nolint:errcheck
		resp.Body.Close()
		if resp.StatusCode != 200 {
			answered <- -1 - i
			return
		}
		answered <- i
	}
	held := func() {
		t.Helper()
		select {
		case <-holding:
		case <-time.After(10 * time.Second):
			t.Fatal("the proxy did not hold a branch that came before its turn")
		}
	}
	go send(2)
	held()
	go send(1)
	held()
	go send(0)
	var order []int
	for range 3 {
		order = append(order, <-answered)
	}
	if fmt.Sprint(order) != "[0 1 2]" {
		t.Fatalf("answered in order %v, want the recorded [0 1 2]", order)
	}
	resp := post(t, p.URL, cas.Exchanges[3].Request.Path, http.Header{"X-Adkproxy-Cassette": {cas.Name}}, string(cas.Exchanges[3].Request.Body))
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("summary call: status %d", resp.StatusCode)
	}
}

// TestConformanceAnswersAnAgentUsedAsATool: ADK records an agent used as a
// tool by the tool's result only; the sub-agent's own model call (its
// instruction names it, its only user turn is the request it was handed)
// is answered with that result as its text, and filed in the caller's
// invocation, not in a session of its own.
func TestConformanceAnswersAnAgentUsedAsATool(t *testing.T) {
	dir := t.TempDir()
	cas := importCase(t, dir, "tool/agent_tool_001")
	p := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir, ConformanceKeys: true})
	first := cas.Exchanges[0]
	resp := post(t, p.URL, first.Request.Path, http.Header{"X-Adkproxy-Cassette": {cas.Name}}, string(first.Request.Body))
	resp.Body.Close()
	for _, sub := range []struct{ agent, request, want string }{
		{"greeting_agent", "new customer call", "Hello! Welcome to"},
		{"identity_agent", "Customer ID: 4789, Name: Jane Doe", "Here are a few questions"},
	} {
		body, _ := json.Marshal(map[string]any{
			"contents":          []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": sub.request}}}},
			"systemInstruction": map[string]any{"role": "user", "parts": []any{map[string]any{"text": "You are an agent. Your internal name is \"" + sub.agent + "\"."}}},
		})
		resp := post(t, p.URL, "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", http.Header{"X-Adkproxy-Cassette": {cas.Name}}, string(body))
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.HasPrefix(string(got), "data: ") || !strings.Contains(string(got), sub.want) {
			t.Fatalf("%s: status %d, %s", sub.agent, resp.StatusCode, got)
		}
	}
	p.stop(t)
	r := p.Report()
	if r.Counts[matcher.OutcomeMatched] != 3 || r.Counts[matcher.OutcomeUnmatched] != 0 {
		t.Fatalf("counts %v", r.Counts)
	}
	subs := 0
	for _, o := range r.Outcomes {
		if o.Outcome != matcher.OutcomeMatched || o.Agent == "call_center_assistant" {
			continue
		}
		subs++
		if o.Session != 1 || o.Invocation != 1 || !strings.Contains(o.Message, "recorded result of tool "+o.Agent) {
			t.Errorf("%s: session %d invocation %d, message %q; want the caller's session 1, invocation 1", o.Agent, o.Session, o.Invocation, o.Message)
		}
	}
	if subs != 2 {
		t.Errorf("%d sub-agent calls answered, want 2", subs)
	}
}

// handlerFunc is a slog handler that hands every record to a function.
type handlerFunc func(slog.Record)

func (h handlerFunc) Enabled(context.Context, slog.Level) bool { return true }
func (h handlerFunc) Handle(_ context.Context, r slog.Record) error {
	h(r)
	return nil
}
func (h handlerFunc) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h handlerFunc) WithGroup(string) slog.Handler      { return h }
