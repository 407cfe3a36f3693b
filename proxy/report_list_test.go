package proxy_test

import (
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/conversation"
	"github.com/adkproxy/adkproxy/internal/testing/workload"
	"github.com/adkproxy/adkproxy/matcher"
	"github.com/adkproxy/adkproxy/proxy"
)

// The report lists every replayed request in the order it was answered,
// past the size at which the proxy starts a new block of its list.
func TestReportListsOutcomesInOrderAcrossBlocks(t *testing.T) {
	dir := t.TempDir()
	xs := workload.Exchanges()
	conversation.Organize(matcher.Default(), xs)
	if err := cassettes.Save(filepath.Join(dir, "default.yaml"), &cassettes.Cassette{Name: "default", Exchanges: xs}, nil); err != nil {
		t.Fatal(err)
	}
	p := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir, AllowRepeats: true})
	body := string(workload.Request())
	const n = 4096 + 7
	for i := range n {
		target := workload.JSONPath
		if i%3 == 2 {
			target = workload.SSEPath
		}
		resp := post(t, p.URL, target, nil, body)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("request %d: status %d", i, resp.StatusCode)
		}
	}
	rep := p.Report()
	if rep.Counts[matcher.OutcomeMatched] != n || len(rep.Outcomes) != n || rep.Truncated != 0 {
		t.Fatalf("matched %d, listed %d, truncated %d; want %d listed", rep.Counts[matcher.OutcomeMatched], len(rep.Outcomes), rep.Truncated, n)
	}
	ssePath, _, _ := strings.Cut(workload.SSEPath, "?")
	for i, o := range rep.Outcomes {
		want := workload.JSONPath
		if i%3 == 2 {
			want = ssePath
		}
		if o.Outcome != matcher.OutcomeMatched || o.Path != want {
			t.Fatalf("outcome %d: %s %s, want matched %s", i, o.Outcome, o.Path, want)
		}
	}
}
