// When a client may start with the placeholder key instead of a real one:
// in replay, and in recording from an upstream that is not Google's.

package proxyopt

import (
	"net/url"
	"strings"
)

// PlaceholderKeyServes reports whether a client of a proxy forwarding to
// upstream (nil: the Gemini API) can do with ReplayPlaceholderKey when no
// key is set. Google's hosts (googleapis.com and every host under it)
// need a real key; a fake API or a staging server of one's own does not,
// so recording from one works with no key, as replay does.
func PlaceholderKeyServes(upstream *url.URL) bool {
	if upstream == nil {
		return false
	}
	host := strings.TrimSuffix(strings.ToLower(upstream.Hostname()), ".")
	return host != "googleapis.com" && !strings.HasSuffix(host, ".googleapis.com")
}
