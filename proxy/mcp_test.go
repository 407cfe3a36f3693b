package proxy_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/proxyopt"
	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/internal/wire"
	"github.com/adkproxy/adkproxy/proxy"
)

// mcpRelay stands for `adkproxy mcp`'s loopback relay to a stdio server:
// each request is answered with its id and a result that changes on every
// call, a notification with 202.
func mcpRelay(t *testing.T) string {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &m)
		if m.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"method":%q,"n":%d}}`, m.ID, m.Method, n.Add(1))
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}

// stdioMessage posts one client message as `adkproxy mcp` does.
func stdioMessage(t *testing.T, base, upstream, msg string) string {
	t.Helper()
	h := http.Header{}
	if upstream != "" {
		h.Set(proxyopt.HeaderMCPUpstream, upstream)
	}
	resp := post(t, base, proxyopt.ControlMCP+"weather", h, msg)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		t.Fatalf("%s: %d %s", msg, resp.StatusCode, b)
	}
	return string(b)
}

const (
	mcpStep0 = `{"contents":[{"role":"user","parts":[{"text":"What is the weather in Paris?"}]}],` +
		`"tools":[{"functionDeclarations":[{"name":"get_weather","description":"Weather.","parameters":{"type":"OBJECT","properties":{"city":{"type":"STRING"}}}}]}]}`
	mcpStep1 = `{"contents":[{"role":"user","parts":[{"text":"What is the weather in Paris?"}]},` +
		`{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}}}]},` +
		`{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"temp_c":21}}}]}],` +
		`"tools":[{"functionDeclarations":[{"name":"get_weather","description":"Weather.","parameters":{"type":"OBJECT","properties":{"city":{"type":"STRING"}}}}]}]}`
)

// mcpTurn is one user turn of an agent whose tool is on a stdio MCP
// server, as ADK's MCP toolsets go about it: the session opened and the
// tools listed before each model call, the tool called between them.
// Its JSON-RPC ids start at first; it returns the answers to them.
func mcpTurn(t *testing.T, base, upstream string, first int) []string {
	var answers []string
	rpc := func(method, params string) {
		answers = append(answers, stdioMessage(t, base, upstream,
			fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, first+len(answers), method, params)))
	}
	model := func(body string) {
		resp := post(t, base, "/v1beta/models/gemini-2.5-flash:generateContent", nil, body)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("model call: %d", resp.StatusCode)
		}
	}
	rpc("initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}`)
	stdioMessage(t, base, upstream, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	rpc("tools/list", `{}`)
	model(mcpStep0)
	rpc("tools/call", `{"name":"get_weather","arguments":{"city":"Paris"}}`)
	rpc("tools/list", `{}`)
	model(mcpStep1)
	return answers
}

// TestMCPListingFiledWithTheStepThatFollows: a tools/list declares the
// tools of the model call that comes after it, so it is filed with that
// step, not under the step whose tool call was waiting (or nowhere); the
// tools/call stays with the step that asked for it.
func TestMCPListingFiledWithTheStepThatFollows(t *testing.T) {
	dir := testutil.OutDir(t)
	up := httptest.NewServer(&fakegemini.Handler{})
	defer up.Close()
	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL)})
	mcpTurn(t, rec.URL, mcpRelay(t), 0)
	rec.stop(t)

	c, err := cassettes.Load(filepath.Join(dir, cassettes.DefaultName+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var filed []string
	for _, x := range c.Exchanges {
		if m, ok := wire.MCPRequestOf(&x.Request); ok {
			where := "other"
			if x.Place != nil {
				where = fmt.Sprintf("step %d", x.Place.Step)
			}
			filed = append(filed, m.Method+" "+where)
		}
	}
	sort.Strings(filed)
	want := "initialize other, notifications/initialized other, tools/call step 0, tools/list step 0, tools/list step 1"
	if got := strings.Join(filed, ", "); got != want {
		t.Errorf("MCP exchanges filed as\n  %s\nwant\n  %s", got, want)
	}
}

// TestMCPIDsMatchedByPlace: a client that numbers its JSON-RPC requests
// otherwise than when recording (another count, a session of its own)
// replays strictly: ids are matched by place, like model call ids, and
// each answer carries the id the client sent.
func TestMCPIDsMatchedByPlace(t *testing.T) {
	dir := testutil.OutDir(t)
	up := httptest.NewServer(&fakegemini.Handler{})
	defer up.Close()
	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL)})
	recorded := mcpTurn(t, rec.URL, mcpRelay(t), 0)
	rec.stop(t)

	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir})
	replayed := mcpTurn(t, rep.URL, "", 40)
	rep.stop(t)
	if err := rep.Failure(); err != nil {
		t.Fatalf("strict replay with other ids failed: %v", err)
	}
	for i := range recorded {
		want := strings.Replace(recorded[i], fmt.Sprintf(`"id":%d`, i), fmt.Sprintf(`"id":%d`, 40+i), 1)
		if strings.TrimSpace(replayed[i]) != strings.TrimSpace(want) {
			t.Errorf("answer %d: replayed %s, want the recording with the id sent: %s", i, replayed[i], want)
		}
	}
}

// TestMCPMismatchComparedWithTheSameTool: every message of an MCP session
// goes to one endpoint, so a tools/call that differs from its recording
// is compared with the recorded call of the same tool, wherever it is in
// the session, not with whatever message is next there.
func TestMCPMismatchComparedWithTheSameTool(t *testing.T) {
	dir := testutil.OutDir(t)
	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, "http://127.0.0.1:1")})
	relay := mcpRelay(t)
	stdioMessage(t, rec.URL, relay, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`)
	stdioMessage(t, rec.URL, relay, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_weather","arguments":{"city":"Paris"}}}`)
	rec.stop(t)

	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir})
	resp := post(t, rep.URL, proxyopt.ControlMCP+"weather", nil,
		`{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":"get_weather","arguments":{"city":"Lyon"}}}`)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	msg := string(b)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(msg, "MCP server weather tool get_weather differs from the recording") ||
		!strings.Contains(msg, `body.params.arguments.city: recorded \"Paris\", got \"Lyon\"`) || strings.Contains(msg, "body.method") {
		t.Errorf("a changed tools/call sent first: %d %s", resp.StatusCode, msg)
	}
}
