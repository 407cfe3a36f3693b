package adkgo_test

import (
	"bytes"
	"net/http/httptest"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/adk/agent"
	"google.golang.org/adk/agent/llmagent"
	"google.golang.org/adk/model/gemini"
	"google.golang.org/adk/runner"
	"google.golang.org/adk/session"
	"google.golang.org/adk/tool"
	"google.golang.org/adk/tool/functiontool"
	"google.golang.org/adk/tool/toolconfirmation"
	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/adkproxytest"
	"github.com/adkproxy/adkproxy/internal/base/adkapi"
	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/proxy"
)

type bookArgs struct {
	City string `json:"city"`
}

type bookResult struct {
	Status string `json:"status"`
	City   string `json:"city"`
}

// bookWithConfirmation runs ADK Go's tool confirmation flow in process
// through p: a RequireConfirmation tool, the user's turn, then the answer
// to ADK's adk_request_confirmation (approve or refuse, in either of ADK's
// shapes) as a new run. It returns the texts of the agent's events.
func bookWithConfirmation(t *testing.T, p *adkproxytest.Proxy, approve, asJSONString bool) string {
	t.Helper()
	ctx := t.Context()
	m, err := gemini.NewModel(ctx, "gemini-2.5-flash", p.ClientConfig())
	if err != nil {
		t.Fatal(err)
	}
	book, err := functiontool.New(functiontool.Config{Name: "book_room", Description: "Books a hotel room in a city.", RequireConfirmation: true},
		func(_ agent.ToolContext, a bookArgs) (bookResult, error) {
			return bookResult{Status: "booked", City: a.City}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	root, err := llmagent.New(llmagent.Config{Name: "booker", Model: m, Instruction: "Book rooms with book_room.", Tools: []tool.Tool{book}})
	if err != nil {
		t.Fatal(err)
	}
	sessions := session.InMemoryService()
	r, err := runner.New(runner.Config{AppName: "booker", Agent: root, SessionService: sessions})
	if err != nil {
		t.Fatal(err)
	}
	created, err := sessions.Create(ctx, &session.CreateRequest{AppName: "booker", UserID: "user"})
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	run := func(msg *genai.Content) []*genai.FunctionCall {
		var asks []*genai.FunctionCall
		for ev, err := range r.Run(ctx, "user", created.Session.ID(), msg, agent.RunConfig{}) {
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			if ev.Content == nil {
				continue
			}
			for _, part := range ev.Content.Parts {
				switch {
				case part.FunctionCall != nil && part.FunctionCall.Name == toolconfirmation.FunctionCallName:
					asks = append(asks, part.FunctionCall)
					log.WriteString("asks to confirm\n")
				case part.FunctionResponse != nil:
					log.WriteString("result " + part.FunctionResponse.Name + "\n")
				case part.Text != "":
					log.WriteString(part.Text + "\n")
				}
			}
		}
		return asks
	}
	asks := run(genai.NewContentFromText("Book a room in Paris", genai.RoleUser))
	if len(asks) != 1 {
		t.Fatalf("ADK Go asked %d confirmations:\n%s", len(asks), log.String())
	}
	run(adkapi.ConfirmationAnswer(asks, approve, asJSONString))
	return log.String()
}

// ADK Go's tool confirmation (a RequireConfirmation function tool)
// recorded through the proxy: approved in one shape and refused in the
// other, each is one invocation; ls, diff and the OTLP export show the
// refusal as ADK Go words it; replayed offline, the same run.
func TestADKGoToolConfirmation(t *testing.T) {
	up := httptest.NewServer(&fakegemini.Handler{})
	defer up.Close()
	upstream, _ := url.Parse(up.URL)
	out := testutil.OutDir(t)
	adkproxy := testutil.BuildAdkproxy(t)
	cli := func(args ...string) (string, int) {
		cmd := exec.CommandContext(t.Context(), adkproxy, args...)
		var b bytes.Buffer
		cmd.Stdout, cmd.Stderr = &b, &b
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return b.String(), code
	}
	for _, tc := range []struct {
		name          string
		approve, json bool
		want          string
	}{
		{"approved", true, true, "book_room returned {\"city\":\"Paris\",\"status\":\"booked\"}."},
		{"refused", false, false, `book_room returned {"error":"error tool \"book_room\" call is rejected"}.`},
	} {
		dir := filepath.Join(out, tc.name)
		p, err := adkproxytest.New(dir, "default", adkproxytest.Record(true), adkproxytest.Configure(func(c *proxy.Config) { c.Upstream = upstream }))
		if err != nil {
			t.Fatal(err)
		}
		log := bookWithConfirmation(t, p, tc.approve, tc.json)
		if err := p.Close(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !strings.Contains(log, tc.want) {
			t.Errorf("%s: the agent's events lack %q:\n%s", tc.name, tc.want, log)
		}
		ls, code := cli("ls", dir)
		if code != 0 || !strings.Contains(ls, "1 session, 1 invocation, 2 steps") {
			t.Errorf("%s: ls exit %d:\n%s", tc.name, code, ls)
		}
		if refused := strings.Contains(ls, `tools: confirm book_room(city="Paris")? → refused`); refused == tc.approve {
			t.Errorf("%s: ls:\n%s", tc.name, ls)
		}

		// Offline: the same flow replays from the recording.
		p, err = adkproxytest.New(dir, "default", adkproxytest.Record(false))
		if err != nil {
			t.Fatal(err)
		}
		bookWithConfirmation(t, p, tc.approve, !tc.json)
		if err := p.Close(); err != nil {
			t.Errorf("%s: replay: %v", tc.name, err)
		}
	}
	d, code := cli("diff", filepath.Join(out, "approved"), filepath.Join(out, "refused"), "--fail-on", "tools")
	if code != 1 || !strings.Contains(d, "book_room confirmation: approved → refused") {
		t.Errorf("diff: exit %d\n%s", code, d)
	}
	otlp, code := cli("export", filepath.Join(out, "refused"), "--format", "otlp-json")
	if code != 0 || !strings.Contains(otlp, `"key": "adkproxy.tool.confirmation"`) {
		t.Errorf("otlp: exit %d\n%s", code, otlp)
	}
}
