// Whether a request carries a credential at all, for telling a user whose
// recording failed that no key reached adkproxy.

package cassettes

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// CredentialPlaces names where HasCredential looks, for messages.
const CredentialPlaces = "an x-goog-api-key or Authorization header, or a ?key= or ?access_token= parameter"

// HasCredential reports whether a request's headers or query carry a key
// or token, in the places Learn reads them from.
func HasCredential(h http.Header, rawQuery string) bool {
	for _, name := range credentialHeaders {
		// The names are canonical already: index the map, as Get would
		// after canonicalising (on every request).
		if vs := h[name]; name != "Proxy-Authorization" && len(vs) > 0 && strings.TrimSpace(vs[0]) != "" {
			return true
		}
	}
	for pair := range strings.SplitSeq(rawQuery, "&") {
		rawName, value, _ := strings.Cut(pair, "=")
		if name, err := url.QueryUnescape(rawName); err == nil && value != "" && slices.Contains(credentialParams, name) {
			return true
		}
	}
	return false
}
