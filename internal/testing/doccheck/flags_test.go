// Checks that docs/cli.md documents every flag of every command, with its environment variable.

package doccheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

var (
	// "COMMANDS:" lines of adkproxy --help: "   record  forward traffic …".
	commandLine = regexp.MustCompile(`^   ([a-z][a-z-]*)\s{2,}`)
	// "OPTIONS:" lines of adkproxy COMMAND --help: "   --max-body BYTES  … [$ADKPROXY_MAX_BODY]".
	optionLine = regexp.MustCompile(`^   --([a-z][a-z-]*)\b.*?(?:\[\$([A-Z_]+)\])?$`)
)

// TestEveryFlagIsInCLIDoc reads the flags from the real binary's --help, so
// a flag added to cmd/adkproxy without a row in docs/cli.md fails here.
func TestEveryFlagIsInCLIDoc(t *testing.T) {
	bin := testutil.BuildAdkproxy(t)
	doc, err := os.ReadFile(filepath.Join(testutil.RepoRoot(), "docs", "cli.md"))
	if err != nil {
		t.Fatal(err)
	}
	commands := helpSection(t, bin, "COMMANDS:", commandLine)
	if len(commands) == 0 {
		t.Fatal("adkproxy --help lists no commands")
	}
	for _, command := range commands {
		section := commandSection(string(doc), command[1])
		if section == "" {
			t.Errorf("docs/cli.md has no section headed `adkproxy %s`", command[1])
			continue
		}
		for _, option := range helpSection(t, bin, "OPTIONS:", optionLine, command[1]) {
			flag, env := option[1], option[2]
			if flag == "help" {
				continue
			}
			row := flagRow(section, flag)
			switch {
			case row == "":
				t.Errorf("docs/cli.md, `adkproxy %s`: no table row for --%s", command[1], flag)
			case env == "":
				t.Errorf("adkproxy %s --%s has no environment variable (every flag gets one: envFor in cmd/adkproxy)", command[1], flag)
			case !strings.Contains(row, "`"+env+"`"):
				t.Errorf("docs/cli.md, `adkproxy %s`: the row for --%s does not name `%s`", command[1], flag, env)
			}
		}
	}
}

// helpSection runs adkproxy ARGS --help and returns the matches of line in
// the block under heading.
func helpSection(t *testing.T, bin, heading string, line *regexp.Regexp, args ...string) [][]string {
	t.Helper()
	out, err := exec.Command(bin, append(args, "--help")...).CombinedOutput()
	if err != nil {
		t.Fatalf("adkproxy %s --help: %v\n%s", strings.Join(args, " "), err, out)
	}
	_, block, found := strings.Cut(string(out), "\n"+heading+"\n")
	if !found {
		t.Fatalf("adkproxy %s --help has no %s block:\n%s", strings.Join(args, " "), heading, out)
	}
	var matches [][]string
	for _, l := range strings.Split(block, "\n") {
		if l == "" || !strings.HasPrefix(l, " ") {
			break
		}
		if m := line.FindStringSubmatch(l); m != nil {
			matches = append(matches, m)
		}
	}
	return matches
}

// commandSection is the part of cli.md under the "## " heading that names
// `adkproxy COMMAND`, up to the next "## " heading.
func commandSection(doc, command string) string {
	for _, part := range strings.Split(doc, "\n## ")[1:] {
		heading, _, _ := strings.Cut(part, "\n")
		if strings.Contains(heading, "`adkproxy "+command+"`") {
			return part
		}
	}
	return ""
}

// flagRow is the table row of section that documents --flag.
func flagRow(section, flag string) string {
	for _, l := range strings.Split(section, "\n") {
		if strings.HasPrefix(l, "| `--"+flag+"`") || strings.HasPrefix(l, "| `--"+flag+" ") {
			return l
		}
	}
	return ""
}
