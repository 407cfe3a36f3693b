// adkproxy's own model calls to a model served over Gemini's
// OpenAI-compatible endpoint (a judge or simulated-user model named
// "openai/MODEL"): one chat completion per call, sent through the recorder
// and read back through internal/wire like any agent's.

package inprocess

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/wire"
)

// OpenAIPrefix marks a model name served over the OpenAI-compatible
// endpoint, as LiteLLM (and so ADK's LiteLlm) spells it: "openai/MODEL"
// sends chat completions naming MODEL to ChatPath on the upstream.
const OpenAIPrefix = "openai/"

// ChatPath is the OpenAI-compatible endpoint's chat completions, under the
// Gemini API's base URL (a judge's or simulated user's --*-base-url).
const ChatPath = "/v1beta/openai/chat/completions"

// ChatModel is the model a name with OpenAIPrefix names; ok is false for
// any other name (a Gemini model, called with generateContent).
func ChatModel(name string) (model string, ok bool) {
	return strings.CutPrefix(name, OpenAIPrefix)
}

// CheckModel says what is wrong with a model name a config gives, naming
// nothing (the caller names the field): empty, spaces, "openai/" with no
// model, or another provider's prefix (anthropic/..., which adkproxy does
// not call).
func CheckModel(name string) error {
	switch {
	case strings.TrimSpace(name) == "":
		return fmt.Errorf("want a model name, such as gemini-2.5-flash or %sgemini-2.5-flash", OpenAIPrefix)
	case strings.ContainsFunc(name, func(r rune) bool { return r <= ' ' || r == 0x7f }):
		return fmt.Errorf("model name %q has spaces or control characters", name)
	}
	if m, ok := ChatModel(name); ok {
		if m == "" {
			return fmt.Errorf("%q names no model after %q: write %sgemini-2.5-flash", name, OpenAIPrefix, OpenAIPrefix)
		}
		return nil
	}
	if provider, _, ok := strings.Cut(name, "/"); ok && !slices.Contains(geminiResourceRoots, provider) {
		return fmt.Errorf("model %q: the prefix %q is no provider adkproxy calls; name a Gemini model (gemini-2.5-flash, models/..., projects/...) "+
			"or one served over Gemini's OpenAI-compatible endpoint as %sMODEL", name, provider+"/", OpenAIPrefix)
	}
	return nil
}

// geminiResourceRoots are the first segments of a Gemini model's resource
// name, which the genai SDK sends as they are.
var geminiResourceRoots = []string{"models", "tunedModels", "projects", "publishers"}

// Chat sends chat completions through the recorder.
type Chat struct {
	client *http.Client
	key    string
}

// Chat is a chat completion client whose calls the recorder takes, with
// key sent as the bearer token (a placeholder in replay, which sends
// none; the recorder never writes it).
func (r *Recorder) Chat(key string) *Chat { return &Chat{client: r.HTTPClient(), key: key} }

// ChatCall is one call: a user turn of texts to Model (without
// OpenAIPrefix), with Config's generation settings and Header's headers
// (the X-Adkproxy-* that name its cassette and invocation).
type ChatCall struct {
	Model  string
	User   []string
	Config *genai.GenerateContentConfig
	Header http.Header
}

// ChatError is an answer other than 200: its status and the message of
// its error body (Gemini's, OpenAI's, or adkproxy's own, which starts
// "adkproxy: ").
type ChatError struct {
	Code    int
	Message string
}

func (e *ChatError) Error() string {
	return fmt.Sprintf("Error %d, Message: %s", e.Code, e.Message)
}

// Complete sends c and reads the answer as a step (wire.StepOf): its text
// without thoughts, finish reason (Gemini's names), usage and model.
func (ch *Chat) Complete(ctx context.Context, c ChatCall) (wire.Step, error) {
	body, err := ChatBody(c)
	if err != nil {
		return wire.Step{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, BaseURL+ChatPath, bytes.NewReader(body))
	if err != nil {
		return wire.Step{}, err
	}
	for k, v := range c.Header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+ch.key)
	start := time.Now()
	resp, err := ch.client.Do(req)
	if err != nil {
		return wire.Step{}, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return wire.Step{}, err
	}
	if resp.StatusCode != http.StatusOK {
		return wire.Step{}, &ChatError{Code: resp.StatusCode, Message: wire.ChatErrorMessage(data)}
	}
	x := &cassettes.Exchange{Request: cassettes.Request{Method: http.MethodPost, Path: ChatPath, Body: body},
		Response: cassettes.Response{Status: resp.StatusCode, Header: resp.Header, Body: data, Latency: time.Since(start)}}
	return wire.StepOf(x), nil
}

// ChatBody is c's request body. A setting of Config the endpoint has no
// field for is an error naming it, rather than a call made without it.
func ChatBody(c ChatCall) ([]byte, error) {
	body := map[string]any{"model": c.Model}
	var msgs []any
	cfg := c.Config
	if cfg == nil {
		cfg = &genai.GenerateContentConfig{}
	}
	if si := cfg.SystemInstruction; si != nil {
		var texts []string
		for _, p := range si.Parts {
			if p != nil && p.Text != "" {
				texts = append(texts, p.Text)
			}
		}
		msgs = append(msgs, map[string]any{"role": "system", "content": strings.Join(texts, "\n")})
	}
	msgs = append(msgs, map[string]any{"role": "user", "content": strings.Join(c.User, "")})
	body["messages"] = msgs
	if err := chatSettings(cfg, body); err != nil {
		return nil, err
	}
	return json.Marshal(body)
}

// chatSettings sets body's fields from cfg: each GenerateContentConfig
// setting that has a chat completion field (Gemini's compatibility layer
// maps them back), thinking as Gemini's own extra_body.google field.
// include_thoughts is not sent: the layer would return the thoughts in
// the answer's text.
func chatSettings(cfg *genai.GenerateContentConfig, body map[string]any) error {
	set := func(name string, v any) { body[name] = v }
	if cfg.Temperature != nil {
		set("temperature", *cfg.Temperature)
	}
	if cfg.TopP != nil {
		set("top_p", *cfg.TopP)
	}
	if cfg.MaxOutputTokens != 0 {
		set("max_tokens", cfg.MaxOutputTokens)
	}
	if len(cfg.StopSequences) > 0 {
		set("stop", cfg.StopSequences)
	}
	if cfg.Seed != nil {
		set("seed", *cfg.Seed)
	}
	if cfg.PresencePenalty != nil {
		set("presence_penalty", *cfg.PresencePenalty)
	}
	if cfg.FrequencyPenalty != nil {
		set("frequency_penalty", *cfg.FrequencyPenalty)
	}
	if cfg.CandidateCount != 0 {
		set("n", cfg.CandidateCount)
	}
	switch cfg.ResponseMIMEType {
	case "", "text/plain":
	case "application/json":
		set("response_format", map[string]any{"type": "json_object"})
	default:
		return fmt.Errorf("response_mime_type %q has no OpenAI-compatible field (only application/json)", cfg.ResponseMIMEType)
	}
	if t := cfg.ThinkingConfig; t != nil && t.ThinkingBudget != nil {
		set("extra_body", map[string]any{"google": map[string]any{"thinking_config": map[string]any{"thinking_budget": *t.ThinkingBudget}}})
	}
	return unmapped(cfg)
}

// chatMapped are the GenerateContentConfig fields (as JSON) chatSettings
// sends, and those that are no part of the body.
var chatMapped = []string{"temperature", "topP", "maxOutputTokens", "stopSequences", "seed", "presencePenalty",
	"frequencyPenalty", "candidateCount", "responseMimeType", "thinkingConfig", "systemInstruction", "httpOptions"}

// unmapped is an error naming cfg's settings chatSettings does not send.
func unmapped(cfg *genai.GenerateContentConfig) error {
	b, err := json.Marshal(cfg)
	if err != nil {
		return err
	}
	var fields map[string]any
	json.Unmarshal(b, &fields)
	var left []string
	for k := range fields {
		if !slices.Contains(chatMapped, k) {
			left = append(left, k)
		}
	}
	if t := cfg.ThinkingConfig; t != nil && t.ThinkingLevel != "" {
		left = append(left, "thinkingConfig.thinkingLevel")
	}
	if len(left) == 0 {
		return nil
	}
	slices.Sort(left)
	return fmt.Errorf("%s: no OpenAI-compatible field carries it; remove it, or name a Gemini model (without %q) to call generateContent",
		strings.Join(left, ", "), OpenAIPrefix)
}
