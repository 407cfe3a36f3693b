// Package clientenv is what a command wrapped by record or replay is told:
// the base URLs pointing every Gemini SDK at adkproxy, the key variables
// set to a placeholder where no real key is needed, and, when no request
// reached adkproxy, the causes that are possible with the client-table
// row for each.
package clientenv

import (
	"os"
	"slices"
	"strings"

	"github.com/adkproxy/adkproxy/internal/base/proxyopt"
)

// Placeholder is the key given to clients that need none (replay, and
// record from an upstream that is not Google's); it reaches no provider
// that could take it for a real key.
const Placeholder = proxyopt.ReplayPlaceholderKey

// ownKeyVars are SDKs' own key variables, set to the placeholder when
// the user set none: GOOGLE_GENERATIVE_AI_API_KEY (the Vercel AI SDK) and
// OPENAI_API_KEY (openai, the OpenAI Agents SDK). Each gets only the
// placeholder, never a real key: OPENAI_API_KEY is also read by clients
// talking to OpenAI itself, which must never be sent a Google key.
// GOOGLE_API_KEY is not here: it is set only when GEMINI_API_KEY is not
// set either (see Env).
var ownKeyVars = []string{"GOOGLE_GENERATIVE_AI_API_KEY", "OPENAI_API_KEY"}

// Env is environ (os.Environ's form) with what a wrapped command needs to
// reach adkproxy at base: the base-URL variables, ADKPROXY_URL and, when
// placeholder, the placeholder key in each key variable the user left
// unset. The OpenAI Agents SDK's tracing is turned off unless the user set
// it: it exports each run to OpenAI with OPENAI_API_KEY, which under
// adkproxy holds a placeholder or a Gemini key.
func Env(environ []string, base string, placeholder bool) []string {
	set := map[string]bool{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && v != "" {
			set[k] = true
		}
	}
	env := append(slices.Clone(environ),
		"GOOGLE_GEMINI_BASE_URL="+base,
		"GOOGLE_VERTEX_BASE_URL="+base,
		"ADKPROXY_URL="+base,
	)
	if !set["OPENAI_AGENTS_DISABLE_TRACING"] {
		env = append(env, "OPENAI_AGENTS_DISABLE_TRACING=1")
	}
	if !placeholder {
		return env
	}
	// SDKs refuse to start without a key. GOOGLE_API_KEY alone of the two
	// Google variables gets it: Go and JS genai, ADK-JS and Python genai
	// all read it, and all warn when both are set.
	if !set["GOOGLE_API_KEY"] && !set["GEMINI_API_KEY"] {
		env = append(env, "GOOGLE_API_KEY="+Placeholder)
	}
	for _, name := range ownKeyVars {
		if !set[name] {
			env = append(env, name+"="+Placeholder)
		}
	}
	return env
}

// PlaceholderSet says whether Env gave the command a placeholder key under
// GOOGLE_API_KEY: then a run whose requests carried no key did not fail
// for want of one.
func PlaceholderSet(placeholder bool) bool {
	return placeholder && os.Getenv("GOOGLE_API_KEY") == "" && os.Getenv("GEMINI_API_KEY") == ""
}
