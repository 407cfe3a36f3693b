// Package adkpytest runs ADK for Python 1.18 (../shared/vendor/adk-python,
// a PYTHONPATH folder) under the machine's default python3, for tests that
// hold adkproxy to ADK's own code: its pydantic result classes, its
// evaluators, its prompts. Without ../shared or python3 a test skips, and
// under CI fails (testutil.Require).
package adkpytest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// Env is the environment of a python3 that imports the vendored ADK, with
// extra folders (an agent's modules) after it on PYTHONPATH.
func Env(t testing.TB, extra ...string) []string {
	t.Helper()
	dir := testutil.SharedDir(t, "vendor", "adk-python")
	if _, err := exec.LookPath("python3"); err != nil {
		testutil.Require(t, "python3")
	}
	path := append([]string{filepath.Clean(dir)}, extra...)
	env := []string{"PYTHONPATH=" + strings.Join(path, string(os.PathListSeparator)), "PYTHONDONTWRITEBYTECODE=1",
		"PYTHONWARNINGS=ignore"}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PYTHONPATH=") {
			env = append(env, kv)
		}
	}
	return env
}

// Run runs a Python program with the vendored ADK, stdin given, and
// returns its standard output; a failure fails the test with stderr.
func Run(t testing.TB, program string, stdin []byte, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("python3", append([]string{"-c", program}, args...)...)
	cmd.Env = Env(t)
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("python3 with ADK for Python: %v\n%s", err, stderr.String())
	}
	return stdout.Bytes()
}
