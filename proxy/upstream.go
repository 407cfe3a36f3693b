// Where forwarded requests go: the Gemini API base URL and the Vertex AI
// host a request's path calls for.

package proxy

import (
	"net/url"
	"regexp"
	"strings"
)

// DefaultUpstream is the Gemini Developer API.
const DefaultUpstream = "https://generativelanguage.googleapis.com"

// Vertex AI paths, as the SDKs send them when GOOGLE_VERTEX_BASE_URL points
// at adkproxy: regional /{v}/projects/{p}/locations/{l}/... and express mode
// /{v}/publishers/google/....
var (
	vertexRegional = regexp.MustCompile(`^/v1[a-z0-9]*/projects/[^/]+/locations/([^/]+)/`)
	vertexExpress  = regexp.MustCompile(`^/v1[a-z0-9]*/publishers/`)
)

// vertexUpstream derives the Vertex AI host from a request path, following
// Google's endpoint rules: "global" has no region prefix, the "us" and "eu"
// multi-regions have their own hosts, every other location is a prefix.
// ok is false for paths that are not Vertex AI's.
func vertexUpstream(path string) (u *url.URL, ok bool) {
	if !strings.Contains(path, "/projects/") && !strings.Contains(path, "/publishers/") {
		return nil, false // neither expression can match: most calls, spared running them
	}
	if m := vertexRegional.FindStringSubmatch(path); m != nil {
		host := m[1] + "-aiplatform.googleapis.com"
		switch m[1] {
		case "global":
			host = "aiplatform.googleapis.com"
		case "us", "eu":
			host = "aiplatform." + m[1] + ".rep.googleapis.com"
		}
		return &url.URL{Scheme: "https", Host: host}, true
	}
	if vertexExpress.MatchString(path) {
		return &url.URL{Scheme: "https", Host: "aiplatform.googleapis.com"}, true
	}
	return nil, false
}
