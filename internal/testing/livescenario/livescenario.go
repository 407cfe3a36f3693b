// Package livescenario is a Live API session driven through the official Go
// client (google.golang.org/genai): a weather question answered through a
// tool call, then a second turn. Tests run it against adkproxy recording
// and replaying, in-process and as the golive program, and compare what
// the client saw.
package livescenario

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"cloud.google.com/go/auth"
	"google.golang.org/genai"
)

// Model is the Live model the scenario asks for.
const Model = "gemini-live-2.5-flash-preview"

// Options say how the client reaches the API.
type Options struct {
	// BaseURL is the client's base URL (http:, https:, ws: or wss:);
	// the Go client uses wss: unless it is ws: or wss: already.
	BaseURL string
	APIKey  string
	// Vertex, when set, connects as a Vertex AI client (project and
	// location given, so the LlmBidiService path is used) with Token
	// as its bearer token.
	Vertex bool
	Token  string
	// City is the place the weather question is about.
	City string
}

// Run runs the session and returns, in order, what the client received:
// the tool call, the text of each turn and the usage, one line each.
func Run(ctx context.Context, o Options) ([]string, error) {
	cfg := &genai.ClientConfig{APIKey: o.APIKey, Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: o.BaseURL, APIVersion: "v1beta"}}
	if o.Vertex {
		cfg = &genai.ClientConfig{Backend: genai.BackendVertexAI, Project: "test-project", Location: "us-central1",
			Credentials: staticCredentials(o.Token), HTTPOptions: genai.HTTPOptions{BaseURL: o.BaseURL, APIVersion: "v1beta1"}}
	}
	client, err := genai.NewClient(ctx, cfg)
	if err != nil {
		return nil, err
	}
	config := &genai.LiveConnectConfig{
		ResponseModalities: []genai.Modality{genai.ModalityText},
		SystemInstruction:  genai.NewContentFromText("You are weather_agent. Answer weather questions.", genai.RoleUser),
		Tools: []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{{
			Name: "get_weather", Description: "Current weather for a city",
			Parameters: &genai.Schema{Type: genai.TypeObject, Properties: map[string]*genai.Schema{"city": {Type: genai.TypeString}}},
		}}}},
	}
	session, err := client.Live.Connect(ctx, Model, config)
	if err != nil {
		return nil, err
	}
	defer session.Close()
	var out []string
	city := o.City
	if city == "" {
		city = "Paris"
	}
	if err := session.SendClientContent(genai.LiveClientContentInput{Turns: []*genai.Content{genai.NewContentFromText("What is the weather in "+city+"?", genai.RoleUser)}}); err != nil {
		return out, err
	}
	if out, err = receiveTurn(session, out); err != nil {
		return out, err
	}
	if err := session.SendClientContent(genai.LiveClientContentInput{Turns: []*genai.Content{genai.NewContentFromText("Thanks", genai.RoleUser)}}); err != nil {
		return out, err
	}
	return receiveTurn(session, out)
}

// receiveTurn reads until the turn's usage, answering tool calls.
func receiveTurn(session *genai.Session, out []string) ([]string, error) {
	var text strings.Builder
	for {
		msg, err := session.Receive()
		if err != nil {
			return out, fmt.Errorf("receive: %w", err)
		}
		switch {
		case msg.ToolCall != nil:
			var responses []*genai.FunctionResponse
			for _, c := range msg.ToolCall.FunctionCalls {
				args, _ := json.Marshal(c.Args)
				out = append(out, fmt.Sprintf("toolCall %s %s", c.Name, args))
				responses = append(responses, &genai.FunctionResponse{ID: c.ID, Name: c.Name,
					Response: map[string]any{"city": c.Args["city"], "temp_c": 18, "sky": "sunny"}})
			}
			if err := session.SendToolResponse(genai.LiveToolResponseInput{FunctionResponses: responses}); err != nil {
				return out, err
			}
		case msg.ServerContent != nil:
			if t := msg.ServerContent.ModelTurn; t != nil {
				for _, p := range t.Parts {
					text.WriteString(p.Text)
				}
			}
			if msg.ServerContent.TurnComplete {
				out = append(out, "text "+text.String())
				text.Reset()
			}
		case msg.UsageMetadata != nil:
			u, _ := json.Marshal(msg.UsageMetadata)
			return append(out, "usage "+string(u)), nil
		case msg.SetupComplete != nil:
		default:
			return out, errors.New("unexpected server message")
		}
	}
}

type staticToken string

func (s staticToken) Token(context.Context) (*auth.Token, error) {
	return &auth.Token{Value: string(s), Type: "Bearer"}, nil
}

func staticCredentials(token string) *auth.Credentials {
	return auth.NewCredentials(&auth.CredentialsOptions{TokenProvider: staticToken(token)})
}
