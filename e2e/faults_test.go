package e2e_test

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/engine/fake"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// faultScript answers e2e/js/faults.mjs: a tool call, then the answer in
// two parts (two SSE events when streamed).
const faultScript = `
turns:
  - user: What is the weather in Paris?
    model:
      - call: get_weather
        args: {city: Paris}
      - parts:
          - text: "It is 18 degrees"
          - text: " in Paris."
`

// TestJSClientUnderFaults shows what the official JS client @google/genai
// does with each fault injected at its first model call, with its retry
// setting off and on: its output, and adkproxy's status (76 when the
// client gave up and left recordings unused).
func TestJSClientUnderFaults(t *testing.T) {
	root := testutil.RepoRoot()
	node := requireJSClient(t, root)
	bin := testutil.BuildAdkproxy(t)
	script, err := fake.ParseScript("faults.yaml", []byte(faultScript))
	if err != nil {
		t.Fatal(err)
	}
	up := httptest.NewServer(fake.New(script))
	defer up.Close()
	const answer = `{"text":"It is 18 degrees in Paris."}`
	dirs := map[bool]string{}
	for _, stream := range []bool{false, true} {
		dirs[stream] = testutil.OutDir(t) + fmt.Sprint("/", stream)
		rec := runAdkproxy(t, root, bin, childEnv("GOOGLE_API_KEY=test-key", fmt.Sprintf("FAULT_STREAM=%d", btoi(stream))),
			"record", "--cassettes", dirs[stream], "--upstream", up.URL, "--", node, "e2e/js/faults.mjs")
		if rec.code != 0 || strings.TrimSpace(rec.stdout) != answer {
			t.Fatalf("recording (stream %v): exit %d, %s\n%s", stream, rec.code, rec.stdout, rec.stderr)
		}
	}
	for _, tc := range []struct {
		fault  string
		stream bool
		// without retries: the client's output; with one retry: whether it
		// gets the recording.
		output  string
		retried bool
	}{
		{fault: "429", output: `{"error":"{\"error\":{\"code\":429,\"message\":\"Resource has been exhausted (e.g. check quota).\",\"status\":\"RESOURCE_EXHAUSTED\",\"details\":[{\"@type\":\"type.googleapis.com/google.rpc.RetryInfo\",\"retryDelay\":\"1s\"}]}}"}`, retried: true},
		{fault: "503", output: `{"error":"{\"error\":{\"code\":503,\"message\":\"The model is overloaded. Please try again later.\",\"status\":\"UNAVAILABLE\"}}"}`, retried: true},
		{fault: "500", output: `{"error":"{\"error\":{\"code\":500,\"message\":\"An internal error has occurred. Please retry.\",\"status\":\"INTERNAL\"}}"}`, retried: true},
		// Unlike the Go client, retryOptions do not retry a broken
		// connection: the JS client gives up.
		{fault: "reset", output: `{"error":"fetch failed"}`},
		{fault: "reset after 1 events", stream: true, output: `{"error":"terminated"}`},
		{fault: "safety", output: `{"error":"no content","finishReason":"SAFETY","candidates":1}`},
		{fault: "malformed-call", output: `{"error":"no content","finishReason":"MALFORMED_FUNCTION_CALL","candidates":1}`},
		{fault: "empty", output: `{"error":"no content","candidates":0}`},
		{fault: "truncated-json", output: `{"error":"Unterminated string in JSON at position 263"}`},
		{fault: "truncated-json", stream: true, output: `{"error":"Incomplete JSON segment at the end"}`},
	} {
		for _, retries := range []int{0, 1} {
			if retries > 0 && !tc.retried && !strings.HasPrefix(tc.fault, "reset") {
				continue // a 200 answer: no client retries it
			}
			res := runAdkproxy(t, root, bin, childEnv(fmt.Sprintf("FAULT_STREAM=%d", btoi(tc.stream)), fmt.Sprintf("RETRIES=%d", retries)),
				"replay", "--cassettes", dirs[tc.stream], "--fault", "call 1: "+tc.fault, "--", node, "e2e/js/faults.mjs")
			got := strings.TrimSpace(res.stdout)
			t.Logf("JS client, fault %q, stream %v, retries %d: exit %d, %s", tc.fault, tc.stream, retries, res.code, got)
			if retries > 0 && tc.retried {
				if res.code != 0 || got != answer || !strings.Contains(res.stderr, ": recovered") {
					t.Errorf("%s with a retry: exit %d, %s; want 0 and the answer\n%s", tc.fault, res.code, got, res.stderr)
				}
				continue
			}
			if res.code != exitUnmatched || got != tc.output || !strings.Contains(res.stderr, "the agent did not recover") || strings.Contains(res.stderr, "no request reached") {
				t.Errorf("%s, retries %d: exit %d, %s; want 76 and %s\n%s", tc.fault, retries, res.code, got, tc.output, res.stderr)
			}
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
