package e2e_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// TestVitestJestHelper runs the Vitest/Jest helper (integrations/vitest,
// the npm package adkproxy-test) under both runners, pinned in
// e2e/vitestjest, on the same @google/genai agent's tests: recorded from
// adkproxy fake (a test that picks its own cassette included), replayed
// with the fake stopped by the proxy the helper starts, and one test
// changed, which alone fails with its own cassette and the field named.
func TestVitestJestHelper(t *testing.T) {
	t.Parallel()
	root := testutil.RepoRoot()
	dir := filepath.Join(root, "e2e", "vitestjest")
	if _, err := exec.LookPath("node"); err != nil {
		testutil.Require(t, "node (Node.js 20 or newer)")
	}
	for _, pkg := range []string{"vitest", "jest", "@google/genai", "adkproxy-test"} {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", pkg)); err != nil {
			testutil.Require(t, "e2e/vitestjest/node_modules/"+pkg+" (run 'make npm-deps')")
		}
	}
	bin := testutil.BuildAdkproxy(t)
	runners := []struct {
		name string
		args []string
		// failed is how the runner names the changed test's failure.
		failed string
	}{
		{"vitest", []string{"node_modules/vitest/vitest.mjs", "run"}, "FAIL  agent.test.cjs > two turns > then the time"},
		{"jest", []string{"node_modules/jest/bin/jest.js", "--ci"}, "● two turns › then the time"},
	}
	for _, r := range runners {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			// A copy of the project whose node_modules is the pinned one.
			proj := t.TempDir()
			for _, f := range []string{"agent.cjs", "agent.test.cjs", "vitest.config.mjs", "jest.config.cjs", "package.json", "script.yaml"} {
				data, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil {
					t.Fatal(err)
				}
				os.WriteFile(filepath.Join(proj, f), data, 0o644)
			}
			if err := os.Symlink(filepath.Join(dir, "node_modules"), filepath.Join(proj, "node_modules")); err != nil {
				t.Fatal(err)
			}
			run := func(env ...string) (string, int) {
				cmd := exec.Command("node", r.args...)
				cmd.Dir = proj
				cmd.Env = append(os.Environ(), append([]string{"ADKPROXY_BIN=" + bin, "ADKPROXY_CASSETTES=cassettes",
					"GOOGLE_API_KEY=", "GEMINI_API_KEY=", "GOOGLE_GEMINI_BASE_URL=", "ADKPROXY_URL=", "ADKPROXY_RECORD=", "CI=true", "NO_COLOR=1", "FORCE_COLOR=0"}, env...)...)
				out, err := cmd.CombinedOutput()
				return string(out), exitStatus(t, err)
			}
			fake, stopFake := startStoppableFake(t, bin, filepath.Join(proj, "script.yaml"))
			if out, code := run("ADKPROXY_RECORD=1", "ADKPROXY_UPSTREAM="+fake); code != 0 {
				t.Fatalf("record: exit %d\n%s", code, out)
			}
			for _, c := range []string{"agent.test/answers_the_weather-", "shared/lisbon.yaml"} {
				matches, _ := filepath.Glob(filepath.Join(proj, "cassettes", c+"*"))
				if len(matches) != 1 || !fileContains(matches[0], "get_weather") {
					t.Fatalf("no cassette %s* holding the get_weather call: %v", c, matches)
				}
			}
			stopFake()
			if out, code := run(); code != 0 {
				t.Fatalf("replay with the fake stopped: exit %d\n%s", code, out)
			}

			test := filepath.Join(proj, "agent.test.cjs")
			text, _ := os.ReadFile(test)
			changed := strings.Replace(string(text), `'What time is it in Lisbon?'`, `'What time is it in Porto?'`, 1)
			if changed == string(text) {
				t.Fatal("the test file no longer asks the time in Lisbon")
			}
			os.WriteFile(test, []byte(changed), 0o644)
			out, code := run()
			if code == 0 {
				t.Fatalf("replay after the change passed\n%s", out)
			}
			for _, want := range []string{
				r.failed,
				"did not match cassette \"agent.test/two turns",
				`contents[4].parts[0].text: recorded "What time is it in Lisbon?", got "What time is it in Porto?"`,
			} {
				if !strings.Contains(out, want) {
					t.Errorf("the report lacks %q", want)
				}
			}
			for _, other := range []string{"answers the weather", "shares a cassette"} {
				if strings.Contains(out, "FAIL  agent.test.cjs > "+other) || strings.Contains(out, "● "+other) {
					t.Errorf("the unchanged test %q failed too", other)
				}
			}
			if t.Failed() {
				t.Logf("%s said:\n%s", r.name, out)
			}

			// An agent that now stops after the first turn passes its test but
			// leaves the second turn's recordings unused: the run fails.
			early := strings.Replace(string(text), `expect(await ask(WEATHER, 'What time is it in Lisbon?')).toContain('14:05')`, `expect(await ask(WEATHER)).toContain('sunny')`, 1)
			os.WriteFile(test, []byte(early), 0o644)
			if out, code := run(); code == 0 || !strings.Contains(out, "recording(s) no request used") || !strings.Contains(out, "agent.test/two turns") {
				t.Errorf("a test that left recordings unused: exit %d\n%s", code, out)
			}
		})
	}
}
