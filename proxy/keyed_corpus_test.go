package proxy_test

import (
	"io"
	"net/http"
	"testing"

	"github.com/adkproxy/adkproxy/internal/adk/conformance"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/proxy"
)

// TestConformanceKeyingReplaysEveryCorpusCase sends every shared case's
// model calls as ADK Python recorded them through --match conformance: each
// is answered by the recording at its own key, none is left unused, and
// none has a finding. It covers the shapes the corpus has: a long-running
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
			p := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir, Match: proxy.MatchConformance})
			for i, x := range cas.Exchanges {
				resp := post(t, p.URL, x.Request.Path, http.Header{"X-Adkproxy-Cassette": {cas.Name}}, string(x.Request.Body))
				got, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 || string(got) != string(x.Response.Body) {
					t.Fatalf("call %d (%+v): status %d, body %s", i, *x.Place, resp.StatusCode, got)
				}
			}
			p.stop(t)
			r := p.Report()
			if r.Counts[proxy.OutcomeMatched] != len(cas.Exchanges) || r.Counts[proxy.OutcomeUnused] != 0 {
				t.Fatalf("counts %v for %d calls", r.Counts, len(cas.Exchanges))
			}
			for i, o := range r.Outcomes {
				x := cas.Exchanges[i]
				want := conformance.Key{UserMessage: x.Place.Invocation - 1, Agent: x.Place.Agent}
				if o.Conformance == nil || o.Conformance.UserMessage != want.UserMessage || o.Conformance.Agent != want.Agent || len(o.Findings) != 0 {
					t.Errorf("call %d: key %+v findings %v, want user message %d agent %s", i, o.Conformance, o.Findings, want.UserMessage, want.Agent)
				}
			}
		})
	}
}
