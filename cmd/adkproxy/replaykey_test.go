package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/internal/proxyopt"
)

func init() { proxiedClients["genai-env-key"] = genaiEnvKeyClient }

// genaiEnvKeyClient builds the Go genai client from the environment alone,
// as an app that sets no key in code does, and prints the key it found.
func genaiEnvKeyClient() int {
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{Backend: genai.BackendGeminiAPI})
	if err != nil {
		fmt.Fprintln(os.Stderr, "client:", err)
		return 2
	}
	fmt.Print(client.ClientConfig().APIKey)
	return 0
}

// In replay with no key of the user's, only GOOGLE_API_KEY gets the
// placeholder: every SDK reads it (Go and JS genai, ADK-JS, Python genai),
// and setting GEMINI_API_KEY as well makes them warn on every client.
func TestReplayPlaceholderKeyQuietsTheGoClient(t *testing.T) {
	r := adkproxy(t, nil, append([]string{"replay", "--cassettes", t.TempDir()}, self("genai-env-key")...)...)
	if r.code != 0 || r.stdout != proxyopt.ReplayPlaceholderKey {
		t.Fatalf("exit %d, key %q, stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if strings.Contains(r.stderr, "Both GOOGLE_API_KEY and GEMINI_API_KEY") {
		t.Errorf("the client warns about two keys:\n%s", r.stderr)
	}
	// A key of the user's, in either variable, is left alone and alone.
	for _, env := range []string{"GOOGLE_API_KEY=mine", "GEMINI_API_KEY=mine"} {
		r := adkproxy(t, []string{env}, append([]string{"replay", "--cassettes", t.TempDir()}, self("genai-env-key")...)...)
		if r.code != 0 || r.stdout != "mine" || strings.Contains(r.stderr, "Both") {
			t.Errorf("%s: exit %d, key %q, stderr:\n%s", env, r.code, r.stdout, r.stderr)
		}
	}
}
