// A Live API connection's steps, cut from its frames: each user turn starts an
// invocation, the model's answers up to each tool call are its steps, and
// each step is shaped like a generateContent call so that trajectories,
// ls, scoring and diff read it as they read HTTP steps.

package wire

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
)

// LiveAgent names the agent of a Live step whose setup names none (no ADK
// "internal name" in its system instruction).
const LiveAgent = "live"

// LiveSteps derives the steps of a recorded Live connection, placed in
// session. A clientContent turn with turnComplete (or realtimeInput text)
// starts an invocation whose user text is the turn's; so does a spoken
// turn (realtimeInput audio, video or media), from its first frame after
// the previous answer, once the server answers it: its user text is the
// server's inputTranscription. The model's frames up to a toolCall or
// turnComplete are one step, and each toolResponse starts the next step;
// a step's outputTranscription is its text, so a spoken answer has a final
// response. Every step is an exchange in generateContent's shape:
// the request holds the history so far with the setup's system instruction
// and tools, the response the model's parts and usage. Client frames may
// spell keys in snake_case (Python) or camelCase (JS, Go). Frames that are
// not JSON are passed over.
func LiveSteps(x *cassettes.Exchange, session int) []*cassettes.Exchange {
	if !x.IsLive() {
		return nil
	}
	b := liveBuilder{session: session, path: x.Request.Path}
	for _, f := range x.Live.Frames {
		if f.Kind == cassettes.FrameClose {
			continue
		}
		v, ok := parseFrame(f.Data)
		if !ok {
			continue
		}
		msg := camelKeys(v)
		if f.FromClient {
			b.client(msg, f.At)
		} else {
			b.server(msg, f.At)
		}
	}
	b.finish()
	return b.steps
}

// WithLiveSteps is xs with each Live connection replaced by its steps, one
// session per connection, numbered after the highest session in xs.
func WithLiveSteps(xs []*cassettes.Exchange) []*cassettes.Exchange {
	last, live := 0, false
	for _, x := range xs {
		if x.IsLive() {
			live = true
		} else if x.Place != nil {
			last = max(last, x.Place.Session)
		}
	}
	if !live {
		return xs
	}
	out := make([]*cassettes.Exchange, 0, len(xs))
	for _, x := range xs {
		if !x.IsLive() {
			out = append(out, x)
			continue
		}
		last++
		out = append(out, LiveSteps(x, last)...)
	}
	return out
}

type liveBuilder struct {
	session int
	path    string
	setup   map[string]any
	history []any

	invocation int
	user       string
	// spoken: realtimeInput media arrived since the last answer, at
	// spokenAt; the invocation starts when the server answers it.
	spoken   bool
	spokenAt time.Duration
	// heard is the user content of a spoken invocation, whose text the
	// input transcription fills in; transcript is the step's output
	// transcription.
	heard      map[string]any
	transcript string
	step       int
	open       bool // a step is being answered
	start, end time.Duration
	parts      []any
	usage      map[string]any
	done       bool // the step's answer ended (toolCall or turnComplete)

	steps []*cassettes.Exchange
}

func (b *liveBuilder) client(msg map[string]any, at time.Duration) {
	if setup, ok := msg["setup"].(map[string]any); ok {
		b.setup = setup
		return
	}
	if cc, ok := msg["clientContent"].(map[string]any); ok {
		turns, _ := cc["turns"].([]any)
		b.history = append(b.history, turns...)
		if done, _ := cc["turnComplete"].(bool); done {
			b.newInvocation(lastUserText(turns), at)
		}
		return
	}
	if ri, ok := msg["realtimeInput"].(map[string]any); ok {
		if text, _ := ri["text"].(string); text != "" {
			b.history = append(b.history, map[string]any{"role": "user", "parts": []any{map[string]any{"text": text}}})
			b.newInvocation(text, at)
		} else if !b.spoken && (!b.open || b.done) && hasMedia(ri) {
			b.spoken, b.spokenAt = true, at
		}
		return
	}
	if tr, ok := msg["toolResponse"].(map[string]any); ok {
		responses, _ := tr["functionResponses"].([]any)
		var parts []any
		for _, r := range responses {
			parts = append(parts, map[string]any{"functionResponse": r})
		}
		b.finish()
		b.history = append(b.history, map[string]any{"role": "user", "parts": parts})
		if b.invocation == 0 {
			b.invocation = 1
		}
		b.step++
		b.begin(at)
	}
}

func (b *liveBuilder) newInvocation(user string, at time.Duration) {
	b.finish()
	b.invocation++
	b.user, b.step = user, 0
	b.heard, b.spoken = nil, false
	b.begin(at)
}

// hasMedia: a realtimeInput frame carries audio, video or media chunks.
func hasMedia(ri map[string]any) bool {
	for _, k := range []string{"audio", "video", "media", "mediaChunks"} {
		if ri[k] != nil {
			return true
		}
	}
	return false
}

// hear starts the spoken invocation the server is answering, its user
// content in the history to be filled in by the transcription.
func (b *liveBuilder) hear() {
	at := b.spokenAt
	b.newInvocation("", at)
	b.heard = map[string]any{"role": "user", "parts": []any{map[string]any{"text": ""}}}
	b.history = append(b.history, b.heard)
}

func (b *liveBuilder) begin(at time.Duration) {
	b.open, b.done = true, false
	b.start, b.end = at, at
	b.parts, b.usage, b.transcript = nil, nil, ""
}

func (b *liveBuilder) server(msg map[string]any, at time.Duration) {
	sc, _ := msg["serverContent"].(map[string]any)
	if b.spoken && (sc != nil || msg["toolCall"] != nil) {
		b.hear()
	}
	if !b.open {
		return // setupComplete, or frames outside any turn
	}
	if sc != nil {
		if t, ok := sc["inputTranscription"].(map[string]any); ok && b.heard != nil {
			text, _ := t["text"].(string)
			b.user += text
			b.heard["parts"] = []any{map[string]any{"text": strings.TrimSpace(b.user)}}
		}
		if t, ok := sc["outputTranscription"].(map[string]any); ok {
			text, _ := t["text"].(string)
			b.transcript += text
			b.end = at
		}
		if turn, ok := sc["modelTurn"].(map[string]any); ok {
			parts, _ := turn["parts"].([]any)
			b.addParts(parts)
			b.end = at
		}
		if done, _ := sc["turnComplete"].(bool); done {
			b.done, b.end = true, at
		}
	}
	if tc, ok := msg["toolCall"].(map[string]any); ok {
		calls, _ := tc["functionCalls"].([]any)
		for _, c := range calls {
			b.parts = append(b.parts, map[string]any{"functionCall": c})
		}
		b.done, b.end = true, at
	}
	if u, ok := msg["usageMetadata"].(map[string]any); ok {
		b.usage = u
		b.end = at
	}
}

// addParts appends the model's parts, joining text that arrives in pieces
// into one text part, as a streamed answer reads.
func (b *liveBuilder) addParts(parts []any) {
	for _, p := range parts {
		text, isText := textOnly(p)
		if n := len(b.parts); isText && n > 0 {
			if prev, ok := textOnly(b.parts[n-1]); ok {
				b.parts[n-1] = map[string]any{"text": prev + text}
				continue
			}
		}
		b.parts = append(b.parts, p)
	}
}

func textOnly(p any) (string, bool) {
	m, ok := p.(map[string]any)
	if !ok || len(m) != 1 {
		return "", false
	}
	text, ok := m["text"].(string)
	return text, ok
}

// finish closes the open step and files it.
func (b *liveBuilder) finish() {
	if !b.open {
		return
	}
	b.open = false
	req := map[string]any{"contents": append([]any{}, b.history...)}
	model := ""
	if b.setup != nil {
		for _, k := range []string{"systemInstruction", "tools", "generationConfig"} {
			if v, ok := b.setup[k]; ok {
				req[k] = v
			}
		}
		model, _ = b.setup["model"].(string)
	}
	parts := append([]any{}, b.parts...)
	if t := strings.TrimSpace(b.transcript); t != "" {
		parts = append(parts, map[string]any{"text": t})
	}
	content := map[string]any{"role": "model", "parts": parts}
	b.history = append(b.history, content)
	candidate := map[string]any{"content": content, "index": 0}
	if b.done {
		candidate["finishReason"] = "STOP"
	}
	resp := map[string]any{"candidates": []any{candidate}}
	if b.usage != nil {
		resp["usageMetadata"] = liveUsage(b.usage)
	}
	if model != "" {
		resp["modelVersion"] = ModelOfPath(model)
	}
	reqBody, _ := json.Marshal(req)
	respBody, _ := json.Marshal(resp)
	agent := AgentName(req["labels"], req["systemInstruction"])
	if agent == "" {
		agent = LiveAgent
	}
	user := b.user
	if b.heard != nil {
		user = strings.TrimSpace(user)
	}
	b.steps = append(b.steps, &cassettes.Exchange{
		Request: cassettes.Request{Method: "POST", Path: livePathFor(b.path, model), Body: reqBody},
		Response: cassettes.Response{Status: 200, Body: respBody, End: cassettes.EndComplete,
			Latency: b.end - b.start},
		Place: &cassettes.Place{Session: b.session, Invocation: b.invocation, User: user, Step: b.step, Agent: agent},
	})
}

// liveUsage names the Live API's usage fields as generateContent does.
func liveUsage(u map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range u {
		if k == "responseTokenCount" {
			k = "candidatesTokenCount"
		}
		out[k] = v
	}
	return out
}

// livePathFor is the path a Live step is shown under:
// /{version}/models/{model}:bidiGenerateContent, the version read from the
// connection's path.
func livePathFor(connPath, model string) string {
	version := "v1beta"
	if i := strings.Index(connPath, "/ws/google."); i >= 0 {
		for _, seg := range strings.Split(connPath[i:], ".") {
			if len(seg) > 1 && seg[0] == 'v' && seg[1] >= '0' && seg[1] <= '9' {
				version = seg
				break
			}
		}
	}
	if m := ModelOfPath(model); m != "" {
		model = m
	}
	return "/" + version + "/models/" + model + ":bidiGenerateContent"
}

// lastUserText is the text of the last turn.
func lastUserText(turns []any) string {
	if len(turns) == 0 {
		return ""
	}
	turn, _ := turns[len(turns)-1].(map[string]any)
	parts, _ := turn["parts"].([]any)
	var texts []string
	for _, p := range parts {
		if m, ok := p.(map[string]any); ok {
			if t, ok := m["text"].(string); ok {
				texts = append(texts, t)
			}
		}
	}
	return strings.Join(texts, "\n")
}

// parseFrame decodes a frame's JSON object as the matcher does (numbers
// kept as written), so that the steps cut from it carry its values
// exactly.
func parseFrame(data []byte) (map[string]any, bool) {
	v, _ := decodeJSON(data)
	m, ok := v.(map[string]any)
	return m, ok
}
