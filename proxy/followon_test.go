package proxy_test

import (
	"testing"

	"github.com/adkproxy/adkproxy/proxy"
)

// One change (a tool added) makes every later request differ too: those
// are follow-ons of the first mismatch, not problems of their own.
func TestFollowOnsPointAtTheFirstMismatch(t *testing.T) {
	dir := recordAgent(t, weatherAgent{}, weatherAgent{question: "And in Rome?"})
	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir, Lenient: true})
	for _, a := range []weatherAgent{{tools: []string{"get_weather", "get_forecast"}}, {question: "And in Rome?", tools: []string{"get_weather", "get_forecast"}, tempC: 30}} {
		if _, err := a.run(t, rep.URL); err != nil {
			t.Fatal(err)
		}
	}
	rep.stop(t)
	outs := rep.Report().Outcomes
	follow := proxy.FollowOnsOf(outs)
	if len(follow) != len(outs) || len(outs) != 4 {
		t.Fatalf("%d outcomes, %d follow-ons", len(outs), len(follow))
	}
	// The Rome run's second request also changed temp_c: that is news of
	// its own, so it is not folded into the first.
	for i, want := range []int{-1, 0, 0, -1} {
		if follow[i] != want {
			t.Errorf("outcome %d (%s, %v) follows %d, want %d", i, outs[i].Outcome, outs[i].Diffs, follow[i], want)
		}
	}
}
