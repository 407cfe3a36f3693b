// Which header, parameter and field names carry credentials: a rule on the
// words of the name rather than a list, so a tool's own spelling
// (X-Auth-Token, Ocp-Apim-Subscription-Key, client_secret) is caught too.

package cassettes

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
)

// credentialWords: a name holding any of these words carries a credential.
var credentialWords = map[string]bool{
	"token": true, "secret": true, "password": true, "passwd": true, "pwd": true,
	"signature": true, "sig": true, "auth": true, "authorization": true, "authentication": true,
	"oauth": true, "credential": true, "credentials": true, "apikey": true, "jwt": true,
}

// keyQualifiers: "key" carries a credential when it is the whole name or
// follows one of these ("api key", "subscription key"); "sort_key" does not.
var keyQualifiers = map[string]bool{
	"api": true, "access": true, "private": true, "secret": true, "subscription": true,
	"client": true, "signing": true, "master": true, "account": true, "app": true, "auth": true,
}

// IsCredentialName reports whether a header, query parameter, form or
// JSON field name carries a key, token, password or signature: a word of
// it (split at punctuation and case changes) is one of token, secret,
// password, signature, sig, auth, authorization, credential, apikey, jwt…,
// or it is "key", or has "api key", "subscription key" and the like. See
// docs/secrets.md.
func IsCredentialName(name string) bool {
	if known, ok := credentialNames.Load(name); ok {
		return known.(bool)
	}
	is := credentialName(name, false)
	// Every request's every header name is asked about: remember the
	// answers, up to a bound a peer making up names cannot push past.
	if credentialNamesHeld.Add(1) <= maxCredentialNamesHeld {
		credentialNames.Store(name, is)
	}
	return is
}

// credentialNames remembers IsCredentialName's answers by name.
var (
	credentialNames     sync.Map
	credentialNamesHeld atomic.Int64
)

const maxCredentialNamesHeld = 4096

// signatureWords name signatures: credentials in a header or a query (a
// presigned URL's X-Goog-Signature), but in a JSON or form body most often
// data that must stay as sent, such as the Gemini API's thoughtSignature.
var signatureWords = map[string]bool{"signature": true, "sig": true}

// credentialName is IsCredentialName; inBody leaves out the signature words.
func credentialName(name string, inBody bool) bool {
	words := nameWords(name)
	for i, w := range words {
		if credentialWords[w] && !(inBody && signatureWords[w]) {
			return true
		}
		if w == "key" && (strings.EqualFold(name, "key") || i > 0 && keyQualifiers[words[i-1]]) {
			return true
		}
	}
	return false
}

// nameWords splits a name at anything not a letter or digit and where a
// lower-case letter meets an upper-case one ("xAuthToken": x auth token),
// lower-cased.
func nameWords(name string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	prevLower := false
	for _, r := range name {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
			prevLower = false
			continue
		case unicode.IsUpper(r) && prevLower:
			flush()
		}
		cur = append(cur, r)
		prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
	}
	flush()
	return words
}

// maxLearnedBody bounds the request bodies whose fields are read for
// credentials.
const maxLearnedBody = 1 << 20

// LearnBody remembers the values of credential-named fields of a form or
// JSON request body (a tool's token request: refresh_token, client_secret,
// password), so they are scrubbed wherever they appear.
func (r *Redactor) LearnBody(contentType string, body []byte) {
	if len(body) == 0 || len(body) > maxLearnedBody {
		return
	}
	var found [][2]string
	mt, _, _ := mime.ParseMediaType(contentType)
	switch {
	case mt == "application/x-www-form-urlencoded":
		for _, pair := range strings.Split(string(body), "&") {
			rawName, value, _ := strings.Cut(pair, "=")
			name, err := url.QueryUnescape(rawName)
			if err != nil || !credentialName(name, true) {
				continue
			}
			found = append(found, [2]string{value, "the body field " + name})
			if v, err := url.QueryUnescape(value); err == nil && v != value {
				found = append(found, [2]string{v, "the body field " + name})
			}
		}
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		// Most bodies name no credential: decode only those that do.
		if !jsonNamesCredential(body) {
			return
		}
		var v any
		if json.Unmarshal(body, &v) == nil {
			found = credentialFields(v, "", found, 0)
		}
	}
	r.learn(found)
}

// credentialFields collects the string values of credential-named fields.
func credentialFields(v any, name string, found [][2]string, depth int) [][2]string {
	if depth > 64 {
		return found
	}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			found = credentialFields(e, k, found, depth+1)
		}
	case []any:
		for _, e := range x {
			found = credentialFields(e, name, found, depth+1)
		}
	case string:
		if name != "" && credentialName(name, true) {
			found = append(found, [2]string{x, "the body field " + name})
		}
	}
	return found
}

// KeepHeader stores the header name as it is (--keep-header): neither
// dropped nor learned, although its name looks like a credential's. The
// headers that always carry a key or session (X-Goog-Api-Key,
// Authorization, Cookie, …) cannot be kept.
func (r *Redactor) KeepHeader(name string) error {
	canonical := http.CanonicalHeaderKey(strings.TrimSpace(name))
	if canonical == "" {
		return fmt.Errorf("an empty header name")
	}
	if slices.Contains(credentialHeaders, canonical) || slices.Contains(droppedHeaders, canonical) {
		return fmt.Errorf("%s always carries a key, token or session (or is never stored) and cannot be kept", canonical)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.kept == nil {
		r.kept = map[string]bool{}
	}
	r.kept[canonical] = true
	r.headers.forget()
	return nil
}

// dropsHeader: a header never stored, its value a secret.
func (r *Redactor) dropsHeader(name string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.dropsHeaderLocked(http.CanonicalHeaderKey(name))
}

// dropsHeaderLocked is dropsHeader of a canonical name; callers hold r.mu.
func (r *Redactor) dropsHeaderLocked(canonical string) bool {
	return slices.Contains(credentialHeaders, canonical) || slices.Contains(droppedHeaders, canonical) ||
		IsCredentialName(canonical) && !r.kept[canonical]
}
