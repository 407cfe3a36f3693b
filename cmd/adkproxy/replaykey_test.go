package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/internal/base/proxyopt"
	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/proxy"
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
	t.Parallel()
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

// Recording from an upstream that is not Google's (a fake, a staging
// server) needs no key: with neither variable set, the command gets the
// placeholder replay gives, and a genai client that builds its key from the
// environment records through to the fake. Against Google's hosts no
// placeholder is made up, and a key of the user's is left alone.
func TestRecordFromALocalUpstreamNeedsNoKey(t *testing.T) {
	t.Parallel()
	up := httptest.NewServer(&fakegemini.Handler{})
	defer up.Close()
	record := func(env []string, upstream, client string) result {
		return adkproxy(t, env, append([]string{"record", "--cassettes", t.TempDir(), "--upstream", upstream, "--allow-empty"}, self(client)...)...)
	}
	if r := record(nil, up.URL, "genai-env-key"); r.code != 0 || r.stdout != proxyopt.ReplayPlaceholderKey {
		t.Errorf("local upstream: exit %d, key %q\n%s", r.code, r.stdout, r.stderr)
	}
	if r := record([]string{"QUESTION=What is the weather in Paris?"}, up.URL, "ask"); r.code != 0 || !strings.HasPrefix(r.stdout, "200 ") || !strings.Contains(r.stderr, "recorded 1 exchange(s)") {
		t.Errorf("recording from a local upstream with no key: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	for _, google := range []string{proxy.DefaultUpstream, "https://staging-generativelanguage.sandbox.googleapis.com", "https://GoogleAPIs.com."} {
		if r := record(nil, google, "print-key"); r.code != 0 || r.stdout != "|" {
			t.Errorf("%s: exit %d, keys %q, want none\n%s", google, r.code, r.stdout, r.stderr)
		}
	}
	if r := record([]string{"GEMINI_API_KEY=mine"}, up.URL, "print-key"); r.code != 0 || r.stdout != "|mine" {
		t.Errorf("a key of the user's: exit %d, keys %q\n%s", r.code, r.stdout, r.stderr)
	}
}
