// Command adkgo is the demo agent on ADK Go (google.golang.org/adk): an
// LlmAgent with two function tools and a sub-agent it transfers to, run
// with runner.Run for two user turns. ADK Go's Gemini model reads
// GOOGLE_GEMINI_BASE_URL, so under `adkproxy record -- adkgo` or
// `adkproxy replay -- adkgo` every model call goes through adkproxy; it
// refuses to start without a key, so replay sets a placeholder.
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"strings"

	"google.golang.org/adk/agent"
	"google.golang.org/adk/model"
	"google.golang.org/adk/model/gemini"
	"google.golang.org/adk/runner"
	"google.golang.org/adk/session"
	"google.golang.org/genai"
)

// turns are what the user says.
var turns = []string{
	"What is the weather and the local time in Lisbon?",
	"What should I pack for it?",
}

func main() {
	ctx := context.Background()
	key := os.Getenv("GOOGLE_API_KEY")
	if key == "" {
		key = os.Getenv("GEMINI_API_KEY")
	}
	m, err := gemini.NewModel(ctx, "gemini-2.5-flash", &genai.ClientConfig{APIKey: key, Backend: genai.BackendGeminiAPI})
	if err != nil {
		log.Fatalf("adkgo: %v (set GOOGLE_API_KEY; under adkproxy replay any value will do)", err)
	}
	if err := run(ctx, m, os.Stdout); err != nil {
		log.Fatalf("adkgo: %v", err)
	}
}

// run plays the two turns in one session and writes what each agent said
// and which tools it called.
func run(ctx context.Context, m model.LLM, out io.Writer) error {
	root, err := newAgent(m)
	if err != nil {
		return err
	}
	sessions := session.InMemoryService()
	r, err := runner.New(runner.Config{AppName: "adkgo_demo", Agent: root, SessionService: sessions})
	if err != nil {
		return err
	}
	created, err := sessions.Create(ctx, &session.CreateRequest{AppName: "adkgo_demo", UserID: "demo_user"})
	if err != nil {
		return err
	}
	for _, text := range turns {
		fmt.Fprintf(out, "user: %s\n", text)
		msg := genai.NewContentFromText(text, genai.RoleUser)
		for event, err := range r.Run(ctx, "demo_user", created.Session.ID(), msg, agent.RunConfig{}) {
			if err != nil {
				return err
			}
			if event.Content == nil {
				continue
			}
			for _, p := range event.Content.Parts {
				switch {
				case p.FunctionCall != nil:
					fmt.Fprintf(out, "  %s calls %s(%v)\n", event.Author, p.FunctionCall.Name, p.FunctionCall.Args)
				case p.Text != "" && !p.Thought:
					fmt.Fprintf(out, "%s: %s\n", event.Author, strings.TrimSpace(p.Text))
				}
			}
		}
	}
	return nil
}
