package main

import (
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/proxy"
)

// Flags may follow the positional arguments, as people write them
// ('adkproxy diff old new --format html'), in every command; after "--"
// and in record's and replay's wrapped command they belong to it.
func TestFlagsAfterPositionalArguments(t *testing.T) {
	t.Parallel()
	dir := recordScenario(t, "run", weatherScenario())
	out := t.TempDir()
	for _, c := range []struct {
		args  []string
		check func(r result) bool
	}{
		{[]string{"diff", dir, dir, "--format", "json"}, func(r result) bool { return json.Valid([]byte(r.stdout)) }},
		{[]string{"diff", dir, dir, "--format=markdown", "--fail-on", "any"}, func(r result) bool { return strings.Contains(r.stdout, "|") || strings.Contains(r.stdout, "#") }},
		{[]string{"diff", dir, "--format", "html", dir, "--out", filepath.Join(out, "d.html")}, func(result) bool { return fileHas(filepath.Join(out, "d.html"), "<html") }},
		{[]string{"ls", dir, "--format", "json"}, func(r result) bool { return json.Valid([]byte(r.stdout)) }},
		{[]string{"ls", dir, "--json"}, func(r result) bool { return json.Valid([]byte(r.stdout)) }},
		{[]string{"export", dir, "--out", filepath.Join(out, "golden.evalset.json")}, func(result) bool { return fileHas(filepath.Join(out, "golden.evalset.json"), "eval_cases") }},
		{[]string{"score", dir, "--expected", filepath.Join(out, "golden.evalset.json"), "--format", "json"}, func(r result) bool { return json.Valid([]byte(r.stdout)) }},
		// The wrapped command keeps its own flags.
		{[]string{"replay", "--cassettes", dir, "--allow-empty", "--", "sh", "-c", `printf '%s ' "$@"`, "sh", "x", "--format", "json"}, func(r result) bool { return r.stdout == "x --format json " }},
	} {
		if r := adkproxy(t, nil, c.args...); r.code != 0 || !c.check(r) {
			t.Errorf("adkproxy %s: exit %d\nstdout %.300s\nstderr %s", strings.Join(c.args, " "), r.code, r.stdout, r.stderr)
		}
	}
}

// A bare 'adkproxy' is a usage error with a one-line hint, not help and 0.
func TestBareAdkproxyHints(t *testing.T) {
	t.Parallel()
	r := adkproxy(t, nil)
	if r.code != exitUsage || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "record, replay") || !strings.Contains(r.stderr, "adkproxy --help") || r.stdout != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want 64 and one line naming the commands", r.code, r.stdout, r.stderr)
	}
	if r := adkproxy(t, nil, "--help"); r.code != 0 || !strings.Contains(r.stdout, "COMMANDS:") {
		t.Errorf("--help: exit %d", r.code)
	}
}

func fileHas(path, text string) bool {
	b, err := os.ReadFile(path)
	return err == nil && strings.Contains(string(b), text)
}

// FuzzParseConnectTo: --connect-to is the one piece of proxy addressing
// adkproxy parses itself (CONNECT and absolute-form requests are parsed by
// net/http and goproxy). Whatever the input, it either errors with the
// usage hint or gives two HOST:PORT addresses, the first lower-cased.
func FuzzParseConnectTo(f *testing.F) {
	for _, s := range []string{"generativelanguage.googleapis.com:443=127.0.0.1:8443", "[::1]:443=[::1]:1", "a:1=b:2=c:3", "=", ":=:", "h:443=", "H:80=x:65535"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		rule, err := parseConnectTo(s)
		if err != nil {
			if !strings.Contains(err.Error(), "HOST:PORT=ADDR") {
				t.Fatalf("%q: error without the usage hint: %v", s, err)
			}
			return
		}
		for _, hp := range []string{rule.From, rule.To} {
			if h, _, err := net.SplitHostPort(hp); err != nil || h == "" {
				t.Fatalf("%q: accepted %q, not HOST:PORT", s, hp)
			}
		}
		if rule.From != strings.ToLower(rule.From) {
			t.Fatalf("%q: From %q is not lower-case", s, rule.From)
		}
	})
}

func TestParseConnectTo(t *testing.T) {
	t.Parallel()
	got, err := parseConnectTo("Generativelanguage.googleapis.com:443=127.0.0.1:8443")
	if err != nil || got != (proxy.ConnectTo{From: "generativelanguage.googleapis.com:443", To: "127.0.0.1:8443"}) {
		t.Errorf("got %+v, %v", got, err)
	}
	if got, err := parseConnectTo("[::1]:443=[::1]:8443"); err != nil || got.To != "[::1]:8443" {
		t.Errorf("IPv6: %+v, %v", got, err)
	}
	for _, bad := range []string{"", "host:443", "host=1.2.3.4:1", "host:443=1.2.3.4", ":443=1.2.3.4:1", "h:0=1.2.3.4:1", "h:443=1.2.3.4:99999", "h:x=a:1"} {
		if _, err := parseConnectTo(bad); err == nil || !strings.Contains(err.Error(), "HOST:PORT=ADDR") {
			t.Errorf("%q: err %v, want a usage hint", bad, err)
		}
	}
}

// ls, score and export read a folder or one cassette file, named by
// --cassettes or by their one argument; every spelling gives the same output.
func TestReadersTakeAFolderOrAFileByFlagOrArgument(t *testing.T) {
	t.Parallel()
	file := filepath.Join(weatherCassette, "default.yaml")
	for _, tc := range []struct {
		name string
		args []string // the command and its flags; the cassettes are appended
	}{
		{"ls", []string{"ls"}},
		{"score", []string{"score", "--expected", weatherEvalSet, "--config", weatherConfig}},
		{"export", []string{"export"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := adkproxy(t, nil, append(tc.args, "--cassettes", weatherCassette)...)
			if want.code != 0 {
				t.Fatalf("folder by flag: exit %d\n%s", want.code, want.stderr)
			}
			for _, spelling := range [][]string{
				{weatherCassette},
				{file},
				{"--cassettes", file},
			} {
				r := adkproxy(t, nil, append(append([]string{}, tc.args...), spelling...)...)
				got := r.stdout
				if tc.name == "ls" { // ls names the file it read, relative to the folder given
					// the file is named relative to its folder, the same either way
				}
				if r.code != 0 || got != want.stdout {
					t.Errorf("%v: exit %d, stderr %s\ngot:\n%s\nwant:\n%s", spelling, r.code, r.stderr, r.stdout, want.stdout)
				}
			}
		})
	}
}

func TestReadersRefuseTwoDifferentCassettePaths(t *testing.T) {
	t.Parallel()
	other := t.TempDir()
	for _, cmd := range []string{"ls", "score", "export"} {
		r := adkproxy(t, nil, cmd, "--cassettes", weatherCassette, other)
		if r.code != exitUsage || !strings.Contains(r.stderr, "--cassettes") || !strings.Contains(r.stderr, other) {
			t.Errorf("%s: exit %d, stderr %q; want 64 naming both", cmd, r.code, r.stderr)
		}
		r = adkproxy(t, nil, cmd, weatherCassette, other)
		if r.code != exitUsage || !strings.Contains(r.stderr, "one") {
			t.Errorf("%s with two arguments: exit %d, stderr %q", cmd, r.code, r.stderr)
		}
	}
	notCassette := filepath.Join(other, "notes.txt")
	os.WriteFile(notCassette, []byte("x"), 0o644)
	if r := adkproxy(t, nil, "ls", notCassette); r.code != exitDataErr || !strings.Contains(r.stderr, "notes.txt") {
		t.Errorf("a file that is not a cassette: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestBashCompletionCompletesCommandsAndFlags sources the script in a real
// bash and completes as the shell would on Tab.
func TestBashCompletionCompletesCommandsAndFlags(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	for _, c := range []struct {
		words string
		cword int
		want  string
	}{
		{"re", 1, "record replay"},
		{"replay --allow-r", 2, "--allow-repeats"},
		{"record --allow-e", 2, "--allow-empty"},
		{"record --vert", 2, "--vertex-upstream"},
		{"he", 1, "health"},
	} {
		script := `source <("$BIN" completion bash) && COMP_WORDS=("$BIN" ` + c.words + `) && COMP_CWORD=` + string(rune('0'+c.cword)) +
			` && _adkproxy_complete && echo "${COMPREPLY[*]}"`
		cmd := exec.Command(bash, "-c", script)
		cmd.Env = []string{"BIN=" + adkproxyBin}
		out, err := cmd.CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != c.want {
			t.Errorf("adkproxy %s<Tab>: %q (%v), want %q", c.words, out, err, c.want)
		}
	}
}

func TestCompletionScripts(t *testing.T) {
	t.Parallel()
	zsh := adkproxy(t, nil, "completion", "zsh")
	if zsh.code != 0 || !strings.HasPrefix(zsh.stdout, "#compdef adkproxy\n") || !strings.Contains(zsh.stdout, "--generate-bash-completion") {
		t.Errorf("completion zsh: %d\n%s%s", zsh.code, zsh.stdout, zsh.stderr)
	}
	if path, err := exec.LookPath("zsh"); err == nil {
		check := exec.Command(path, "-n", "/dev/stdin")
		check.Stdin = strings.NewReader(zsh.stdout)
		if out, err := check.CombinedOutput(); err != nil {
			t.Errorf("zsh -n rejects the script: %v\n%s", err, out)
		}
	}
	fish := adkproxy(t, nil, "completion", "fish")
	for _, want := range []string{"complete -c adkproxy", "record", "replay", "-l allow-repeats", "-l control-token"} {
		if !strings.Contains(fish.stdout, want) {
			t.Errorf("completion fish lacks %q:\n%s", want, fish.stdout)
		}
	}
	ps := adkproxy(t, nil, "completion", "powershell")
	for _, want := range []string{"Register-ArgumentCompleter -Native -CommandName adkproxy", "--generate-bash-completion", "-contains '--') { return }"} {
		if ps.code != 0 || !strings.Contains(ps.stdout, want) {
			t.Errorf("completion powershell: exit %d, lacks %q:\n%s", ps.code, want, ps.stdout)
		}
	}
	if path, err := exec.LookPath("pwsh"); err == nil { // the script parses in a real PowerShell where there is one
		check := exec.Command(path, "-NoProfile", "-Command", "$null = [ScriptBlock]::Create([Console]::In.ReadToEnd())")
		check.Stdin = strings.NewReader(ps.stdout)
		if out, err := check.CombinedOutput(); err != nil {
			t.Errorf("pwsh rejects the script: %v\n%s", err, out)
		}
	}
	for _, args := range [][]string{{"completion", "tcsh"}, {"completion"}} {
		if r := adkproxy(t, nil, args...); r.code != exitUsage || !strings.Contains(r.stderr, "bash, zsh, fish or powershell") {
			t.Errorf("adkproxy %v: %d %s, want 64 naming the shells", args, r.code, r.stderr)
		}
	}
}

// A completion request about the wrapped command's words (from a script
// installed before the bash script stopped asking, or from zsh) answers
// nothing and runs nothing.
func TestCompletionRequestAfterDashDashRunsNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	for _, cmd := range []string{"record", "replay"} {
		r := adkproxy(t, nil, cmd, "--cassettes", filepath.Join(dir, "cas"), "--addr-file", filepath.Join(dir, "af"), "--",
			"sh", "-c", "echo RAN; touch "+marker, "--generate-bash-completion")
		if r.code != 0 || r.stdout != "" || r.stderr != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 0 and nothing", cmd, r.code, r.stdout, r.stderr)
		}
	}
	for _, f := range []string{marker, filepath.Join(dir, "af"), filepath.Join(dir, "cas")} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s exists: the request ran something", f)
		}
	}
}

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
