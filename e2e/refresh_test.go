package e2e_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// TestRefreshReRecordsFromTheFirstChange records the weather example from
// the rule-based fake, changes the agent's Paris tool result (its second
// model call sends 19 instead of 18), and runs record --mode refresh: the
// first step is kept byte for byte (replayed), exactly the steps from the
// changed one on are re-recorded (the report and the summary say which),
// the recordings they replace are gone, and the refreshed cassette
// replays the changed agent strictly.
func TestRefreshReRecordsFromTheFirstChange(t *testing.T) {
	root := testutil.RepoRoot()
	bin := testutil.BuildAdkproxy(t)
	work := t.TempDir()
	fakegemini := filepath.Join(work, "fakegemini")
	goTool(t, root, nil, "build", "-o", fakegemini, "./internal/testing/fakegemini/cmd/fakegemini")
	v1 := filepath.Join(work, "weather-v1")
	goTool(t, root, nil, "build", "-o", v1, "./examples/weather")
	src, err := os.ReadFile(filepath.Join(root, "examples", "weather", "main.go"))
	if err != nil || !strings.Contains(string(src), `"paris": 18`) {
		t.Fatalf("examples/weather/main.go no longer has Paris at 18 (%v)", err)
	}
	changed := filepath.Join(work, "main.go")
	os.WriteFile(changed, []byte(strings.Replace(string(src), `"paris": 18`, `"paris": 19`, 1)), 0o644)
	overlay := filepath.Join(work, "overlay.json")
	b, _ := json.Marshal(map[string]any{"Replace": map[string]string{filepath.Join(root, "examples", "weather", "main.go"): changed}})
	os.WriteFile(overlay, b, 0o644)
	v2 := filepath.Join(work, "weather-v2")
	goTool(t, root, nil, "build", "-overlay", overlay, "-o", v2, "./examples/weather")

	env := childEnv()
	fake := startFakeGemini(t, fakegemini)
	rec := filepath.Join(work, "rec")
	if r := runAdkproxy(t, work, bin, env, "record", "--cassettes", rec, "--upstream", fake, "--", v1); r.code != 0 {
		t.Fatalf("record: exit %d\n%s", r.code, r.stderr)
	}
	before, err := cassettes.Load(filepath.Join(rec, "default.yaml"))
	if err != nil || len(before.Exchanges) != 4 {
		t.Fatalf("the first recording: %v, %d exchanges", err, len(before.Exchanges))
	}
	report := filepath.Join(work, "report.json")
	r := runAdkproxy(t, work, bin, env, "record", "--mode", "refresh", "--cassettes", rec, "--upstream", fake, "--report", report, "--", v2)
	if r.code != 0 || !strings.Contains(r.stderr, `re-recorded "default" session 1: invocation 1 step 1, invocation 2 step 0, invocation 2 step 1`) {
		t.Fatalf("record --mode refresh: exit %d, want 0 naming the re-recorded steps\n%s", r.code, r.stderr)
	}
	var got struct {
		Outcomes []struct {
			Outcome             string
			Session, Invocation int
			Step                *int
		} `json:"outcomes"`
	}
	data, _ := os.ReadFile(report)
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("report: %v\n%s", err, data)
	}
	places := map[string][]string{}
	for _, o := range got.Outcomes {
		if o.Step != nil {
			places[o.Outcome] = append(places[o.Outcome], strings.Join([]string{itoa(o.Session), itoa(o.Invocation), itoa(*o.Step)}, "."))
		}
	}
	if !slices.Equal(places["matched"], []string{"1.1.0"}) || !slices.Equal(places["recorded"], []string{"1.1.1", "1.2.0", "1.2.1"}) {
		t.Fatalf("kept %v and re-recorded %v, want 1.1.0 kept and 1.1.1, 1.2.0, 1.2.1 re-recorded\n%s", places["matched"], places["recorded"], data)
	}
	after, err := cassettes.Load(filepath.Join(rec, "default.yaml"))
	if err != nil || len(after.Exchanges) != 4 {
		t.Fatalf("the refreshed cassette: %v, %d exchanges (want 4: the stale ones dropped)", err, len(after.Exchanges))
	}
	first := func(c *cassettes.Cassette) *cassettes.Exchange {
		for _, x := range c.Exchanges {
			if x.Place != nil && x.Place.Invocation == 1 && x.Place.Step == 0 {
				return x
			}
		}
		t.Fatal("no invocation 1 step 0")
		return nil
	}
	if a, b := first(before), first(after); string(a.Request.Body) != string(b.Request.Body) || string(a.Response.Body) != string(b.Response.Body) || a.Response.Latency != b.Response.Latency {
		t.Error("the kept step changed")
	}
	if n := testutil.CountInDir(t, rec, `"temp_c": 18`); n != 0 {
		t.Errorf("a recording of the old tool result is still in the cassette")
	}
	if r := runAdkproxy(t, work, bin, env, "replay", "--cassettes", rec, "--", v2); r.code != 0 || !strings.Contains(r.stderr, "4 matched, 0 mismatched, 0 unmatched, 0 recording(s) unused") {
		t.Errorf("strict replay of the refreshed cassette: exit %d\n%s", r.code, r.stderr)
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }
