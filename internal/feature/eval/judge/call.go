// One judge call: its key, the headers that name its cassette and key, the
// retry policy, and the count of calls and tokens for the cost line.

package judge

import (
	"context"
	"errors"
	"fmt"
	"github.com/adkproxy/adkproxy/internal/base/adkversion"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode"

	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/internal/engine/inprocess"
	"github.com/adkproxy/adkproxy/scoring"
)

// Attempts is how many times a judge call is tried: a 429 or 5xx answer
// (or a transport error) is retried after Backoff(1), then Backoff(2).
// Each attempt is its own recorded exchange, so replay meets the same
// sequence (a recorded 429, then the success) in the same order.
const Attempts = 3

// DefaultBackoff waits 2s before the second attempt and 4s before the
// third.
func DefaultBackoff(attempt int) time.Duration { return time.Duration(1<<attempt) * time.Second }

// ErrNotRecorded is wrapped by a judge call that replay could not answer:
// the request was not recorded, or differs from the recording at its place
// (adkproxy's own error, with the field-level difference in its message).
var ErrNotRecorded = errors.New("judge call not recorded")

// key names one judge call; it is sent as X-Adkproxy-Invocation and names
// the call in every message.
type key struct {
	Case       string
	Invocation int // from 1
	Criterion  string
	Sample     string // "1".."n"; hallucinations_v1: "<step>.segmenter" or "<step>.validator"
}

func (k key) String() string {
	return headerSafe(fmt.Sprintf("%s/%d/%s/%s", k.Case, k.Invocation, k.Criterion, k.Sample))
}

// headerSafe makes s a valid header value: control characters (which an
// eval id rarely holds) become spaces.
func headerSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}

// describe names the call for a person.
func (k key) describe() string {
	return fmt.Sprintf("case %q, invocation %d, %s, sample %s", k.Case, k.Invocation, k.Criterion, k.Sample)
}

// Usage is what the judge calls cost: the number of calls (attempts
// included) and their tokens, by model.
type Usage struct {
	Calls  int
	Tokens map[string]scoring.Usage
}

// Judge implements scoring.Judge with a genai client, and a chat client
// for judge models served over the OpenAI-compatible endpoint.
type Judge struct {
	client  *genai.Client
	chat    *inprocess.Chat
	backoff func(attempt int) time.Duration
	prompts Prompts
	adk     adkversion.Version

	mu    sync.Mutex
	usage Usage
}

// Options configure New.
type Options struct {
	// Backoff is the wait before attempt n+1 after attempt n failed with a
	// 429 or 5xx; nil is DefaultBackoff. Replay, where nothing is to be
	// waited for, passes one returning 0.
	Backoff func(attempt int) time.Duration
	// Prompts replace adkproxy's prompts by kind (LoadPrompts); nil keeps
	// them all.
	Prompts Prompts
	// ADKVersion is the ADK release whose prompt format is followed where
	// releases differ (the rubric list); "" is the newest.
	ADKVersion string
	// Chat calls judge models named "openai/MODEL" (inprocess.OpenAIPrefix)
	// on the OpenAI-compatible endpoint, through the same recorder as
	// client; nil when no criterion names one.
	Chat *inprocess.Chat
}

// New returns a judge that calls the model through client.
func New(client *genai.Client, opts Options) *Judge {
	j := &Judge{client: client, chat: opts.Chat, backoff: opts.Backoff, prompts: opts.Prompts, usage: Usage{Tokens: map[string]scoring.Usage{}}}
	j.adk, _ = adkversion.Parse(opts.ADKVersion)
	if j.backoff == nil {
		j.backoff = DefaultBackoff
	}
	return j
}

// Usage returns the calls made so far and their tokens.
func (j *Judge) Usage() Usage {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := Usage{Calls: j.usage.Calls, Tokens: make(map[string]scoring.Usage, len(j.usage.Tokens))}
	for m, u := range j.usage.Tokens {
		out.Tokens[m] = u
	}
	return out
}

// call sends parts as one user turn to model and returns the answer's
// text, retrying per Attempts. cassette names the case's cassette.
func (j *Judge) call(ctx context.Context, cassette string, k key, o *options, parts []string) (string, error) {
	header := http.Header{
		"X-Adkproxy-Cassette":   {headerSafe(cassette)},
		"X-Adkproxy-Invocation": {k.String()},
	}
	var err error
	attempt := 1
	for ; ; attempt++ {
		var text string
		text, err = j.attempt(ctx, o, parts, header)
		if err == nil {
			return text, nil
		}
		code, msg, answered := answerError(err)
		if answered && strings.HasPrefix(msg, "adkproxy: ") && code == http.StatusBadRequest {
			return "", fmt.Errorf("%s: %w: %s", k.describe(), ErrNotRecorded, strings.TrimPrefix(msg, "adkproxy: "))
		}
		retryable := !answered || code == http.StatusTooManyRequests || code >= 500
		if !retryable || attempt == Attempts || ctx.Err() != nil {
			break
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(j.backoff(attempt)):
		}
	}
	return "", fmt.Errorf("%s: the judge failed (%d attempt(s)): %w", k.describe(), attempt, err)
}

// attempt makes one call: a chat completion for a model named
// "openai/MODEL" (inprocess.OpenAIPrefix), else generateContent.
func (j *Judge) attempt(ctx context.Context, o *options, parts []string, header http.Header) (string, error) {
	if model, ok := inprocess.ChatModel(o.Model); ok {
		if j.chat == nil {
			return "", fmt.Errorf("the judge model %s is served over the OpenAI-compatible endpoint, and this judge has no client for it", o.Model)
		}
		st, err := j.chat.Complete(ctx, inprocess.ChatCall{Model: model, User: parts, Config: o.Config, Header: header})
		var u scoring.Usage
		if st.Usage != nil {
			u = scoring.Usage{Prompt: int64(st.Usage.Prompt), Candidates: int64(st.Usage.Candidates), Cached: int64(st.Usage.Cached),
				Thoughts: int64(st.Usage.Thoughts), Total: int64(st.Usage.Total)}
		}
		j.count(model, u) // priced as the Gemini model it names
		return st.Text, err
	}
	content := &genai.Content{Role: genai.RoleUser}
	for _, p := range parts {
		content.Parts = append(content.Parts, &genai.Part{Text: p})
	}
	cfg := &genai.GenerateContentConfig{}
	if o.Config != nil {
		*cfg = *o.Config
	}
	cfg.HTTPOptions = &genai.HTTPOptions{Headers: header}
	cfg.AutomaticContinuation = genai.Ptr(false) // one request per sample
	resp, err := j.client.Models.GenerateContent(ctx, o.Model, []*genai.Content{content}, cfg)
	var u scoring.Usage
	if resp != nil && resp.UsageMetadata != nil {
		m := resp.UsageMetadata
		u = scoring.Usage{Prompt: int64(m.PromptTokenCount), Candidates: int64(m.CandidatesTokenCount), Cached: int64(m.CachedContentTokenCount),
			Thoughts: int64(m.ThoughtsTokenCount), ToolUse: int64(m.ToolUsePromptTokenCount), Total: int64(m.TotalTokenCount)}
	}
	j.count(o.Model, u)
	if err != nil {
		return "", err
	}
	return resp.Text(), nil
}

// answerError is the status and message of an error the model's endpoint
// answered with; answered is false for a transport error.
func answerError(err error) (code int, msg string, answered bool) {
	var apiErr genai.APIError
	var chatErr *inprocess.ChatError
	switch {
	case errors.As(err, &apiErr):
		return apiErr.Code, apiErr.Message, true
	case errors.As(err, &chatErr):
		return chatErr.Code, chatErr.Message, true
	}
	return 0, "", false
}

// count adds a call and its tokens to the model's.
func (j *Judge) count(model string, u scoring.Usage) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.usage.Calls++
	t := j.usage.Tokens[model]
	t.Prompt += u.Prompt
	t.Candidates += u.Candidates
	t.Cached += u.Cached
	t.Thoughts += u.Thoughts
	t.ToolUse += u.ToolUse
	t.Total += u.Total
	if u != (scoring.Usage{}) || j.usage.Tokens[model] != (scoring.Usage{}) {
		j.usage.Tokens[model] = t
	}
}
