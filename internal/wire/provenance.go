// Who sent a cassette's model calls and what answered them, read from the
// recorded requests for the cassette's provenance: the clients' and agent
// frameworks' name/version tokens, and each model asked for against the
// modelVersion its answers named.

package wire

import (
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
)

// maxTokens bounds each list a provenance holds, whatever clients send.
const maxTokens = 16

// productToken is a name with an optional version, as User-Agent and
// X-Goog-Api-Client spell them (google-genai-sdk/1.2.3, gl-node/20.1.0,
// ai-sdk/google/2.0.0); anything else in those headers (comments in
// parentheses, key=value pairs) is left out.
var productToken = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9._+-]{0,39}(/[A-Za-z0-9][A-Za-z0-9._+/-]{0,39})?$`)

// frameworkNames are the agent frameworks a token's name is told by.
var frameworkNames = []string{"google-adk", "adk", "langchain", "langgraph", "genkit", "ai-sdk", "mastra", "crewai", "llamaindex", "llama-index", "autogen", "pydantic-ai"}

// Provenance reads the clients, frameworks and models of the exchanges'
// model calls and other Gemini requests (tool exchanges are the agent's
// tools, not its clients).
func Provenance(xs []*cassettes.Exchange) cassettes.Provenance {
	var p cassettes.Provenance
	for _, x := range xs {
		if x == nil || x.IsTool() {
			continue
		}
		clients, frameworks := Agents(x.Request.Header)
		p.Clients = addNew(p.Clients, clients...)
		p.Frameworks = addNew(p.Frameworks, frameworks...)
		c := Recognise(&x.Request)
		if c.Kind != Model || c.Model == "" {
			continue
		}
		if p.Models == nil {
			p.Models = map[string][]string{}
		}
		answered := p.Models[c.Model]
		if v := StepOf(x).ModelVersion; v != "" {
			answered = addNew(answered, v)
		}
		if answered == nil {
			answered = []string{}
		}
		p.Models[c.Model] = answered
	}
	return p
}

// Agents splits a request's User-Agent and X-Goog-Api-Client tokens into
// clients (SDKs, runtimes) and agent frameworks, each token once.
func Agents(h http.Header) (clients, frameworks []string) {
	for _, name := range []string{"X-Goog-Api-Client", "User-Agent"} {
		for _, v := range h.Values(name) {
			for _, tok := range productTokens(v) {
				if isFramework(tok) {
					frameworks = addNew(frameworks, tok)
				} else {
					clients = addNew(clients, tok)
				}
			}
		}
	}
	return clients, frameworks
}

// productTokens are the product tokens of a header value, comments in
// parentheses skipped.
func productTokens(v string) []string {
	var out []string
	depth := 0
	for _, f := range strings.Fields(v) {
		opens, closes := strings.Count(f, "("), strings.Count(f, ")")
		if depth > 0 || opens > 0 {
			depth = max(depth+opens-closes, 0)
			continue
		}
		if productToken.MatchString(f) {
			out = append(out, f)
		}
	}
	return out
}

func isFramework(tok string) bool {
	name, _, _ := strings.Cut(strings.ToLower(tok), "/")
	for _, f := range frameworkNames {
		if name == f || strings.HasPrefix(name, f+"-") {
			return true
		}
	}
	return false
}

// addNew appends the values list lacks, up to maxTokens.
func addNew(list []string, vals ...string) []string {
	for _, v := range vals {
		if len(list) < maxTokens && !slices.Contains(list, v) {
			list = append(list, v)
		}
	}
	return list
}
