// Cassette text for tests that write a cassette by hand.

package testutil

import (
	"encoding/json"
	"fmt"
)

// GenerateContentStep is one recorded generateContent call of agent as a
// cassette step (indented for an invocation's steps list), with req and
// resp as JSON bodies.
func GenerateContentStep(n int, agent, req, resp string) string {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	return fmt.Sprintf(`          - step: %d
            agent: %s
            request:
              method: POST
              path: /v1beta/models/gemini-2.5-flash:generateContent
              headers: {Content-Type: application/json}
              body: %s
            response:
              status: 200
              headers: {Content-Type: application/json; charset=UTF-8}
              body: %s
`, n, agent, q(req), q(resp))
}
