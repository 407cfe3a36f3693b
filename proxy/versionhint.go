// A request path that lacks its API version segment: the client was given
// a base URL in code that does not end as its SDK expects (the Vercel AI
// SDK's must end in /v1beta, openai's in /v1beta/openai/).

package proxy

import "strings"

// missingVersion says what a path without its version segment lacks, or
// "" for any other path.
func missingVersion(path string) string {
	if strings.HasPrefix(path, "/v1") {
		return ""
	}
	for _, p := range [...]string{"/models/", "/openai/", "/chat/completions", "/interactions"} {
		if strings.HasPrefix(path, p) {
			return "the path " + path + " has no API version segment (/v1beta): the client's base URL lacks it " +
				"(the Vercel AI SDK's baseURL must end in /v1beta; openai's in /v1beta/openai/)"
		}
	}
	return ""
}
