// A chat completion (Gemini's OpenAI-compatible endpoint) shown in ADK's
// llm_request and llm_response as the generateContent call it amounts to,
// read through wire, so both endpoints export the same attributes.

package otlpexport

import (
	"encoding/json"
	"net/http"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/wire"
)

// geminiShaped is x as a generateContent exchange when it is a chat
// completion, else x itself: the request as generateContent's body (its
// settings as generationConfig), the answer as generateContent's.
func geminiShaped(x *cassettes.Exchange) *cassettes.Exchange {
	c := wire.Recognise(&x.Request)
	if c.Kind != wire.Model || c.Dialect == nil || c.Dialect.Name() != "openai" {
		return x
	}
	r, ok := wire.RequestOf(&x.Request)
	if !ok {
		return x
	}
	var body map[string]any
	json.Unmarshal(wire.GenerateContentBody(r), &body)
	if gc := wire.ChatGenerationConfig(x.Request.Body); gc != nil {
		body["generationConfig"] = gc
	}
	b, _ := json.Marshal(body)
	out := &cassettes.Exchange{Request: cassettes.Request{Method: http.MethodPost, Path: "/v1beta/models/" + r.Model + ":generateContent", Body: b},
		Response: cassettes.Response{Status: x.Response.Status, Latency: x.Response.Latency}}
	if x.Response.Status == http.StatusOK {
		out.Response.Body = wire.ChatAnswerAsGemini(x)
	}
	return out
}
