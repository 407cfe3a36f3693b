package proxy_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"cloud.google.com/go/auth"
	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/proxy"
)

// TestGenaiClientRecordThenReplay drives the official Go client through a
// recording proxy and then through a replaying one with the upstream gone,
// and requires identical results for every kind of call an agent makes.
func TestGenaiClientRecordThenReplay(t *testing.T) {
	dir := testutil.OutDir(t)
	upstream := &fakegemini.Handler{}
	up := httptest.NewServer(upstream)
	upURL := mustURL(t, up.URL)

	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: upURL, VertexUpstream: upURL})
	recorded := genaiScenario(t, rec.URL)
	rec.stop(t)
	up.Close() // replay must not need it

	if got := rec.Stats().Recorded; got != int64(len(upstream.Requests())) {
		t.Errorf("recorded %d exchanges, upstream saw %d requests", got, len(upstream.Requests()))
	}
	for _, r := range upstream.Requests() {
		if r.Header.Get("X-Goog-Api-Key") != testutil.SecretAPIKey && !strings.Contains(r.Header.Get("Authorization"), testutil.SecretBearer) {
			t.Errorf("upstream request %s %s arrived without the client's credential", r.Method, r.Path)
		}
	}
	for _, secret := range []string{testutil.SecretAPIKey, testutil.SecretBearer} {
		if n := testutil.CountInDir(t, dir, secret); n != 0 {
			t.Errorf("a credential appears %d times in the cassettes", n)
		}
	}

	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir})
	replayed := genaiScenario(t, rep.URL)
	if st := rep.Stats(); st.Unmatched != 0 || st.Replayed != rec.Stats().Recorded {
		t.Errorf("replay stats %+v, want every one of %d recordings replayed and none unmatched; misses: %+v", st, rec.Stats().Recorded, rep.Misses())
	}
	for name, want := range recorded {
		if got := replayed[name]; got != want {
			t.Errorf("%s differs on replay:\nrecorded %s\nreplayed %s", name, want, got)
		}
	}
	if len(recorded) != 7 {
		t.Errorf("scenario produced %d results, want 7", len(recorded))
	}
}

// genaiScenario runs one of each call and returns their results as JSON.
func genaiScenario(t *testing.T, base string) map[string]string {
	t.Helper()
	return genaiScenarioVia(t, base, nil)
}

// genaiScenarioVia is genaiScenario with the client's HTTP client; an
// empty base leaves the SDK's default hosts.
func genaiScenarioVia(t *testing.T, base string, hc *http.Client) map[string]string {
	t.Helper()
	ctx := context.Background()
	client, err := genai.NewClient(ctx, &genai.ClientConfig{
		APIKey: testutil.SecretAPIKey, Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: base}, HTTPClient: hc,
	})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	keep := func(name string, v any, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b, _ := json.Marshal(v)
		out[name] = string(b)
	}
	const model = "gemini-2.5-flash"

	resp, err := client.Models.GenerateContent(ctx, model, genai.Text("What is the capital of France?"), nil)
	keep("generate", resp, err)

	var chunks []string
	for chunk, err := range client.Models.GenerateContentStream(ctx, model, genai.Text("Tell me a short story about a fox"), nil) {
		if err != nil {
			t.Fatalf("stream: %v", err)
		}
		chunks = append(chunks, chunk.Text())
	}
	if len(chunks) < 2 {
		t.Errorf("stream gave %d chunks, want several", len(chunks))
	}
	keep("stream", chunks, nil)

	keep("function-calling", functionCallingRoundTrip(t, ctx, client, model), nil)

	count, err := client.Models.CountTokens(ctx, model, genai.Text("one two three four"), nil)
	keep("count-tokens", count, err)

	emb, err := client.Models.EmbedContent(ctx, "gemini-embedding-001", genai.Text("hello world"), nil)
	keep("embed", emb, err)

	info, err := client.Models.Get(ctx, model, nil)
	keep("model-get", info, err)

	vertex, err := genai.NewClient(ctx, &genai.ClientConfig{
		Backend: genai.BackendVertexAI, Project: "test-project", Location: "us-central1",
		Credentials: auth.NewCredentials(&auth.CredentialsOptions{TokenProvider: staticToken(testutil.SecretBearer)}),
		HTTPOptions: genai.HTTPOptions{BaseURL: base}, HTTPClient: hc,
	})
	if err != nil {
		t.Fatal(err)
	}
	vresp, err := vertex.Models.GenerateContent(ctx, model, genai.Text("Hello from Vertex"), nil)
	keep("vertex-generate", vresp, err)
	return out
}

// functionCallingRoundTrip is an agent's inner loop: the model asks for a
// tool, the client runs it and sends the result, the model answers.
func functionCallingRoundTrip(t *testing.T, ctx context.Context, client *genai.Client, model string) []string {
	t.Helper()
	config := &genai.GenerateContentConfig{Tools: []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{{
		Name: "get_weather", Description: "Current weather for a city",
		Parameters: &genai.Schema{Type: genai.TypeObject, Properties: map[string]*genai.Schema{"city": {Type: genai.TypeString}}},
	}}}}}
	history := genai.Text("What is the weather in Paris?")
	first, err := client.Models.GenerateContent(ctx, model, history, config)
	if err != nil {
		t.Fatalf("function call: %v", err)
	}
	calls := first.FunctionCalls()
	if len(calls) != 1 || calls[0].Name != "get_weather" {
		t.Fatalf("want one get_weather call, got %+v", calls)
	}
	history = append(history, first.Candidates[0].Content, genai.NewContentFromFunctionResponse(
		"get_weather", map[string]any{"city": calls[0].Args["city"], "temp_c": 18}, genai.RoleUser))
	final, err := client.Models.GenerateContent(ctx, model, history, config)
	if err != nil {
		t.Fatalf("function response: %v", err)
	}
	return []string{calls[0].Name, calls[0].Args["city"].(string), final.Text()}
}

type staticToken string

func (s staticToken) Token(context.Context) (*auth.Token, error) {
	return &auth.Token{Value: string(s), Type: "Bearer"}, nil
}
