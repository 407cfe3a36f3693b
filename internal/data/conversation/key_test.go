package conversation

import (
	"testing"

	"github.com/adkproxy/adkproxy/matcher"
)

// TestKeysAreHashesOfTheCanonicalForms: keys made from the canonical bytes
// found in one read of the body are the hashes of each part's canonical
// form (null or absent parts hashing as empty), as rendering the parsed
// parts one by one gave them, so no call changes its place.
func TestKeysAreHashesOfTheCanonicalForms(t *testing.T) {
	ignoring, err := matcher.New("contents[*].parts[*].functionCall.id")
	if err != nil {
		t.Fatal(err)
	}
	bodies := []string{
		`{"contents":[{"role":"user","parts":[{"text":"hi \u00e9\n"}]}],"systemInstruction":{"parts":[{"text":"be kind"}]},"tools":[{"functionDeclarations":[{"name":"f","parameters":{"b":2.50,"a":1}}]}]}`,
		`{"tools":null,"systemInstruction":null,"contents":[null,{"role":"user","parts":[{"text":"a"}]},{"role":"model","parts":[{"functionCall":{"id":"x1","name":"f","args":{}}}]},{"role":"user","parts":[{"text":"b"}]}]}`,
		`{"contents":[{"role":"model","parts":[{"text":"no user turn"}]}],"systemInstruction":"bare"}`,
		`{"contents":{"not":"an array"}}`,
		`{}`,
	}
	for _, m := range []*matcher.Matcher{matcher.Default(), ignoring} {
		for _, body := range bodies {
			c, ok := Analyze(m, "/v1beta/models/gemini-2.5-flash:generateContent", []byte(body))
			if !ok {
				t.Fatalf("%s: not analysed", body)
			}
			v, _ := m.Parse([]byte(body))
			req := v.(map[string]any)
			if want := hashOf(c.Model, canonical(req["systemInstruction"]), canonical(req["tools"])); c.AgentKey != want {
				t.Errorf("%s: agent key %s, want %s", body, c.AgentKey, want)
			}
			parts := []string{c.AgentKey}
			contents, _ := req["contents"].([]any)
			for _, content := range contents[:c.UserTurn+1] {
				parts = append(parts, canonical(content))
			}
			if want := hashOf(parts...); c.Key != want {
				t.Errorf("%s: key %s, want %s (user turn %d)", body, c.Key, want, c.UserTurn)
			}
			if c.UserTurn == 0 {
				if want := canonical(map[string]any{"request": c.UserText}); c.AgentToolArgs() != want {
					t.Errorf("%s: agent tool args %s, want %s", body, c.AgentToolArgs(), want)
				}
			}
		}
	}
}

// FuzzModelCallModel: the model read from a path without a regular
// expression is the one generatePath reads, and only its paths have one.
func FuzzModelCallModel(f *testing.F) {
	for _, s := range []string{"/v1beta/models/gemini-2.5-flash:generateContent", "/v1/projects/p/locations/l/publishers/google/models/g:streamGenerateContent",
		"/v1beta/models/a/models/b:generateContent", "/v1beta/models/:generateContent", "/models/x:generateContentX", "/models/x:y:generateContent",
		"/v1beta/models/m:countTokens", "models/m:generateContent", "/v1beta/models/m/x:generateContent"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, path string) {
		want := generatePath.FindStringSubmatch(path)
		got, ok := modelCallModel(path)
		if ok != (want != nil) || ok && got != want[1] {
			t.Fatalf("%q: %q %v, regexp says %q", path, got, ok, want)
		}
	})
}
