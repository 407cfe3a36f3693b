package e2e_test

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// TestDriftSortsEachChange records the ADK Go example from the scripted
// fake, then runs 'adkproxy drift' against fakes whose script changed one
// thing each (a field added, removed or retyped, another tool call,
// another model version) and against a changed agent: each change is
// reported with its kind, what it is, its path and severity, the exit
// status follows --fail-on, and the recorded folder's bytes are the same
// after every run.
func TestDriftSortsEachChange(t *testing.T) {
	root := testutil.RepoRoot()
	bin := testutil.BuildAdkproxy(t)
	work := t.TempDir()
	v1 := buildAgent(t, root, work, "v1", `TempC: 21`)
	v2 := buildAgent(t, root, work, "v2", `TempC: 22`) // the agent's code moved: its tool answers otherwise
	base, err := os.ReadFile(filepath.Join(root, "examples", "adkgo", "script.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	script := func(name, text string) string {
		p := filepath.Join(work, name+".yaml")
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	env := childEnv()
	rec := filepath.Join(work, "rec")
	if r := runAdkproxy(t, work, bin, env, "record", "--cassettes", rec, "--upstream", startFake(t, bin, script("base", string(base))), "--", v1); r.code != 0 {
		t.Fatalf("record: exit %d\n%s", r.code, r.stderr)
	}
	before := hashTree(t, rec)
	answers := func(block string) string { return string(base) + "answers:\n" + block }
	cases := []struct {
		name, script, agent   string
		kind, what, path, sev string
		code                  int
	}{
		{"field added", answers("  set: {usageMetadata.trafficType: ON_DEMAND}\n"), v1, "shape", "field_added", "usageMetadata.trafficType", "low", 0},
		{"field removed", answers("  drop: [usageMetadata.promptTokenCount]\n"), v1, "shape", "field_removed", "usageMetadata.promptTokenCount", "high", 1},
		{"type changed", answers("  set: {responseId: 7}\n"), v1, "shape", "type_changed", "responseId", "high", 1}, // the genai SDK fails on it too: the agent's status
		{"another tool call", strings.Replace(string(base), "call: get_local_time", "call: get_weather", 1), v1, "behaviour", "tool_calls", "", "high", 1},
		{"another model version", answers("  model_version: gemini-2.5-flash-002\n"), v1, "behaviour", "model_version", "", "medium", 1},
		{"the agent's request", string(base), v2, "request", "request_field", "contents[2].parts[get_weather].functionResponse.response.temp_c", "medium", 1},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fake := startFake(t, bin, script(fmt.Sprintf("case%d", i), c.script))
			out := filepath.Join(work, fmt.Sprintf("drift%d.json", i))
			r := runAdkproxy(t, work, bin, env, "drift", "--cassettes", rec, "--upstream", fake, "--format", "json", "--out", out, "--", c.agent)
			if r.code != c.code {
				t.Errorf("exit %d, want %d\n%s", r.code, c.code, r.stderr)
			}
			var report struct {
				Changes []struct{ Kind, What, Path, Severity, Recorded, Live string } `json:"changes"`
			}
			data, err := os.ReadFile(out)
			if err != nil || json.Unmarshal(data, &report) != nil {
				t.Fatalf("no JSON report (%v):\n%s\n%s", err, data, r.stderr)
			}
			found := false
			for _, ch := range report.Changes {
				if ch.Kind == c.kind && ch.What == c.what && ch.Severity == c.sev && (c.path == "" || ch.Path == c.path) {
					found = true
				}
				if c.kind == "shape" && ch.Kind == "request" {
					t.Errorf("a change of the answer's shape reported as the agent's request: %+v", ch)
				}
			}
			if !found {
				t.Errorf("no %s %s change at %q of severity %s in:\n%s", c.kind, c.what, c.path, c.sev, data)
			}
			if after := hashTree(t, rec); after != before {
				t.Fatalf("drift changed the recorded folder:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
	t.Run("formats", func(t *testing.T) {
		fake := startFake(t, bin, script("formats", answers("  model_version: gemini-2.5-flash-002\n")))
		html := filepath.Join(work, "drift.html")
		if r := runAdkproxy(t, work, bin, env, "drift", "--cassettes", rec, "--upstream", fake, "--format", "html", "--out", html, "--fail-on", "high", "--", v1); r.code != 0 ||
			!fileContains(html, "[medium] behaviour model_version") || !fileContains(html, "adkproxy drift: ") {
			t.Errorf("--format html --fail-on high: exit %d, want 0 and a page naming the change\n%s", r.code, r.stderr)
		}
		fake = startFake(t, bin, script("formats2", string(base)))
		if r := runAdkproxy(t, work, bin, env, "drift", "--cassettes", rec, "--upstream", fake, "--", v1); r.code != 0 || !strings.Contains(r.stdout, "drift: none") {
			t.Errorf("nothing changed: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		if hashTree(t, rec) != before {
			t.Fatal("drift changed the recorded folder")
		}
	})
}

// hashTree is one hash over every file's path, mode and bytes under dir.
func hashTree(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %v\n", path, info.Mode())
		if d.Type().IsRegular() {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			h.Write(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}
