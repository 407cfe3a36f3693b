// The causes a run that no request reached can have, each with what to
// set, as the README's client table says it.

package clientenv

import (
	"fmt"
	"strings"
)

// NothingReached explains a run no request reached: what failed (what),
// the variables the command had (vars) pointing at base, and the three
// causes that are possible — the base URL, the SDK's own key variable,
// the version segment — with the client-table row for each.
// placeholder says whether Env set the placeholder keys.
func NothingReached(what, vars, base string, placeholder bool) string {
	keys := "the SDK's own key variable: an SDK that finds no key stops before its first call. Under record with Google as\n" +
		"    the upstream, give the command the variable its SDK reads: GOOGLE_API_KEY or GEMINI_API_KEY (genai, ADK, LangChain.js,\n" +
		"    Genkit), GOOGLE_GENERATIVE_AI_API_KEY (Vercel AI SDK), OPENAI_API_KEY (openai, OpenAI Agents: a Gemini key),\n" +
		"    or the key in code (@google/generative-ai)."
	if placeholder {
		keys = fmt.Sprintf("the SDK's own key variable: adkproxy set %s to a placeholder where unset; an SDK that\n"+
			"    reads another (or takes the key in code, as @google/generative-ai does) stops before its first call.", strings.Join(KeyVariables(), ", "))
	}
	return strings.Join([]string{what + ".",
		"  The command had " + vars + " set to " + base + ". Possible causes, each a row of the table",
		"  'Pointing a client at adkproxy' in the README:",
		"  - the base URL: only the genai SDKs and ADK read GOOGLE_GEMINI_BASE_URL; the others take it in code (from ADKPROXY_URL):",
		"    Vercel AI SDK createGoogleGenerativeAI({baseURL: " + base + "/v1beta}), LangChain.js ChatGoogleGenerativeAI({baseUrl}),",
		"    Genkit googleAI({baseUrl}), @google/generative-ai getGenerativeModel(params, {baseUrl}), openai and OpenAI Agents",
		"    baseURL or OPENAI_BASE_URL=" + base + "/v1beta/openai/. Node code that cannot change: NODE_USE_ENV_PROXY=1 (Node >= 22.21)",
		"    sends it through HTTPS_PROXY. Check too that no base URL in its code or config overrides them.",
		"  - " + keys,
		"  - the version segment: a base URL given in code must end as its SDK expects (Vercel's in /v1beta, openai's in",
		"    /v1beta/openai/); adkproxy names a path without it (replay's error, record's warning, adkproxy fake's 404).",
		"  Check also that the command runs the agent at all. --allow-empty accepts a run that sends nothing.",
	}, "\n")
}

// KeyVariables are the variables Env may set to the placeholder.
func KeyVariables() []string {
	return append([]string{"GOOGLE_API_KEY"}, ownKeyVars...)
}
