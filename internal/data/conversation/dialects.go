// Model calls of dialects other than Gemini's (the OpenAI-compatible
// endpoint): read through internal/wire as the generateContent call they
// amount to, so they are placed in sessions, invocations and steps alike.

package conversation

import (
	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/wire"
)

// asGenerateContent is the model and generateContent body of a model call
// in another dialect; ok is false for Gemini's own paths (read directly),
// the Interactions API and Live (placed by their own rules), and anything
// that is not a model call.
func asGenerateContent(path string, body []byte) (model string, gc []byte, ok bool) {
	req := cassettes.Request{Method: "POST", Path: path, Body: body}
	c := wire.Recognise(&req)
	if c.Kind != wire.Model || c.Dialect == nil {
		return "", nil, false
	}
	switch c.Dialect.Name() {
	case "gemini", "interactions", "live":
		return "", nil, false
	}
	r, ok := c.Dialect.Request(&req)
	if !ok {
		return "", nil, false
	}
	if r.Model == "" {
		r.Model = c.Model
	}
	return r.Model, wire.GenerateContentBody(r), true
}

// isOtherModelCall reports whether path is a model call of another
// dialect.
func isOtherModelCall(path string) bool {
	c := wire.Recognise(&cassettes.Request{Method: "POST", Path: path})
	return c.Kind == wire.Model && c.Dialect != nil && c.Dialect.Name() == "openai"
}
