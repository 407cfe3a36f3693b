package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

func TestVersionFromBuildInfo(t *testing.T) {
	t.Parallel()
	checkout := &debug.BuildInfo{Main: debug.Module{Version: "v0.3.1-0.20261124093150-24a072b2c3d4+dirty"}, Settings: []debug.BuildSetting{
		{Key: "vcs", Value: "git"},
		{Key: "vcs.revision", Value: "24a072b2c3d4e5f60718293a4b5c6d7e8f901234"},
		{Key: "vcs.time", Value: "2026-11-24T09:31:50Z"},
		{Key: "vcs.modified", Value: "true"},
	}}
	for _, c := range []struct {
		what     string
		info     *debug.BuildInfo
		override string
		want     string
	}{
		{"built from a checkout", checkout, "", "v0.3.1-0.20261124093150-24a072b2c3d4+dirty (revision 24a072b2c3d4e5f60718293a4b5c6d7e8f901234, 2026-11-24T09:31:50Z, modified, " + runtime.Version() + ")"},
		{"go install of a release", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}}, "", "v1.2.0 (" + runtime.Version() + ")"},
		{"set at link time (the container image)", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "v1.2.0-rc1", "v1.2.0-rc1 (" + runtime.Version() + ")"},
		{"no build information", nil, "", "(devel) (" + runtime.Version() + ")"},
	} {
		if got := versionFrom(c.info, c.override); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.what, got, c.want)
		}
	}
}

// TestVersionOfACheckoutBuild builds adkproxy as `make build` does and
// requires the checkout's revision in --version.
func TestVersionOfACheckoutBuild(t *testing.T) {
	t.Parallel()
	root := testutil.RepoRoot()
	if fi, err := os.Stat(filepath.Join(root, ".git")); err != nil || !fi.IsDir() {
		// Go reads VCS information only from a .git folder; a git worktree
		// has a .git file.
		t.Skipf("%s is not a git clone with a .git folder (a worktree?); Go stamps no revision there", root)
	}
	head, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("git rev-parse HEAD: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "adkproxy")
	build := exec.Command("go", "build", "-buildvcs=auto", "-o", bin, "./cmd/adkproxy")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "revision "+strings.TrimSpace(string(head))) || strings.Contains(string(out), "(devel)") {
		t.Errorf("--version = %q, want the module version and revision %s", out, head)
	}
}
