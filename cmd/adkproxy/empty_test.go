package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An agent that bypasses adkproxy must not go green: a strict replay no
// request reached while cassettes exist fails with 76, and so does a
// record run that recorded nothing, each saying what to check; a run
// that sends nothing on purpose passes with --allow-empty.
func TestRunThatNoRequestReachedFails(t *testing.T) {
	t.Parallel()
	cas := filepath.Join(t.TempDir(), "cas")
	os.CopyFS(cas, os.DirFS("../../examples/weather/cassettes"))
	before := snapshot(t, cas)
	bypass := []string{"--", "sh", "-c", "echo the agent talked to someone else"}
	for _, c := range []struct {
		name string
		args []string
		code int
		says string
	}{
		{"strict replay", append([]string{"replay", "--cassettes", cas}, bypass...), 76, "no request reached adkproxy, but " + cas + " holds 1 cassette(s)"},
		{"record", append([]string{"record", "--cassettes", cas, "--upstream", "http://127.0.0.1:9"}, bypass...), 76, "nothing was recorded: no request reached adkproxy"},
		{"strict replay, command failed", append([]string{"replay", "--cassettes", cas}, "--", "sh", "-c", "exit 3"), 3, "no request reached adkproxy"},
		// record set the placeholder key itself: the key is not the cause.
		{"record, command failed", append([]string{"record", "--cassettes", cas, "--upstream", "http://127.0.0.1:9"}, "--", "sh", "-c", "exit 3"), 3, "nothing was recorded: no request reached adkproxy"},
		{"lenient replay", append([]string{"replay", "--mode", "lenient", "--cassettes", cas}, bypass...), 0, ""},
		{"replay --allow-empty", append([]string{"replay", "--allow-empty", "--cassettes", cas}, bypass...), 0, ""},
		{"record --allow-empty", append([]string{"record", "--allow-empty", "--cassettes", cas, "--upstream", "http://127.0.0.1:9"}, bypass...), 0, ""},
		{"replay of an empty folder", append([]string{"replay", "--cassettes", t.TempDir()}, bypass...), 0, ""},
	} {
		r := adkproxy(t, nil, c.args...)
		if r.code != c.code {
			t.Errorf("%s: exit %d, want %d\n%s", c.name, r.code, c.code, r.stderr)
		}
		if c.says == "" {
			if strings.Contains(r.stderr, "--allow-empty") {
				t.Errorf("%s: warned of an empty run:\n%s", c.name, r.stderr)
			}
			continue
		}
		for _, want := range []string{c.says, "GOOGLE_GEMINI_BASE_URL", "Pointing a client at adkproxy", "--allow-empty",
			"- the base URL", "createGoogleGenerativeAI({baseURL: http://127.0.0.1:", "OPENAI_BASE_URL=http://127.0.0.1:",
			"- the SDK's own key variable: adkproxy set GOOGLE_API_KEY, GOOGLE_GENERATIVE_AI_API_KEY, OPENAI_API_KEY to a placeholder",
			"- the version segment"} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("%s: stderr lacks %q:\n%s", c.name, want, r.stderr)
			}
		}
		if strings.Contains(r.stderr, "no API key reached adkproxy") {
			t.Errorf("%s: blames the key for a run that sent nothing:\n%s", c.name, r.stderr)
		}
	}
	if after := snapshot(t, cas); after != before {
		t.Errorf("a run that recorded nothing changed the cassettes")
	}

	// A run that did reach adkproxy is not empty.
	if r := adkproxy(t, []string{"QUESTION=What is the weather in Paris?"}, append([]string{"replay", "--mode", "lenient", "--cassettes", cas}, self("ask")...)...); r.code != 0 || strings.Contains(r.stderr, "no request reached") {
		t.Errorf("a replay that was reached: exit %d\n%s", r.code, r.stderr)
	}
}

// A re-record whose COMMAND fails after its first call (the upstream
// answers 404) keeps the committed cassette as it was and puts the run's
// exchange beside it in default.failed.yaml, saying where and how to keep
// it; replay still serves the good cassette. --save-on-failure replaces it.
func TestFailedRecordKeepsTheCassette(t *testing.T) {
	t.Parallel()
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"error":{"code":404,"message":"models/gemini-2.5-flash is not found","status":"NOT_FOUND"}}`)
	}))
	defer up.Close()
	cas := filepath.Join(t.TempDir(), "cas")
	os.CopyFS(cas, os.DirFS("../../examples/weather/cassettes"))
	path := filepath.Join(cas, "default.yaml")
	good, _ := os.ReadFile(path)
	env := []string{"QUESTION=What is the weather in Paris?"}
	record := func(flags ...string) result {
		args := append(append([]string{"record", "--cassettes", cas, "--upstream", up.URL}, flags...), self("ask-exit3")...)
		return adkproxy(t, append(env, "GOOGLE_API_KEY=test-key"), args...)
	}

	r := record()
	if r.code != 3 {
		t.Fatalf("exit %d, want the command's 3\n%s", r.code, r.stderr)
	}
	if now, _ := os.ReadFile(path); string(now) != string(good) {
		t.Fatalf("the failed run replaced the cassette:\n%s", now)
	}
	failed := filepath.Join(cas, "default.failed.yaml")
	if b, err := os.ReadFile(failed); err != nil || !strings.Contains(string(b), "NOT_FOUND") {
		t.Fatalf("the run's exchange is not in %s: %v", failed, err)
	}
	for _, want := range []string{"kept as it was", failed, "--save-on-failure"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if r := adkproxy(t, env, append([]string{"replay", "--mode", "lenient", "--cassettes", cas}, self("ask")...)...); r.code != 0 || !strings.HasPrefix(r.stdout, "200 ") {
		t.Errorf("replay of the kept cassette: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}

	if r := record("--save-on-failure"); r.code != 3 {
		t.Fatalf("--save-on-failure: exit %d\n%s", r.code, r.stderr)
	}
	if now, _ := os.ReadFile(path); !strings.Contains(string(now), "NOT_FOUND") {
		t.Errorf("--save-on-failure kept the old cassette:\n%s", now)
	}
}
