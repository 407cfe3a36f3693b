// Interactions API calls placed like model calls: the chain that
// previous_interaction_id links stands for the history generateContent
// would carry inline.

package conversation

import (
	"encoding/json"
	"regexp"
	"strings"
	"sync"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/matcher"
)

// An interaction names the one before it instead of repeating the history,
// so the organizer keeps, per interaction id, the turn it belonged to: the
// user text that started its invocation, the user texts before it, and its
// step. A call whose input has user text starts the next invocation of its
// chain's session; one whose input is only function results is the next
// step of its chain's invocation. A call naming an interaction this run
// never answered starts a new session.

var interactionsPath = regexp.MustCompile(`^/v1[a-z0-9]*/(?:projects/[^/]+/locations/[^/]+/)?interactions$`)

// isInteractionsPath: every answered call asks, so the suffix every
// match ends with is checked before the expression.
func isInteractionsPath(path string) bool {
	return strings.HasSuffix(path, "/interactions") && interactionsPath.MatchString(path)
}

// chainTurn is where an interaction stands in its chain.
type chainTurn struct {
	earlier []string
	user    string
	step    int
}

// chains holds the turn of every interaction answered so far.
type chains struct {
	mu   sync.Mutex
	byID map[string]chainTurn
}

// interactionRequest is what placing reads of a POST /{v}/interactions.
type interactionRequest struct {
	Model             string          `json:"model"`
	Agent             string          `json:"agent"`
	Input             json.RawMessage `json:"input"`
	Previous          string          `json:"previous_interaction_id"`
	SystemInstruction json.RawMessage `json:"system_instruction"`
	Tools             json.RawMessage `json:"tools"`
}

// AnalyzeInteraction reads an Interactions API create call as a model call,
// its history taken from the chain it continues. ok is false for any
// other request.
func (o *Organizer) AnalyzeInteraction(path string, body []byte) (*Call, bool) {
	if !isInteractionsPath(path) {
		return nil, false
	}
	var req interactionRequest
	if json.Unmarshal(body, &req) != nil {
		return nil, false
	}
	turn := o.chains.next(req)
	model := req.Model
	if model == "" {
		model = req.Agent
	}
	c := &Call{Model: model, UserTurn: -1, UserText: turn.user, EarlierUserTexts: turn.earlier, Step: turn.step}
	if turn.step == 0 {
		c.UserTurn = 0
	}
	c.AgentKey = hashOf(model, string(req.SystemInstruction), string(req.Tools))
	c.Key = hashOf(append(append([]string{c.AgentKey}, turn.earlier...), turn.user)...)
	return c, true
}

// Interacted notes the interaction an answered create call made, so the
// calls that continue its chain are placed after it.
func (o *Organizer) Interacted(x *cassettes.Exchange) {
	if !isInteractionsPath(x.Request.Path) || x.Response.Status != 200 {
		return
	}
	var req interactionRequest
	var resp struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(x.Request.Body, &req) != nil || json.Unmarshal(x.Response.Body, &resp) != nil || resp.ID == "" {
		return
	}
	o.chains.answered(resp.ID, o.chains.next(req))
}

// next is the turn of a call with this request.
func (ch *chains) next(req interactionRequest) chainTurn {
	ch.mu.Lock()
	prev, known := ch.byID[req.Previous]
	ch.mu.Unlock()
	text, results := inputOf(req.Input)
	switch {
	case !known:
		return chainTurn{user: text}
	case text != "" && !results:
		earlier := append(append([]string(nil), prev.earlier...), prev.user)
		return chainTurn{earlier: earlier, user: text}
	default:
		return chainTurn{earlier: prev.earlier, user: prev.user, step: prev.step + 2}
	}
}

func (ch *chains) answered(id string, t chainTurn) {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	if ch.byID == nil {
		ch.byID = map[string]chainTurn{}
	}
	ch.byID[id] = t
}

// inputOf reads an interaction's input: a string, or a list of contents or
// parts ({"type": "text", "text": ...}); results says whether it holds a
// function result.
func inputOf(raw json.RawMessage) (text string, results bool) {
	if json.Unmarshal(raw, &text) == nil {
		return text, false
	}
	v, ok := matcher.ParseJSON(raw)
	if !ok {
		return "", false
	}
	var texts []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			texts = append(texts, v)
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			switch v["type"] {
			case "function_result":
				results = true
			case "text":
				if s, ok := v["text"].(string); ok {
					texts = append(texts, s)
				}
			}
			if role, _ := v["role"].(string); role == "" || role == "user" {
				if inner, ok := v["content"]; ok {
					walk(inner)
				}
			}
		}
	}
	walk(v)
	for i, t := range texts {
		if i > 0 {
			text += "\n"
		}
		text += t
	}
	return text, results
}
