package adkjs_test

import (
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/internal/base/adkapi"
	"github.com/adkproxy/adkproxy/internal/feature/adk/adkjs"
	"github.com/adkproxy/adkproxy/internal/testing/adkjstest"
	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// TestCorpusAgentsAnswerThroughADKJS serves corpus YAML agents from ADK-JS's
// api_server through the generated agent.mjs files, and runs a turn on
// each against the scripted fake upstream: a plain LlmAgent, and one whose
// tools are ADK-JS's JS ports of the corpus's Python tools.
func TestCorpusAgentsAnswerThroughADKJS(t *testing.T) {
	corpus := testutil.SharedDir(t, "fixtures", "adk-conformance", "agents")
	agents := filepath.Join(t.TempDir(), "agents")
	if err := adkjs.WriteAgentsDir(corpus, agents, "core_agent_001", "tools_agent_002"); err != nil {
		t.Fatal(err)
	}
	upstream := &fakegemini.Handler{}
	up := httptest.NewServer(upstream)
	defer up.Close()
	srv := adkjstest.StartServer(t, agents, up.URL)

	c, err := adkapi.New(srv.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	apps, err := c.ListApps(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(apps, []string{"core_agent_001", "tools_agent_002"}) {
		t.Fatalf("list-apps = %v; server output:\n%s", apps, srv.Output())
	}

	t.Run("plain agent", func(t *testing.T) {
		s, err := c.CreateSession(ctx, "core_agent_001", "u1", map[string]any{"k": "v"})
		if err != nil {
			t.Fatal(err)
		}
		events, err := c.Run(ctx, adkapi.RunRequest{AppName: "core_agent_001", UserID: "u1", SessionID: s.ID,
			NewMessage: genai.NewContentFromText("What is your name?", genai.RoleUser)})
		if err != nil {
			t.Fatalf("run: %v\nserver output:\n%s", err, srv.Output())
		}
		if len(events) != 1 || events[0].Author != "core_agent_001" || events[0].Content == nil ||
			!strings.Contains(events[0].Content.Parts[0].Text, "What is your name?") {
			t.Fatalf("events = %s", rawEvents(events))
		}
		got, err := c.GetSession(ctx, "core_agent_001", "u1", s.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Events) != 2 || got.Events[0].Author != "user" || got.State["k"] != "v" {
			t.Errorf("session after the turn = %s", got.Raw)
		}
		// The system instruction ADK-JS sent is the corpus agent's own.
		reqs := upstream.Requests()
		if len(reqs) == 0 || !strings.Contains(string(reqs[len(reqs)-1].Body), `ADK Core Assistant`) {
			t.Errorf("the model request does not carry the YAML agent's instruction")
		}
	})

	t.Run("JS tool ports", func(t *testing.T) {
		s, err := c.CreateSession(ctx, "tools_agent_002", "u1", nil)
		if err != nil {
			t.Fatal(err)
		}
		// The fake model calls the first declared tool, validate_email, with
		// the last word of the question; the JS port answers false for it.
		events, err := c.Run(ctx, adkapi.RunRequest{AppName: "tools_agent_002", UserID: "u1", SessionID: s.ID,
			NewMessage: genai.NewContentFromText("Please validate bob@example.com", genai.RoleUser)})
		if err != nil {
			t.Fatalf("run: %v\nserver output:\n%s", err, srv.Output())
		}
		if len(events) < 2 {
			t.Fatalf("events = %s", rawEvents(events))
		}
		calls := events[0].FunctionCalls()
		if len(calls) != 1 || calls[0].Name != "validate_email" {
			t.Fatalf("first event's calls = %s", rawEvents(events))
		}
		resp := events[1].Content.Parts[0].FunctionResponse
		if resp == nil || resp.Name != "validate_email" || resp.ID != calls[0].ID {
			t.Fatalf("second event = %s", events[1].Raw)
		}
	})
}

func TestWriteAgentsDirWithoutRootAgent(t *testing.T) {
	corpus := testutil.SharedDir(t, "fixtures", "adk-conformance", "agents")
	dst := t.TempDir()
	err := adkjs.WriteAgentsDir(corpus, dst, "multi_agent_002")
	if !errors.Is(err, adkjs.ErrNoRootAgent) || !strings.Contains(err.Error(), "multi_agent_002") {
		t.Fatalf("err = %v, want ErrNoRootAgent naming the agent", err)
	}
	if _, err := os.Stat(filepath.Join(dst, "multi_agent_002")); err == nil {
		t.Errorf("an agent folder was written for an agent without root_agent.yaml")
	}
}

func rawEvents(events []adkapi.Event) string {
	var b strings.Builder
	for _, e := range events {
		b.Write(e.Raw)
		b.WriteByte('\n')
	}
	return b.String()
}

func TestWriteAgentsDirReplacesAnEarlierCopy(t *testing.T) {
	corpus := testutil.SharedDir(t, "fixtures", "adk-conformance", "agents")
	dst := t.TempDir()
	stale := filepath.Join(dst, "core_agent_001", "stale.yaml")
	if err := os.MkdirAll(filepath.Dir(stale), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stale, []byte("name: stale\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := adkjs.WriteAgentsDir(corpus, dst, "core_agent_001"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Errorf("a file of an earlier copy survived: %s", stale)
	}
	for _, f := range []string{"root_agent.yaml", adkjs.AgentFile} {
		if _, err := os.Stat(filepath.Join(dst, "core_agent_001", f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
	// Writing into the corpus itself would delete it: refused (on a copy:
	// tests may run as root, whom read-only folders do not stop).
	own := filepath.Join(t.TempDir(), "agents")
	if err := os.CopyFS(filepath.Join(own, "core_agent_001"), os.DirFS(filepath.Join(corpus, "core_agent_001"))); err != nil {
		t.Fatal(err)
	}
	if err := adkjs.WriteAgentsDir(own, own, "core_agent_001"); err == nil || !strings.Contains(err.Error(), "the corpus's own") {
		t.Errorf("writing into the corpus: %v", err)
	}
	if _, err := os.Stat(filepath.Join(own, "core_agent_001", "root_agent.yaml")); err != nil {
		t.Fatalf("the corpus was damaged: %v", err)
	}
}
