package e2e_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// TestShippedExamplesRecordProvenance records the shipped examples as
// scripts/record-demo.sh does, through the real binary and local fakes
// (the ADK Go agent from 'adkproxy fake', the genai weather agent from the
// tests' scripted Gemini), and reads the cassettes back with ls: each
// carries its provenance (time, adkproxy, upstream kind, clients,
// frameworks, models), ls shows it in every format, and it holds neither
// the key nor the fake's address.
func TestShippedExamplesRecordProvenance(t *testing.T) {
	root := testutil.RepoRoot()
	bin := testutil.BuildAdkproxy(t)
	work := t.TempDir()
	adkgo := filepath.Join(work, "adkgo-agent")
	goTool(t, filepath.Join(root, "examples", "adkgo"), nil, "build", "-o", adkgo, ".")
	weather := filepath.Join(work, "weather-agent")
	goTool(t, root, nil, "build", "-o", weather, "./examples/weather")
	fakegemini := filepath.Join(work, "fakegemini")
	goTool(t, root, nil, "build", "-o", fakegemini, "./internal/testing/fakegemini/cmd/fakegemini")

	const key = "AIzaSyPROVENANCE-e2e-key-0123456789ab"
	env := childEnv("GOOGLE_API_KEY=" + key)
	examples := []struct {
		name, upstream, agent, framework, client string
	}{
		{"adkgo", startFake(t, bin, filepath.Join(root, "examples", "adkgo", "script.yaml")), adkgo, "google-adk/", "google-genai-sdk/"},
		{"weather", startFakeGemini(t, fakegemini), weather, "", "google-genai-sdk/"},
	}
	if r := runAdkproxy(t, work, bin, env, "ls", "--stale", "90d", filepath.Join(root, "examples", "adkgo", "cassettes")); r.code != 1 ||
		!strings.Contains(r.stdout, "recorded at an unknown time (no provenance)") {
		t.Errorf("ls --stale on a cassette without provenance: exit %d, want 1 listing it\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runAdkproxy(t, work, bin, env, "ls", "--stale", "soon", root); r.code != 64 || !strings.Contains(r.stderr, `"soon" is not an age`) {
		t.Errorf("ls --stale soon: exit %d, want 64\n%s", r.code, r.stderr)
	}
	for _, ex := range examples {
		t.Run(ex.name, func(t *testing.T) {
			dir := filepath.Join(work, ex.name)
			if r := runAdkproxy(t, work, bin, env, "record", "--cassettes", dir, "--upstream", ex.upstream, "--", ex.agent); r.code != 0 {
				t.Fatalf("record: exit %d\n%s", r.code, r.stderr)
			}
			table := runAdkproxy(t, work, bin, env, "ls", dir)
			today := time.Now().UTC().Format("2006-01-02")
			if table.code != 0 || !strings.Contains(table.stdout, "  recorded "+today) || !strings.Contains(table.stdout, "upstream local") ||
				!strings.Contains(table.stdout, ex.client) || !strings.Contains(table.stdout, "models gemini-") {
				t.Fatalf("ls: exit %d, no provenance line:\n%s\n%s", table.code, table.stdout, table.stderr)
			}
			var doc struct {
				Cassettes []struct {
					Provenance *struct {
						RecordedAt string              `json:"recorded_at"`
						Adkproxy   string              `json:"adkproxy"`
						Upstream   []string            `json:"upstream"`
						Clients    []string            `json:"clients"`
						Frameworks []string            `json:"frameworks"`
						Models     map[string][]string `json:"models"`
					} `json:"provenance"`
				} `json:"cassettes"`
			}
			js := runAdkproxy(t, work, bin, env, "ls", "--json", dir)
			if err := json.Unmarshal([]byte(js.stdout), &doc); err != nil || len(doc.Cassettes) == 0 {
				t.Fatalf("ls --json: exit %d, %v\n%s", js.code, err, js.stdout)
			}
			for _, c := range doc.Cassettes {
				p := c.Provenance
				if p == nil || !strings.HasPrefix(p.RecordedAt, today) || p.Adkproxy == "" || !slices.Equal(p.Upstream, []string{"local"}) ||
					!hasPrefix(p.Clients, ex.client) || len(p.Models) == 0 || (ex.framework != "" && !hasPrefix(p.Frameworks, ex.framework)) {
					t.Errorf("ls --json provenance %+v, want today's, local, a %s client, models%s", p, ex.client, map[bool]string{true: ", a " + ex.framework + " framework"}[ex.framework != ""])
				}
			}
			page := filepath.Join(work, ex.name+".html")
			html := runAdkproxy(t, work, bin, env, "ls", "--format", "html", dir)
			os.WriteFile(page, []byte(html.stdout), 0o644)
			if html.code != 0 || !strings.Contains(html.stdout, "recorded "+today) {
				t.Errorf("ls --format html: exit %d, no provenance in the page", html.code)
			}
			fakeHost := strings.TrimPrefix(ex.upstream, "http://")
			for _, needle := range []string{key, fakeHost, "127.0.0.1"} {
				if n := provenanceCount(t, dir, needle); n > 0 {
					t.Errorf("the provenance holds %q", needle)
				}
			}
			if n := testutil.CountInDir(t, dir, key); n > 0 {
				t.Errorf("the key reached %d cassette file(s)", n)
			}
			if r := runAdkproxy(t, work, bin, env, "ls", "--stale", "90d", dir); r.code != 0 || !strings.Contains(r.stdout, "no cassette recorded more than 90d ago") {
				t.Errorf("ls --stale 90d on today's recording: exit %d, want 0\n%s%s", r.code, r.stdout, r.stderr)
			}
			if r := runAdkproxy(t, work, bin, env, "ls", "--stale", "0s", "--json", dir); r.code != 1 || !strings.Contains(r.stdout, `"age_days": 0`) {
				t.Errorf("ls --stale 0s: exit %d, want 1 listing every cassette\n%s%s", r.code, r.stdout, r.stderr)
			}
		})
	}
}

// provenanceCount counts the cassettes of dir whose provenance block
// holds needle.
func provenanceCount(t *testing.T, dir, needle string) int {
	t.Helper()
	n := 0
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") {
			return err
		}
		b, _ := os.ReadFile(path)
		_, block, ok := strings.Cut(string(b), "\nprovenance:\n")
		if !ok {
			t.Errorf("%s has no provenance", path)
			return nil
		}
		if i := strings.Index(block, "\nsessions:"); i >= 0 {
			block = block[:i]
		}
		if strings.Contains(block, needle) {
			n++
		}
		return nil
	})
	return n
}

func hasPrefix(list []string, prefix string) bool {
	return slices.ContainsFunc(list, func(s string) bool { return strings.HasPrefix(s, prefix) })
}

// startFakeGemini serves the tests' rule-based Gemini until the test ends
// and returns its base URL.
func startFakeGemini(t *testing.T, bin string) string {
	t.Helper()
	addrFile := filepath.Join(t.TempDir(), "addr")
	fake := exec.Command(bin, "-addr-file", addrFile)
	if err := fake.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fake.Process.Kill(); fake.Wait() })
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if addr, _ := os.ReadFile(addrFile); len(addr) > 0 {
			return "http://" + strings.TrimSpace(string(addr))
		}
	}
	t.Fatal("fakegemini did not write its address")
	return ""
}
