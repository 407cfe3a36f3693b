package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

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
