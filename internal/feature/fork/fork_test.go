package fork

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
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/engine/fake"
	"github.com/adkproxy/adkproxy/internal/engine/wrap"
	"github.com/adkproxy/adkproxy/internal/wire"
	"github.com/adkproxy/adkproxy/proxy"
	"github.com/adkproxy/adkproxy/scoring"
)

const clientEnv = "ADKPROXY_FORK_TEST_CLIENT"

// TestMain runs this test binary as the agent when clientEnv is set: two
// user turns over the OpenAI-compatible endpoint, each request carrying
// the history so far, as an OpenAI client would.
func TestMain(m *testing.M) {
	if os.Getenv(clientEnv) != "" {
		os.Exit(chatClient())
	}
	os.Exit(m.Run())
}

func chatClient() int {
	base := os.Getenv("GOOGLE_GEMINI_BASE_URL")
	var messages []map[string]string
	for _, q := range []string{"What is the weather in Paris?", "And what should I wear?"} {
		messages = append(messages, map[string]string{"role": "user", "content": q})
		body, _ := json.Marshal(map[string]any{"model": "gemini-2.5-flash", "messages": messages})
		resp, err := http.Post(base+"/v1beta/openai/chat/completions", "application/json", bytes.NewReader(body))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		var out struct {
			Choices []struct {
				Message struct{ Content string } `json:"message"`
			} `json:"choices"`
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if json.Unmarshal(b, &out) != nil || len(out.Choices) == 0 {
			fmt.Fprintf(os.Stderr, "%d %s\n", resp.StatusCode, b)
			return 3
		}
		fmt.Println(out.Choices[0].Message.Content)
		messages = append(messages, map[string]string{"role": "assistant", "content": out.Choices[0].Message.Content})
	}
	return 0
}

// counting serves a fake script and counts the chat calls per model named
// in their bodies.
func counting(t *testing.T, script string, calls map[string]*atomic.Int64) *httptest.Server {
	t.Helper()
	s, err := fake.ParseScript("s.yaml", []byte(script))
	if err != nil {
		t.Fatal(err)
	}
	h := fake.New(s)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var body struct{ Model string }
		json.Unmarshal(b, &body)
		if c := calls[body.Model]; c != nil {
			c.Add(1)
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func self() []string { return []string{"env", clientEnv + "=1", os.Args[0]} }

// record records the client's two turns from the fake into dir.
func record(t *testing.T, dir, upstream string) {
	t.Helper()
	u, _ := url.Parse(upstream)
	srv, err := proxy.New(proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: u})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	var out bytes.Buffer
	if err := wrap.Run(self(), append(os.Environ(), "GOOGLE_GEMINI_BASE_URL="+hs.URL), nil, &out, os.Stderr); err != nil {
		t.Fatalf("recording: %v\n%s", err, out.String())
	}
	hs.Close()
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
}

// A fork over the OpenAI-compatible endpoint: the first turn comes from
// the recording (the upstream never sees it), the second goes to the new
// model in the body, and the report shows the response that changed.
func TestForkOverOpenAICompatibleEndpoint(t *testing.T) {
	dir := t.TempDir()
	original := counting(t, "turns:\n  - model:\n      - text: It is sunny in Paris.\n  - model:\n      - text: Wear a light jacket.\n", nil)
	record(t, dir, original.URL)

	calls := map[string]*atomic.Int64{"gemini-2.5-flash": {}, "gemini-2.5-pro": {}}
	pro := counting(t, "turns:\n  - model:\n      - text: Bring a raincoat.\n", calls)
	u, _ := url.Parse(pro.URL)
	var stdout, stderr bytes.Buffer
	o := Options{Dir: dir, Cassette: cassettes.DefaultName, At: Point{1, 2, 0}, Change: wire.Change{Model: "gemini-2.5-pro"},
		Upstream: u, Out: dir + ".fork", Command: self(), Environ: os.Environ(), Stdout: &stdout, Stderr: &stderr}
	variants, err := Record(context.Background(), o)
	if err != nil {
		t.Fatalf("fork: %v\n%s", err, stderr.String())
	}
	if calls["gemini-2.5-flash"].Load() != 0 || calls["gemini-2.5-pro"].Load() != 1 {
		t.Errorf("upstream calls: flash %d, pro %d; want 0 and 1", calls["gemini-2.5-flash"].Load(), calls["gemini-2.5-pro"].Load())
	}
	if v := variants[0]; v.Replayed != 1 || v.Forwarded != 1 || v.CommandErr != nil {
		t.Errorf("variant %+v", v)
	}
	if got := stdout.String(); got != "It is sunny in Paris.\nBring a raincoat.\n" {
		t.Errorf("the agent said %q", got)
	}
	cmp, err := Compare(context.Background(), o, Scoring{Config: scoring.DefaultConfig()}, variants)
	if err != nil {
		t.Fatal(err)
	}
	var report strings.Builder
	if err := WriteText(&report, o, cmp); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"1 model call(s) replayed from the recording, 1 sent upstream", "1 response changed", "{+Bring+} a [-light jacket.-] {+raincoat.+}"} {
		if !strings.Contains(report.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, report.String())
		}
	}
	forked, err := os.ReadFile(filepath.Join(dir+".fork", "default.yaml"))
	if err != nil || !strings.Contains(string(forked), `"model": "gemini-2.5-pro"`) {
		t.Errorf("the forked cassette does not record the changed request: %v\n%s", err, forked)
	}

	// No change is refused; a step the cassette lacks is named.
	if _, err := Record(context.Background(), Options{Dir: dir, Cassette: "default", At: Point{1, 2, 0}}); err == nil || !strings.Contains(err.Error(), "nothing to change") {
		t.Errorf("no change: %v", err)
	}
	o.At = Point{1, 3, 0}
	if _, err := Record(context.Background(), o); err == nil || !strings.Contains(err.Error(), "has no step 1/3/0") {
		t.Errorf("a missing step: %v", err)
	}
}

func TestParsePoint(t *testing.T) {
	if p, err := ParsePoint("1/2/0"); err != nil || p != (Point{1, 2, 0}) {
		t.Errorf("%v %v", p, err)
	}
	for _, bad := range []string{"", "1/2", "0/1/0", "1/0/0", "1/1/-1", "a/b/c", "1/1/0/1"} {
		if _, err := ParsePoint(bad); err == nil {
			t.Errorf("ParsePoint(%q) accepted", bad)
		}
	}
}
