package clientenv_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/engine/clientenv"
)

func lookup(env []string, name string) (string, int) {
	v, n := "", 0
	for _, kv := range env {
		if k, val, _ := strings.Cut(kv, "="); k == name {
			v, n = val, n+1
		}
	}
	return v, n
}

// TestEnvSetsEachSDKsKeyVariable: with the placeholder, every key variable
// the SDKs read gets it unless the user set it; without, none does (a real
// Google key is never copied into OPENAI_API_KEY, read by OpenAI's own
// clients too); the base URLs are always set.
func TestEnvSetsEachSDKsKeyVariable(t *testing.T) {
	const base = "http://127.0.0.1:1234"
	env := clientenv.Env([]string{"PATH=/bin"}, base, true)
	for _, name := range []string{"GOOGLE_API_KEY", "GOOGLE_GENERATIVE_AI_API_KEY", "OPENAI_API_KEY"} {
		if v, n := lookup(env, name); v != clientenv.Placeholder || n != 1 {
			t.Errorf("%s = %q (%d times), want the placeholder once", name, v, n)
		}
	}
	for _, name := range []string{"GOOGLE_GEMINI_BASE_URL", "GOOGLE_VERTEX_BASE_URL", "ADKPROXY_URL"} {
		if v, _ := lookup(env, name); v != base {
			t.Errorf("%s = %q", name, v)
		}
	}
	if v, _ := lookup(env, "OPENAI_AGENTS_DISABLE_TRACING"); v != "1" {
		t.Errorf("OPENAI_AGENTS_DISABLE_TRACING = %q", v)
	}

	user := []string{"GEMINI_API_KEY=real", "OPENAI_API_KEY=mine", "OPENAI_AGENTS_DISABLE_TRACING=0"}
	env = clientenv.Env(user, base, true)
	for name, want := range map[string]string{"GOOGLE_API_KEY": "", "GEMINI_API_KEY": "real", "OPENAI_API_KEY": "mine",
		"GOOGLE_GENERATIVE_AI_API_KEY": clientenv.Placeholder, "OPENAI_AGENTS_DISABLE_TRACING": "0"} {
		if v, n := lookup(env, name); v != want || n > 1 {
			t.Errorf("user's own: %s = %q (%d times), want %q", name, v, n, want)
		}
	}
	if !slices.Equal(user, []string{"GEMINI_API_KEY=real", "OPENAI_API_KEY=mine", "OPENAI_AGENTS_DISABLE_TRACING=0"}) {
		t.Errorf("Env changed its argument: %v", user)
	}

	env = clientenv.Env([]string{"GOOGLE_API_KEY=real"}, base, false)
	for _, name := range []string{"OPENAI_API_KEY", "GOOGLE_GENERATIVE_AI_API_KEY"} {
		if _, n := lookup(env, name); n != 0 {
			t.Errorf("recording against Google: %s set", name)
		}
	}
}

// TestNothingReachedNamesEachCause: the three causes, each with what to
// set, and the key cause worded by whether adkproxy set placeholders.
func TestNothingReachedNamesEachCause(t *testing.T) {
	for _, placeholder := range []bool{true, false} {
		msg := clientenv.NothingReached("nothing was recorded", "GOOGLE_GEMINI_BASE_URL", "http://h:1", placeholder)
		for _, want := range []string{"nothing was recorded.", "Pointing a client at adkproxy",
			"- the base URL", "createGoogleGenerativeAI({baseURL: http://h:1/v1beta})", "baseUrl", "OPENAI_BASE_URL=http://h:1/v1beta/openai/", "NODE_USE_ENV_PROXY=1",
			"- the SDK's own key variable", "GOOGLE_GENERATIVE_AI_API_KEY", "OPENAI_API_KEY",
			"- the version segment", "/v1beta", "--allow-empty"} {
			if !strings.Contains(msg, want) {
				t.Errorf("placeholder %v: lacks %q:\n%s", placeholder, want, msg)
			}
		}
		if set := strings.Contains(msg, "adkproxy set GOOGLE_API_KEY"); set != placeholder {
			t.Errorf("placeholder %v: says adkproxy set the keys: %v\n%s", placeholder, set, msg)
		}
	}
}
