package rundiff_test

import (
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/recorded"
	"github.com/adkproxy/adkproxy/internal/feature/report/rundiff"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// sseRun is a run of one cassette, testutil.MCPOverSSE's.
func sseRun(temp string) recorded.Run {
	c := &cassettes.Cassette{Exchanges: testutil.MCPOverSSE(temp)}
	return recorded.Run{Cassettes: []recorded.Cassette{recorded.CassetteOf("c", "c.yaml", c)}}
}

// TestMCPResultOverHTTPSSE: a tools/call's result that changed on the
// stream of MCP's older HTTP+SSE transport is a changed result of the MCP
// tool, in the report and its text; the same result is no change.
func TestMCPResultOverHTTPSSE(t *testing.T) {
	if got := changes(rundiff.Diff("old", "new", sseRun("21"), sseRun("21"), rundiff.Options{})); len(got) != 0 {
		t.Errorf("the same run has changes: %+v", got)
	}
	r := rundiff.Diff("old", "new", sseRun("21"), sseRun("9"), rundiff.Options{})
	got := changes(r)
	if len(got) != 1 || got[0].Tool != "mcp mcp.test/messages/ tools/call get_weather" || !strings.Contains(got[0].Old, "21") || !strings.Contains(got[0].New, "9") {
		t.Fatalf("changes: %+v, want the MCP tool's result 21 → 9", got)
	}
	if text := textOf(t, r, false); !strings.Contains(text, "mcp mcp.test/messages/ tools/call get_weather") {
		t.Errorf("the text report does not name the MCP tool:\n%s", text)
	}
}
