// The views with hostile text: what a recording says cannot break out of
// a code block, a <details> block or a terminal line.

package rundiff

import (
	"bytes"
	"strings"
	"testing"
)

func TestViewsKeepHostileTextInside(t *testing.T) {
	hostile := "</details> ```\n<script>alert(1)</script> \x1b[31m| *x* [y](z)"
	old, new := loadWeather(t), edited(t)
	old.Cassettes[0].Sessions[0].Invocations[1].Steps[1].Text = hostile
	new.Cassettes[0].Sessions[0].Invocations[0].Steps[0].ToolCalls[0].Args["units"] = hostile
	old.Cassettes[0].Sessions[0].Invocations[1].User = hostile
	new.Cassettes[0].Sessions[0].Invocations[1].User = hostile
	r := Diff("old", "new", old, new, Options{})

	var md bytes.Buffer
	WriteMarkdown(&md, r)
	out := md.String()
	// Outside the code blocks (which GitHub shows as they are) no markup
	// of the recording's survives; the blocks themselves stay closed.
	var outside []string
	inBlock := false
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "```") {
			inBlock = !inBlock
			continue
		}
		if !inBlock {
			outside = append(outside, line)
		} else if strings.Contains(line, "```") {
			t.Errorf("a fence inside a code block: %q", line)
		}
	}
	rest := strings.Join(outside, "\n")
	if inBlock || strings.Count(rest, "</details>") != 2 || strings.Contains(rest, "<script>") || strings.Contains(out, "\x1b") {
		t.Errorf("the markdown lets the text out:\n%s", out)
	}

	var text bytes.Buffer
	WriteText(&text, r, false)
	if strings.Contains(text.String(), "\x1b") {
		t.Errorf("an escape sequence reached the terminal:\n%q", text.String())
	}
	for _, line := range strings.Split(text.String(), "\n") {
		if strings.HasPrefix(line, "<script>") {
			t.Errorf("the answer's line break went through: %q", line)
		}
	}
}
