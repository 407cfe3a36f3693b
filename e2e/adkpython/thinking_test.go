package adkpython_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// thinkingSignature is the thought signature of the model's n-th answer:
// bytes whose standard base64 has "+" and "/" and padding, so its URL-safe
// spelling (what genai for Python sends back) differs from it.
func thinkingSignature(n int64) []byte { return []byte{0xfb, 0xff, 0xbf, byte(n), 0xfe} }

// thinkingModel is a scripted thinking model on loopback: to a user's
// question about a city it answers with a thought and a signed call of
// get_weather, to the tool's result with a signed text; every signature is
// another, in standard base64 as the Gemini API writes it.
func thinkingModel(t *testing.T) *httptest.Server {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Contents []struct {
				Parts []map[string]any `json:"parts"`
			} `json:"contents"`
		}
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &req); err != nil || len(req.Contents) == 0 || !strings.HasSuffix(r.URL.Path, ":generateContent") {
			http.Error(w, "not a generateContent request: "+r.URL.Path, http.StatusBadRequest)
			return
		}
		sig := base64.StdEncoding.EncodeToString(thinkingSignature(n.Add(1)))
		last := req.Contents[len(req.Contents)-1].Parts
		var parts []map[string]any
		if _, answered := last[0]["functionResponse"]; answered {
			celsius := fmt.Sprint(last[0]["functionResponse"].(map[string]any)["response"].(map[string]any)["celsius"])
			parts = []map[string]any{{"text": "It is " + celsius + " degrees and sunny.", "thoughtSignature": sig}}
		} else {
			city := "Paris"
			if text, _ := last[0]["text"].(string); strings.Contains(text, "Tokyo") {
				city = "Tokyo"
			}
			parts = []map[string]any{{"text": "The user asks about " + city + ".", "thought": true},
				{"functionCall": map[string]any{"name": "get_weather", "args": map[string]any{"city": city}}, "thoughtSignature": sig}}
		}
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		json.NewEncoder(w).Encode(map[string]any{
			"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP"}},
			"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "thoughtsTokenCount": 7, "totalTokenCount": 22},
			"modelVersion":  "gemini-2.5-flash",
		})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestRecordingsPluginImportReplayThinking (issue 40, byte fields): a
// thinking model's run recorded by ADK for Python's RecordingsPlugin, whose
// history sends every thought signature back in URL-safe base64, is
// imported with adkproxy import adk-conformance (which writes the standard
// alphabet) and replayed to the same agent with the default body matching:
// every request matches its recording, and the agent ends as it did.
func TestRecordingsPluginImportReplayThinking(t *testing.T) {
	p := recordImportReplay(t, testutil.BuildAdkproxy(t), thinkingModel(t).URL, "thinking", "the weather app on a thinking model",
		[]string{"What is the weather in Paris?", "And the weather in Tokyo?"})

	// The two sides spell the signatures differently: the test proves
	// something only then.
	sig := thinkingSignature(1)
	std, urlSafe := base64.StdEncoding.EncodeToString(sig), base64.URLEncoding.EncodeToString(sig)
	if plugin := readFile(t, filepath.Join(p.caseDir, "generated-recordings.yaml")); !strings.Contains(plugin, urlSafe) {
		t.Fatalf("RecordingsPlugin's recording does not hold the signature %s URL-safe:\n%s", urlSafe, plugin)
	}
	if imported := readTree(t, p.cassettes); !strings.Contains(imported, std) || strings.Contains(imported, urlSafe) {
		t.Fatalf("the imported cassettes do not hold the signature %s in standard base64 only", std)
	}
	if !strings.Contains(p.replay, "replayed 4 request(s): 4 matched, 0 mismatched, 0 unmatched, 0 recording(s) unused") {
		t.Errorf("replay of the imported recordings:\n%s", p.replay)
	}
	if rec, rep := finalTexts(t, filepath.Join(p.work, "recorded.json")), finalTexts(t, filepath.Join(p.work, "replayed.json")); rec != rep ||
		rec != "It is 18 degrees and sunny. | It is 25 degrees and sunny." {
		t.Errorf("the agent answered %q when recorded and %q on replay", rec, rep)
	}
}

// finalTexts joins the text parts that are not thoughts of a session's
// events (as adk_side.py writes them).
func finalTexts(t *testing.T, path string) string {
	t.Helper()
	var events []struct {
		Content struct {
			Parts []struct {
				Text    string `json:"text"`
				Thought bool   `json:"thought"`
			} `json:"parts"`
		} `json:"content"`
	}
	if err := json.Unmarshal([]byte(readFile(t, path)), &events); err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, e := range events {
		for _, p := range e.Content.Parts {
			if p.Text != "" && !p.Thought && strings.HasPrefix(p.Text, "It is") {
				texts = append(texts, p.Text)
			}
		}
	}
	return strings.Join(texts, " | ")
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// readTree is every file under dir, one after another.
func readTree(t *testing.T, dir string) string {
	t.Helper()
	var all strings.Builder
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			all.WriteString(readFile(t, path))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return all.String()
}
