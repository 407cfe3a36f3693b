package cassettes

import "testing"

// TestBodySignaturesAreData: a signature-named field of a tool's JSON or
// form body (the Gemini API's thoughtSignature) is data to keep as sent,
// while a token or secret field beside it is still learned and scrubbed.
func TestBodySignaturesAreData(t *testing.T) {
	r := NewRedactor()
	r.LearnBody("application/json", []byte(`{"parts":[{"thoughtSignature":"c2lnbmF0dXJlLWJ5dGVz"}],"refresh_token":"rt-0123456789abcdef"}`))
	r.LearnBody("application/x-www-form-urlencoded", []byte("sig=abcdef0123456789&client_secret=cs-0123456789abcdef"))
	out := string(r.Bytes([]byte(`c2lnbmF0dXJlLWJ5dGVz abcdef0123456789 rt-0123456789abcdef cs-0123456789abcdef`)))
	if out != "c2lnbmF0dXJlLWJ5dGVz abcdef0123456789 REDACTED REDACTED" {
		t.Fatalf("scrubbed %q", out)
	}
	if !IsCredentialName("X-Goog-Signature") || !IsCredentialName("sig") {
		t.Fatal("signature-named headers and parameters are still credentials")
	}
}
