package wire

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
)

func TestApplyChangeGemini(t *testing.T) {
	si := "Be brief."
	req := cassettes.Request{Method: "POST", Path: "/v1beta/models/gemini-2.5-flash:generateContent",
		Body: []byte(`{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"generationConfig":{"temperature":1}}`)}
	err := ApplyChange(&req, Change{Model: "gemini-2.5-pro", SystemInstruction: &si, Tools: json.RawMessage(`[{"functionDeclarations":[]}]`),
		Set: []SetField{{Path: "generationConfig.temperature", Value: json.RawMessage(`0.2`)}, {Path: "contents[0].parts[0].text", Value: json.RawMessage(`"hello"`)}}})
	if err != nil {
		t.Fatal(err)
	}
	if req.Path != "/v1beta/models/gemini-2.5-pro:generateContent" {
		t.Errorf("path %s", req.Path)
	}
	want := `{"contents":[{"parts":[{"text":"hello"}],"role":"user"}],"generationConfig":{"temperature":0.2},"systemInstruction":{"parts":[{"text":"Be brief."}]},"tools":[{"functionDeclarations":[]}]}`
	if string(req.Body) != want {
		t.Errorf("body\n%s\nwant\n%s", req.Body, want)
	}
}

func TestApplyChangeOpenAI(t *testing.T) {
	si := "Be brief."
	req := cassettes.Request{Method: "POST", Path: "/v1beta/openai/chat/completions",
		Body: []byte(`{"model":"gemini-2.5-flash","messages":[{"role":"user","content":"hi"}]}`)}
	if err := ApplyChange(&req, Change{Model: "gemini-2.5-pro", SystemInstruction: &si}); err != nil {
		t.Fatal(err)
	}
	want := `{"messages":[{"content":"Be brief.","role":"system"},{"content":"hi","role":"user"}],"model":"gemini-2.5-pro"}`
	if req.Path != "/v1beta/openai/chat/completions" || string(req.Body) != want {
		t.Errorf("%s %s", req.Path, req.Body)
	}
	// A system message that is there is replaced, not doubled.
	if err := ApplyChange(&req, Change{SystemInstruction: &si}); err != nil || strings.Count(string(req.Body), "system") != 1 {
		t.Errorf("%v %s", err, req.Body)
	}
}

func TestApplyChangeRefuses(t *testing.T) {
	for _, tc := range []struct {
		req  cassettes.Request
		ch   Change
		want string
	}{
		{cassettes.Request{Method: "GET", Path: "/v1beta/models"}, Change{Model: "x"}, "is not a model call"},
		{cassettes.Request{Method: "POST", Path: "/v1beta/models/m:generateContent", Body: []byte(`[]`)}, Change{Set: []SetField{{Path: "a", Value: json.RawMessage(`1`)}}}, "not a JSON object"},
		{cassettes.Request{Method: "POST", Path: "/v1beta/models/m:generateContent", Body: []byte(`{"contents":[]}`)}, Change{Set: []SetField{{Path: "contents[3].x", Value: json.RawMessage(`1`)}}}, "has no element [3]"},
		{cassettes.Request{Method: "POST", Path: "/v1beta/models/m:generateContent", Body: []byte(`{}`)}, Change{Set: []SetField{{Path: "a[x]", Value: json.RawMessage(`1`)}}}, "bad index"},
		{cassettes.Request{Method: "POST", Path: "/v1beta/models/m:generateContent", Body: []byte(`{}`)}, Change{Set: []SetField{{Path: ".a", Value: json.RawMessage(`1`)}}}, "want a path like"},
	} {
		if err := ApplyChange(&tc.req, tc.ch); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: err %v, want %q", tc.req.Path, tc.ch, err, tc.want)
		}
	}
}

func FuzzSetPath(f *testing.F) {
	for _, s := range []string{"a.b", "a[0].b", "a[1][2]", ".", "[0]", "a["} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, path string) {
		body := map[string]any{"a": []any{map[string]any{}, []any{1, 2, 3}}}
		setAt(body, path, 1) // must not panic
	})
}
