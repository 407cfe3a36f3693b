package proxy_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/engine/fake"
	"github.com/adkproxy/adkproxy/matcher"
	"github.com/adkproxy/adkproxy/proxy"
)

const chatScript = `
turns:
  - user: What is the weather in Paris?
    model:
      - call: get_weather
        args: {city: Paris}
      - text: It is 18 degrees and sunny in Paris.
`

// chatStep is the agent's request on Gemini's OpenAI-compatible endpoint:
// the first step, or the second with the tool's result (JSON in a string).
func chatStep(desc, result string) string {
	tools := `"tools":[{"type":"function","function":{"name":"get_weather","description":"` + desc + `","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}]`
	user := `{"role":"user","content":"What is the weather in Paris?"}`
	if result == "" {
		return `{"model":"gemini-2.5-flash","messages":[` + user + `],` + tools + `}`
	}
	return `{"model":"gemini-2.5-flash","messages":[` + user +
		`,{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]}` +
		`,{"role":"tool","tool_call_id":"call_1","content":` + mustJSON(result) + `}],` + tools + `}`
}

func mustJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestChatCompletionsRecordedAsModelCalls: chat completions recorded from
// the fake are placed in a session, an invocation and steps; replay
// verifies them field by field, a changed tool description and a changed
// field of a JSON tool result each named by place and path.
func TestChatCompletionsRecordedAsModelCalls(t *testing.T) {
	script, err := fake.ParseScript("script.yaml", []byte(chatScript))
	if err != nil {
		t.Fatal(err)
	}
	up := httptest.NewServer(fake.New(script))
	defer up.Close()
	dir := t.TempDir()
	const path = "/v1beta/openai/chat/completions"
	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL)})
	for _, b := range []string{chatStep("Current weather.", ""), chatStep("Current weather.", `{"temp":18}`)} {
		if resp := post(t, rec.URL, path, nil, b); resp.StatusCode != 200 {
			t.Fatalf("record: %d %s", resp.StatusCode, body(t, resp))
		} else {
			resp.Body.Close()
		}
	}
	report := rec.Report()
	rec.stop(t)
	for i, o := range report.Outcomes {
		if o.Session != 1 || o.Invocation != 1 || o.Step == nil || *o.Step != i || o.User != "What is the weather in Paris?" {
			t.Errorf("recorded call %d placed at %+v", i, o)
		}
	}

	for _, c := range []struct{ first, second, path string }{
		{chatStep("The weather.", ""), "", "tools[get_weather].function.description"},
		{chatStep("Current weather.", ""), chatStep("Current weather.", `{"temp":21}`), "messages[tool].content.temp"},
	} {
		rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir})
		resp := post(t, rep.URL, path, nil, c.first)
		resp.Body.Close()
		if c.second != "" {
			resp = post(t, rep.URL, path, nil, c.second)
			resp.Body.Close()
		}
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: replay answered %d", c.path, resp.StatusCode)
		}
		var found *matcher.Outcome
		for _, o := range rep.Report().Outcomes {
			if o.Outcome == matcher.OutcomeMismatched {
				found = &o
			}
		}
		if found == nil || len(found.Diffs) != 1 || found.Diffs[0].Path != c.path || found.Session != 1 || found.Step == nil {
			t.Errorf("%s: outcome %+v", c.path, found)
		}
		rep.stop(t)
	}
}

// TestPathWithoutVersionIsNamed: replay of a path without /v1beta (a
// base URL given in code without it) says the version segment is missing.
func TestPathWithoutVersionIsNamed(t *testing.T) {
	up, _ := countingUpstream()
	defer up.Close()
	dir := t.TempDir()
	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL)})
	post(t, rec.URL, generatePath, nil, `{"contents":[]}`).Body.Close()
	rec.stop(t)
	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir})
	resp := post(t, rep.URL, "/models/gemini-2.5-flash:generateContent", nil, `{"contents":[]}`)
	if b := body(t, resp); resp.StatusCode != http.StatusBadRequest || !strings.Contains(b, "has no API version segment (/v1beta)") {
		t.Errorf("%d %s", resp.StatusCode, b)
	}
	rep.stop(t)
}
