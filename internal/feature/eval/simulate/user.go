// The simulated user's model: one non-streaming call per turn, named for
// the recorder, and the reply read as ADK reads it.

package simulate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/adkproxy/adkproxy/internal/base/genaiconf"
	"github.com/adkproxy/adkproxy/internal/data/scenarios"
	"github.com/adkproxy/adkproxy/internal/engine/inprocess"
	"github.com/adkproxy/adkproxy/scoring"
	"google.golang.org/genai"
)

// ErrNoReply is wrapped when the simulated user's model gave no text: an
// empty answer, only thoughts, or a blocked one. The scenario fails.
var ErrNoReply = errors.New("the simulated user gave no reply")

// TurnKey names a simulated turn's model call (X-Adkproxy-Invocation):
// "<scenario id>/turn-<n>", n counting user turns from 1.
func TurnKey(scenario string, turn int) string { return fmt.Sprintf("%s/turn-%d", scenario, turn) }

// modelConfig reads user_simulator_config.model_configuration (snake_case
// or camelCase keys) as a GenerateContentConfig.
func modelConfig(raw json.RawMessage) (*genai.GenerateContentConfig, error) {
	if len(raw) == 0 {
		raw = scenarios.DefaultModelConfiguration
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("user_simulator_config.model_configuration: %w", err)
	}
	cfg, err := genaiconf.Parse(v)
	if err != nil {
		return nil, fmt.Errorf("user_simulator_config.model_configuration is not a GenerateContentConfig: %w", err)
	}
	return cfg, nil
}

// adkRetry is ADK's retry of the simulated user's model call (its
// evaluation defaults): up to 7 attempts, the first retry after 5 s (plus
// up to 1 s of jitter), each next delay doubled, at most 120 s, on HTTP
// 408, 429, 500, 502, 503 and 504 and on a failed connection. A
// model_configuration whose http_options set retry_options keeps its own.
// Every attempt goes through the recorder: a recording keeps the failed
// answers too, and a replay serves them in order, so it retries alike.
func adkRetry() *genai.HTTPRetryOptions {
	return &genai.HTTPRetryOptions{Attempts: genai.Ptr[int32](7), InitialDelay: genai.Ptr(5.0), MaxDelay: genai.Ptr(120.0),
		ExpBase: genai.Ptr(2.0), HTTPStatusCodes: []int32{408, 429, 500, 502, 503, 504}}
}

// userModel is the simulated user's model and its configuration: called
// with generateContent through client, or, named "openai/MODEL"
// (inprocess.OpenAIPrefix), with chat completions through chat.
type userModel struct {
	client *genai.Client
	chat   *inprocess.Chat
	model  string
	config *genai.GenerateContentConfig
}

// reply asks the model for turn n of scenario with prompt, and returns the
// text of its non-thought parts with the call's usage.
func (u *userModel) reply(ctx context.Context, scenario string, n int, prompt string) (string, scoring.Usage, error) {
	return u.replyAs(ctx, scenario, TurnKey(scenario, n), n, prompt)
}

// userAnswer is what a call answered: its text without thoughts, whether
// it had thoughts, why it gave no text when the answer says ("" when it
// does not), and its usage.
type userAnswer struct {
	text     string
	thoughts bool
	why      string
	usage    scoring.Usage
}

// replyAs is reply with the call named key (X-Adkproxy-Invocation).
func (u *userModel) replyAs(ctx context.Context, scenario, key string, n int, prompt string) (string, scoring.Usage, error) {
	cfg := *u.config
	var opts genai.HTTPOptions
	if cfg.HTTPOptions != nil {
		opts = *cfg.HTTPOptions
	}
	opts.Headers = opts.Headers.Clone()
	if opts.Headers == nil {
		opts.Headers = http.Header{}
	}
	opts.Headers.Set("X-Adkproxy-Cassette", scenario)
	opts.Headers.Set("X-Adkproxy-Invocation", key)
	if opts.RetryOptions == nil {
		opts.RetryOptions = adkRetry()
	}
	cfg.HTTPOptions = &opts
	ask := u.generate
	if _, ok := inprocess.ChatModel(u.model); ok {
		ask = u.complete
	}
	a, err := ask(ctx, &cfg, prompt)
	if err != nil {
		var apiErr genai.APIError
		var chatErr *inprocess.ChatError
		switch {
		case errors.As(err, &apiErr) && strings.HasPrefix(apiErr.Message, "adkproxy: "):
			return "", scoring.Usage{}, fmt.Errorf("turn %d was not recorded: %s", n, strings.TrimPrefix(apiErr.Message, "adkproxy: "))
		case errors.As(err, &chatErr) && strings.HasPrefix(chatErr.Message, "adkproxy: "):
			return "", scoring.Usage{}, fmt.Errorf("turn %d was not recorded: %s", n, strings.TrimPrefix(chatErr.Message, "adkproxy: "))
		}
		return "", scoring.Usage{}, fmt.Errorf("the simulated user's model: %w", err)
	}
	if strings.TrimSpace(a.text) == "" {
		why := a.why
		switch {
		case why != "":
		case a.thoughts:
			why = "only thoughts were returned"
		default:
			why = "the answer was empty"
		}
		return "", a.usage, fmt.Errorf("turn %d: %w (%s)", n, ErrNoReply, why)
	}
	return a.text, a.usage, nil
}

// generate asks with generateContent; the genai client retries per cfg.
func (u *userModel) generate(ctx context.Context, cfg *genai.GenerateContentConfig, prompt string) (userAnswer, error) {
	content := []*genai.Content{{Role: genai.RoleUser, Parts: []*genai.Part{{Text: prompt}}}}
	resp, err := u.client.Models.GenerateContent(ctx, u.model, content, cfg)
	if err != nil {
		return userAnswer{}, err
	}
	var a userAnswer
	if m := resp.UsageMetadata; m != nil {
		a.usage = scoring.Usage{Prompt: int64(m.PromptTokenCount), Candidates: int64(m.CandidatesTokenCount),
			Cached: int64(m.CachedContentTokenCount), Thoughts: int64(m.ThoughtsTokenCount), Total: int64(m.TotalTokenCount)}
	}
	var texts []string
	if resp.PromptFeedback != nil && resp.PromptFeedback.BlockReason != "" {
		a.why = "blocked: " + string(resp.PromptFeedback.BlockReason)
	}
	for _, c := range resp.Candidates {
		if c.FinishReason != "" && c.FinishReason != genai.FinishReasonStop && c.FinishReason != genai.FinishReasonMaxTokens && a.why == "" {
			a.why = "finish reason " + string(c.FinishReason)
		}
		if c.Content == nil {
			continue
		}
		for _, p := range c.Content.Parts {
			switch {
			case p.Thought:
				a.thoughts = true
			case p.Text != "":
				texts = append(texts, p.Text)
			}
		}
	}
	a.text = strings.Join(texts, "")
	return a, nil
}

// complete asks with a chat completion, retrying as cfg's retry options
// say (the genai client's rule, kept for the other endpoint): every
// attempt goes through the recorder, so a replay meets the same answers.
func (u *userModel) complete(ctx context.Context, cfg *genai.GenerateContentConfig, prompt string) (userAnswer, error) {
	if u.chat == nil {
		return userAnswer{}, fmt.Errorf("the model %s is served over the OpenAI-compatible endpoint, and no client for it was given", u.model)
	}
	model, _ := inprocess.ChatModel(u.model)
	call := inprocess.ChatCall{Model: model, User: []string{prompt}, Config: cfg, Header: cfg.HTTPOptions.Headers}
	ro := cfg.HTTPOptions.RetryOptions
	delay := time.Duration(deref(ro.InitialDelay, 1) * float64(time.Second))
	for attempt := 1; ; attempt++ {
		st, err := u.chat.Complete(ctx, call)
		var chatErr *inprocess.ChatError
		retry := err != nil && (!errors.As(err, &chatErr) || slices.Contains(ro.HTTPStatusCodes, int32(chatErr.Code)))
		if !retry || attempt >= int(deref(ro.Attempts, 1)) || ctx.Err() != nil {
			if err != nil {
				return userAnswer{}, err
			}
			a := userAnswer{text: st.Text}
			if st.Usage != nil {
				a.usage = scoring.Usage{Prompt: int64(st.Usage.Prompt), Candidates: int64(st.Usage.Candidates),
					Cached: int64(st.Usage.Cached), Thoughts: int64(st.Usage.Thoughts), Total: int64(st.Usage.Total)}
			}
			if f := st.FinishReason; f != "" && f != string(genai.FinishReasonStop) && f != string(genai.FinishReasonMaxTokens) {
				a.why = "finish reason " + f
			}
			return a, nil
		}
		select {
		case <-ctx.Done():
			return userAnswer{}, ctx.Err()
		case <-time.After(delay):
		}
		delay = min(time.Duration(float64(delay)*deref(ro.ExpBase, 2)), time.Duration(deref(ro.MaxDelay, 60)*float64(time.Second)))
	}
}

// deref is *p, or def when p is nil.
func deref[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}
