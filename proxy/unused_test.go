package proxy_test

import (
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/matcher"
	"github.com/adkproxy/adkproxy/proxy"
)

// When a request of an invocation was refused, the steps after it go
// unused because the agent got a 400, not because it stopped early: the
// unused message says so and names the refused step.
func TestUnusedAfterARefusalBlamesTheRefusal(t *testing.T) {
	dir := recordAgent(t)
	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir})
	if _, err := (weatherAgent{instruction: "You are a travel assistant."}).run(t, rep.URL); err == nil {
		t.Fatal("a changed instruction was not refused")
	}
	rep.stop(t)
	var unused []matcher.Outcome
	for _, o := range rep.Report().Outcomes {
		if o.Outcome == matcher.OutcomeUnused {
			unused = append(unused, o)
		}
	}
	if len(unused) != 1 {
		t.Fatalf("unused outcomes %+v", unused)
	}
	msg := unused[0].Message
	if strings.Contains(msg, "stopped early") ||
		!strings.Contains(msg, "step 1, agent gemini-2.5-flash was never requested: an earlier request of this invocation (step 0) was refused with HTTP 400 (mismatched)") {
		t.Errorf("message %q", msg)
	}
}

// With no refusal, an unused step still blames the agent.
func TestUnusedWithoutARefusalBlamesTheAgent(t *testing.T) {
	dir := recordAgent(t)
	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir})
	if _, err := (weatherAgent{stopEarly: true}).run(t, rep.URL); err != nil {
		t.Fatal(err)
	}
	rep.stop(t)
	for _, o := range rep.Report().Outcomes {
		if o.Outcome == matcher.OutcomeUnused && !strings.Contains(o.Message, "the agent stopped early or skipped a step") {
			t.Errorf("message %q", o.Message)
		}
	}
}

// A refused request with no place (nothing recorded resembles it) may
// still be why recordings went unused: the message says so.
func TestUnusedAfterAnUnplacedRefusalMentionsIt(t *testing.T) {
	dir := recordAgent(t)
	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir})
	if _, err := (weatherAgent{question: "Is it raining in Oslo?"}).run(t, rep.URL); err == nil {
		t.Fatal("an unrecorded question was not refused")
	}
	rep.stop(t)
	n := 0
	for _, o := range rep.Report().Outcomes {
		if o.Outcome == matcher.OutcomeUnused {
			n++
			if !strings.Contains(o.Message, "1 request(s) to this cassette were refused with HTTP 400 (unmatched), which may have stopped the agent") {
				t.Errorf("message %q", o.Message)
			}
		}
	}
	if n == 0 {
		t.Error("no unused recording")
	}
}
