// Finding whether a JSON body has any credential-named field without
// decoding it: a replayed tool call's every body is checked, and most
// have none.

package cassettes

import (
	"encoding/json"
	"unicode/utf8"
)

// jsonNamesCredential reports whether the JSON document body has an object
// key that names a credential as a body field does. It reads only the
// keys: a string followed by a colon, which in valid JSON is always a key
// and every key is. On a body that is not JSON its answer means nothing,
// but decoding such a body fails anyway.
func jsonNamesCredential(body []byte) bool {
	for i := 0; i < len(body); i++ {
		if body[i] != '"' {
			continue
		}
		start, escaped := i+1, false
		i++
		for i < len(body) && body[i] != '"' {
			if body[i] == '\\' {
				escaped = true
				i++ // the escaped byte cannot end the string
			}
			i++
		}
		if i >= len(body) {
			return false // an unterminated string: not JSON, and decoding would fail
		}
		end := i
		j := end + 1
		for j < len(body) && (body[j] == ' ' || body[j] == '\t' || body[j] == '\n' || body[j] == '\r') {
			j++
		}
		if j >= len(body) || body[j] != ':' {
			continue
		}
		if keyNamesCredential(body[start:end], escaped) {
			return true
		}
	}
	return false
}

// keyNamesCredential is credentialName for a body field, for a key's raw
// bytes between its quotes.
func keyNamesCredential(raw []byte, escaped bool) bool {
	if escaped {
		var name string
		quoted := make([]byte, 0, len(raw)+2)
		quoted = append(append(append(quoted, '"'), raw...), '"')
		if json.Unmarshal(quoted, &name) != nil {
			return true // cannot tell: let the full decode decide
		}
		return credentialName(name, true)
	}
	if !mayHoldCredentialWord(raw) {
		return false
	}
	return credentialName(string(raw), true)
}

// credentialStems: every credential word of a body field's name (and
// "key") contains one of these, compared ASCII case-insensitively.
var credentialStems = []string{"token", "secret", "passw", "pwd", "auth", "credential", "jwt", "key"}

// mayHoldCredentialWord is a quick filter before credentialName's word
// split: false only when no credential word can be in raw. A non-ASCII
// byte (which may lower-case to an ASCII letter) always passes.
func mayHoldCredentialWord(raw []byte) bool {
	for _, c := range raw {
		if c >= utf8.RuneSelf {
			return true
		}
	}
	for _, stem := range credentialStems {
		if containsFoldASCII(raw, stem) {
			return true
		}
	}
	return false
}

// containsFoldASCII reports whether s holds the lower-case ASCII word
// stem, ignoring ASCII case.
func containsFoldASCII(s []byte, stem string) bool {
	for i := 0; i+len(stem) <= len(s); i++ {
		match := true
		for k := 0; k < len(stem); k++ {
			c := s[i+k]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != stem[k] {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}
