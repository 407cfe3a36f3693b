package cassettes

import (
	"encoding/json"
	"testing"
)

// FuzzJSONNamesCredential: reading only the keys never misses a field the
// full decode would learn from, so skipping the decode loses no secret.
func FuzzJSONNamesCredential(f *testing.F) {
	for _, s := range []string{
		`{"refresh_token":"rt-1"}`,
		`{"generationConfig":{"maxOutputTokens":10},"contents":[{"parts":[{"text":"token key secret"}]}]}`,
		`{"a":[{"client_secret" : "x"}]}`,
		`{"p\u0061ssword":"x"}`,
		`{"\u212Aey":"x"}`,
		`{"thoughtSignature":"abc","x\"key":"v"}`,
		`["key", {"API_KEY":"v"}]`,
		`{"name":"key"}`,
		`{"x\\`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		names := jsonNamesCredential(body) // must not panic on any input
		var v any
		if json.Unmarshal(body, &v) != nil {
			return
		}
		full := len(credentialFields(v, "", nil, 0)) > 0
		if full && !names {
			t.Errorf("%s: the decode finds a credential field the key scan misses", body)
		}
	})
}

// TestJSONNamesCredentialSkipsPlainBodies: a body whose credential words
// are only in values, or in keys that are not credential names
// (maxOutputTokens), is not decoded.
func TestJSONNamesCredentialSkipsPlainBodies(t *testing.T) {
	for body, want := range map[string]bool{
		`{"generationConfig":{"maxOutputTokens":10},"contents":[{"parts":[{"text":"token: key"}]}]}`: false,
		`{"query":"password reset","thoughtSignature":"abc"}`:                                        false,
		`{"grant_type":"refresh_token","refresh_token":"rt"}`:                                        true,
		`{"auth" : {"user":"u"}}`: true,
		`{"p\u0061ssword":"x"}`:   true,
	} {
		if got := jsonNamesCredential([]byte(body)); got != want {
			t.Errorf("%s: got %v, want %v", body, got, want)
		}
	}
}
