package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// weatherAgentClient is an agent reached only through HTTPS_PROXY and
// SSL_CERT_FILE: the genai client at its default host asks about the
// weather in Paris; the model calls get_weather, which the agent runs by
// calling a weather API over HTTPS with net/http (a key in a header and a
// token in the query), and the model then answers.
func weatherAgentClient() int {
	os.Unsetenv("GOOGLE_GEMINI_BASE_URL")
	os.Unsetenv("GOOGLE_VERTEX_BASE_URL")
	ctx := context.Background()
	client, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: os.Getenv("GOOGLE_API_KEY"), Backend: genai.BackendGeminiAPI})
	if err != nil {
		fmt.Fprintln(os.Stderr, "client:", err)
		return 2
	}
	config := &genai.GenerateContentConfig{Tools: []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{{
		Name: "get_weather", Description: "Current weather in a city",
		Parameters: &genai.Schema{Type: genai.TypeObject, Properties: map[string]*genai.Schema{"city": {Type: genai.TypeString}}},
	}}}}}
	contents := []*genai.Content{genai.NewContentFromText("What is the weather in Paris", genai.RoleUser)}
	for range 4 {
		resp, err := client.Models.GenerateContent(ctx, "gemini-2.5-flash", contents, config)
		if err != nil {
			fmt.Fprintln(os.Stderr, "model:", err)
			return 2
		}
		calls := resp.FunctionCalls()
		if len(calls) == 0 {
			fmt.Println("answer:", resp.Text())
			return 0
		}
		contents = append(contents, resp.Candidates[0].Content)
		for _, c := range calls {
			city, _ := c.Args["city"].(string)
			result, err := getWeather(city)
			if err != nil {
				fmt.Fprintln(os.Stderr, "tool:", err)
				return 2
			}
			fmt.Println("tool:", result)
			contents = append(contents, genai.NewContentFromFunctionResponse(c.Name, result, genai.RoleUser))
		}
	}
	fmt.Fprintln(os.Stderr, "no answer after 4 steps")
	return 2
}

// getWeather is the agent's tool: WEATHER_URL?city=..., with credentials.
func getWeather(city string) (map[string]any, error) {
	u := os.Getenv("WEATHER_URL") + "?" + url.Values{"city": {city}, "token": {os.Getenv("WEATHER_TOKEN")}}.Encode()
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	req.Header.Set("X-Api-Key", os.Getenv("WEATHER_KEY"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		return nil, fmt.Errorf("%s: %d %s", u, resp.StatusCode, body)
	}
	var out map[string]any
	return out, json.Unmarshal(body, &out)
}

// weatherAPI is the tool's upstream: the weather in the city asked for.
var weatherAPI = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"city":%q,"temp_c":18,"sky":"clear"}`, r.URL.Query().Get("city"))
})

// TestAgentWithToolRecordReplayHermetic: an agent whose model calls and
// tool calls both reach adkproxy only through HTTPS_PROXY records once
// (the genai client's default host and the weather API routed by
// --connect-to to TLS fakes), then replays with both upstreams stopped:
// the same output, exit 0, no connection to either, no credential on
// disk, and `ls` shows the tool call under the step that asked for it.
func TestAgentWithToolRecordReplayHermetic(t *testing.T) {
	t.Parallel()
	dir := testutil.OutDir(t)
	public := newTestCA(t)
	gemini := &fakegemini.Handler{}
	model := testutil.StartCounting(t, gemini, public.Leaf)
	weather := testutil.StartCounting(t, weatherAPI, public.Leaf)
	env := []string{"ADKPROXY_CA_DIR=" + t.TempDir(), "WEATHER_URL=https://weather.example.test/v1/current",
		"WEATHER_KEY=" + testutil.SecretToolHeader, "WEATHER_TOKEN=" + testutil.SecretToolQuery}

	rec := adkproxy(t, append(env, "GOOGLE_API_KEY="+testutil.SecretAPIKey), append([]string{"record", "--cassettes", dir,
		"--connect-to", "generativelanguage.googleapis.com:443=" + model.Addr(),
		"--connect-to", "weather.example.test:443=" + weather.Addr(),
		"--upstream-ca", public.CertPath}, self("weather-agent")...)...)
	if rec.code != 0 || !strings.Contains(rec.stdout, `tool: map[city:Paris sky:clear temp_c:18]`) || !strings.Contains(rec.stdout, "answer: ") {
		t.Fatalf("record: exit %d\nstdout %s\nstderr %s", rec.code, rec.stdout, rec.stderr)
	}
	if len(gemini.Requests()) != 2 {
		t.Errorf("the fake Gemini saw %d requests, want 2 (the call and the answer)", len(gemini.Requests()))
	}
	model.Close()
	weather.Close()
	conns := model.Conns() + weather.Conns()
	for _, secret := range []string{testutil.SecretAPIKey, testutil.SecretToolHeader, testutil.SecretToolQuery} {
		if n := testutil.CountInDir(t, dir, secret); n != 0 {
			t.Errorf("a credential appears %d time(s) in the cassettes", n)
		}
	}

	// Replay with other credentials: they are not part of what matches.
	other := []string{"ADKPROXY_CA_DIR=" + env[0][len("ADKPROXY_CA_DIR="):], env[1], "WEATHER_KEY=another-key", "WEATHER_TOKEN=another-token"}
	rep := adkproxy(t, other, append([]string{"replay", "--cassettes", dir}, self("weather-agent")...)...)
	if rep.code != 0 || rep.stdout != rec.stdout {
		t.Errorf("replay: exit %d\nstdout %q\nrecorded %q\nstderr %s", rep.code, rep.stdout, rec.stdout, rep.stderr)
	}
	if n := model.Conns() + weather.Conns() - conns; n != 0 {
		t.Errorf("replay opened %d connection(s) to the upstreams", n)
	}

	ls := adkproxy(t, nil, "ls", "--cassettes", dir)
	lines := strings.Split(ls.stdout, "\n")
	found := false
	for i, l := range lines {
		if strings.TrimSpace(l) == "tool http GET weather.example.test/v1/current?city=Paris → 200" {
			found = i >= 2 && strings.Contains(lines[i-1], "step 0") && strings.Contains(lines[i-1], "get_weather(city=\"Paris\")") &&
				strings.Contains(lines[i-2], `invocation 1`) && strings.Contains(lines[i-2], "What is the weather in Paris")
		}
	}
	if ls.code != 0 || !found {
		t.Errorf("ls does not show the tool call under invocation 1, step 0 (exit %d):\n%s%s", ls.code, ls.stdout, ls.stderr)
	}
}

// TestToolRequestFailuresExit76: in replay a tool request with one query
// parameter changed fails the run naming the field, and one to a host the
// cassette does not hold gets a 502 naming the host and the cassette; the
// wrapped tool's own success does not hide either.
func TestToolRequestFailuresExit76(t *testing.T) {
	t.Parallel()
	dir := testutil.OutDir(t)
	public := newTestCA(t)
	api := testutil.StartCounting(t, weatherAPI, public.Leaf)
	rec := adkproxy(t, []string{"TOOL_URL=https://weather.example.test/v1/current?city=Paris"}, append([]string{"record", "--cassettes", dir,
		"--connect-to", "weather.example.test:443=" + api.Addr(), "--upstream-ca", public.CertPath}, self("tool-get")...)...)
	if rec.code != 0 || !strings.HasPrefix(rec.stdout, `200 {"city":"Paris"`) {
		t.Fatalf("record: exit %d, stdout %q, stderr %s", rec.code, rec.stdout, rec.stderr)
	}
	api.Close()
	before := api.Conns()

	changed := adkproxy(t, []string{"TOOL_URL=https://weather.example.test/v1/current?city=Lyon"}, append([]string{"replay", "--cassettes", dir}, self("tool-get")...)...)
	if changed.code != exitUnmatched || !strings.Contains(changed.stdout, `query.city: recorded \"Paris\", got \"Lyon\"`) ||
		!strings.Contains(changed.stderr, "query.city") {
		t.Errorf("changed tool request: exit %d, stdout %q, stderr %s; want 76 naming query.city", changed.code, changed.stdout, changed.stderr)
	}
	unknown := adkproxy(t, []string{"TOOL_URL=https://news.example.test/v1/top"}, append([]string{"replay", "--cassettes", dir}, self("tool-get")...)...)
	if unknown.code != exitUnmatched || !strings.HasPrefix(unknown.stdout, "502 ") || !strings.Contains(unknown.stdout, "news.example.test") ||
		!strings.Contains(unknown.stdout, `cassette \"default\"`) {
		t.Errorf("unrecorded host: exit %d, stdout %q, stderr %s; want 76 and a 502 naming the host and cassette", unknown.code, unknown.stdout, unknown.stderr)
	}
	if n := api.Conns() - before; n != 0 {
		t.Errorf("replay opened %d connection(s) to the tool host", n)
	}
}

// httpxTool is a tool written with Python's httpx, which honours
// HTTPS_PROXY and SSL_CERT_FILE by default.
const httpxTool = `import os, httpx
r = httpx.get(os.environ["TOOL_URL"])
print(r.status_code, r.text)
`

// TestHTTPXToolRecordReplay: the same with a Python httpx tool, where
// python3 and httpx are installed. They are optional (the docs name Go's
// net/http as the tested client), so the test skips without them, under
// CI too.
func TestHTTPXToolRecordReplay(t *testing.T) {
	t.Parallel()
	python, err := exec.LookPath("python3")
	if err != nil || exec.Command(python, "-c", "import httpx").Run() != nil {
		t.Skip("python3 with httpx is not installed; it is optional (docs/forward-proxy.md), so this test skips, under CI too")
	}
	dir := testutil.OutDir(t)
	public := newTestCA(t)
	api := testutil.StartCounting(t, weatherAPI, public.Leaf)
	script := filepath.Join(t.TempDir(), "tool.py")
	if err := os.WriteFile(script, []byte(httpxTool), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"TOOL_URL=https://weather.example.test/v1/current?city=Paris"}
	rec := adkproxy(t, env, "record", "--cassettes", dir, "--connect-to", "weather.example.test:443="+api.Addr(),
		"--upstream-ca", public.CertPath, "--", python, script)
	if rec.code != 0 || !strings.HasPrefix(rec.stdout, `200 {"city":"Paris"`) {
		t.Fatalf("record: exit %d, stdout %q, stderr %s", rec.code, rec.stdout, rec.stderr)
	}
	api.Close()
	before := api.Conns()
	rep := adkproxy(t, env, "replay", "--cassettes", dir, "--", python, script)
	if rep.code != 0 || rep.stdout != rec.stdout || api.Conns() != before {
		t.Errorf("replay: exit %d, stdout %q (recorded %q), %d connection(s); stderr %s", rep.code, rep.stdout, rec.stdout, api.Conns()-before, rep.stderr)
	}
}
