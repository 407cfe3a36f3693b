package runview

import (
	"bytes"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/recorded"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// TestMCPOverSSEListed: over MCP's older HTTP+SSE transport, the
// tools/call is listed inside its step with the result its stream carried
// (the JSON document's mcp.result), and the stream is not an anonymous
// other request: it names the MCP server whose stream it is.
func TestMCPOverSSEListed(t *testing.T) {
	c := &cassettes.Cassette{Exchanges: testutil.MCPOverSSE("21")}
	run := recorded.Run{Cassettes: []recorded.Cassette{recorded.CassetteOf("c", "c.yaml", c)}}
	var table bytes.Buffer
	WriteTable(&table, "cassettes", run)
	lines := strings.Split(table.String(), "\n")
	at := -1
	for i, l := range lines {
		if strings.TrimSpace(l) == `tool mcp mcp.test/messages/ tools/call get_weather {"city":"Paris"} → ok` {
			at = i
		}
	}
	if at < 1 || !strings.Contains(lines[at-1], "step 0") {
		t.Errorf("the tools/call is not listed under step 0:\n%s", table.String())
	}
	if !strings.Contains(table.String(), "mcp stream  mcp.test/messages/ (GET http://mcp.test/sse)  200") {
		t.Errorf("the stream is not named as the MCP server's:\n%s", table.String())
	}
	var doc bytes.Buffer
	if err := WriteJSON(&doc, run); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"mcp":{"dialect":"mcp","server":"mcp.test/messages/","method":"tools/call","name":"get_weather","args":{"city":"Paris"},"id":"2","result":{"temp_c":21}}`,
		`"other":[{"method":"GET","path":"http://mcp.test/sse","status":200,"mcp_stream":"mcp.test/messages/"}]`,
	} {
		if !strings.Contains(compact(t, doc.Bytes()), want) {
			t.Errorf("JSON lacks %s:\n%s", want, doc.String())
		}
	}
}
