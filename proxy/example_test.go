package proxy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"

	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/proxy"
)

// BeforeSave edits what is kept: here the model's version is taken out of
// every recorded answer, and token counts are not recorded at all.
func ExampleConfig_beforeSave() {
	api := echoAPI()
	defer api.Close()
	dir, _ := os.MkdirTemp("", "cassettes")
	defer os.RemoveAll(dir)

	upstream, _ := url.Parse(api.URL)
	srv, err := proxy.New(proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: upstream,
		BeforeSave: func(x *cassettes.Exchange) error {
			if strings.HasSuffix(x.Request.Path, ":countTokens") {
				return proxy.ErrDrop
			}
			x.Response.Header.Del("X-Model-Version")
			return nil
		}})
	if err != nil {
		fmt.Println(err)
		return
	}
	hs := httptest.NewServer(srv)
	ctx := context.Background()
	client := geminiClient(ctx, hs.URL)
	client.Models.CountTokens(ctx, "gemini-2.5-flash", genai.Text("Hello"), nil)
	client.Models.GenerateContent(ctx, "gemini-2.5-flash", genai.Text("Hello"), nil)
	hs.Close()
	if err := srv.Close(); err != nil { // writes the cassette
		fmt.Println(err)
		return
	}

	c, err := cassettes.Load(dir + "/default.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, x := range c.Exchanges {
		fmt.Println(x.Request.Path, "version header kept:", x.Response.Header.Get("X-Model-Version") != "")
	}
	// Output: /v1beta/models/gemini-2.5-flash:generateContent version header kept: false
}

// BeforeReplay edits what is served, never the cassette: here a replayed
// answer says it came from a recording.
func ExampleConfig_beforeReplay() {
	dir := recordedHello()
	defer os.RemoveAll(dir)

	srv, err := proxy.New(proxy.Config{Dir: dir, // the zero Mode: strict replay
		BeforeReplay: func(x *cassettes.Exchange) error {
			x.Response.Body = bytes.Replace(x.Response.Body, []byte("You said"), []byte("(replayed) You said"), 1)
			return nil
		}})
	if err != nil {
		fmt.Println(err)
		return
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	ctx := context.Background()
	resp, err := geminiClient(ctx, hs.URL).Models.GenerateContent(ctx, "gemini-2.5-flash", genai.Text("Hello"), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.Text())
	// Output: (replayed) You said: Hello
}

// Passthrough sends the requests it chooses upstream, in any mode, and
// keeps nothing of them: here a replay answers model calls from the
// cassette while the model list comes from the API itself.
func ExampleConfig_passthrough() {
	dir := recordedHello()
	defer os.RemoveAll(dir)
	api := echoAPI()
	defer api.Close()

	upstream, _ := url.Parse(api.URL)
	srv, err := proxy.New(proxy.Config{Mode: proxy.ModeReplay, Dir: dir, Upstream: upstream,
		Passthrough: func(r *http.Request) bool { return r.Method == http.MethodGet }})
	if err != nil {
		fmt.Println(err)
		return
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	ctx := context.Background()
	client := geminiClient(ctx, hs.URL)
	model, err := client.Models.Get(ctx, "gemini-2.5-flash", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := client.Models.GenerateContent(ctx, "gemini-2.5-flash", genai.Text("Hello"), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(model.DisplayName, "/", resp.Text())
	st := srv.Stats()
	fmt.Println("replayed:", st.Replayed, "recorded:", st.Recorded)
	// Output:
	// Echo (live) / You said: Hello
	// replayed: 1 recorded: 0
}

// Match replaces the field-by-field comparison: here any request to the
// same path is answered by its recording, whatever the prompt says.
func ExampleConfig_match() {
	dir := recordedHello()
	defer os.RemoveAll(dir)

	srv, err := proxy.New(proxy.Config{Dir: dir,
		Match: func(request, recorded *cassettes.Request) bool {
			return request.Method == recorded.Method && request.Path == recorded.Path
		}})
	if err != nil {
		fmt.Println(err)
		return
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	ctx := context.Background()
	resp, err := geminiClient(ctx, hs.URL).Models.GenerateContent(ctx, "gemini-2.5-flash", genai.Text("Good evening"), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.Text())
	fmt.Println("run failed:", srv.Failure() != nil)
	// Output:
	// You said: Hello
	// run failed: false
}

// echoAPI is a stand-in for the Gemini API on a loopback port: it echoes
// the last text it is sent, counts tokens and describes a model.
func echoAPI() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Model-Version", "echo-001")
		var req struct {
			Contents []struct {
				Parts []struct{ Text string }
			}
		}
		body, _ := io.ReadAll(r.Body)
		json.Unmarshal(body, &req)
		switch {
		case r.Method == http.MethodGet:
			fmt.Fprint(w, `{"name":"models/gemini-2.5-flash","displayName":"Echo (live)"}`)
		case strings.HasSuffix(r.URL.Path, ":countTokens"):
			fmt.Fprint(w, `{"totalTokens":1}`)
		default:
			text := req.Contents[len(req.Contents)-1].Parts[0].Text
			answer, _ := json.Marshal("You said: " + text)
			fmt.Fprintf(w, `{"candidates":[{"content":{"role":"model","parts":[{"text":%s}]}}]}`, answer)
		}
	}))
}

// recordedHello records one model call, "Hello", into a new cassette
// folder and returns it.
func recordedHello() string {
	api := echoAPI()
	defer api.Close()
	dir, _ := os.MkdirTemp("", "cassettes")
	upstream, _ := url.Parse(api.URL)
	srv, _ := proxy.New(proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: upstream})
	hs := httptest.NewServer(srv)
	ctx := context.Background()
	geminiClient(ctx, hs.URL).Models.GenerateContent(ctx, "gemini-2.5-flash", genai.Text("Hello"), nil)
	hs.Close()
	srv.Close()
	return dir
}

// geminiClient is a Gemini API client that talks to the proxy at base.
func geminiClient(ctx context.Context, base string) *genai.Client {
	client, _ := genai.NewClient(ctx, &genai.ClientConfig{APIKey: "example-key", Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: base}})
	return client
}
