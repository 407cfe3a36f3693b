package align

import (
	"fmt"
	"strings"
	"testing"
)

func TestAlign(t *testing.T) {
	eq := func(a, b byte) bool { return a == b }
	// render writes an alignment as " x" kept, "-x" deleted, "+x" inserted.
	render := func(old, new string, edits []Edit) string {
		var b strings.Builder
		for _, e := range edits {
			switch e.Op {
			case Keep:
				if old[e.Old] != new[e.New] {
					t.Errorf("kept %c and %c", old[e.Old], new[e.New])
				}
				fmt.Fprintf(&b, " %c", old[e.Old])
			case Delete:
				fmt.Fprintf(&b, "-%c", old[e.Old])
			case Insert:
				fmt.Fprintf(&b, "+%c", new[e.New])
			}
		}
		return b.String()
	}
	for _, c := range []struct{ old, new, want string }{
		{"", "", ""},
		{"abc", "abc", " a b c"},
		{"abc", "axbc", " a+x b c"},
		{"abcd", "acd", " a-b c d"},
		{"abc", "xyz", "-a-b-c+x+y+z"},
		{"", "ab", "+a+b"},
		{"ab", "", "-a-b"},
		{"abcabba", "cbabac", "-a-b c-a b+a b a+c"}, // one of the shortest scripts: deletions first
	} {
		if got := render(c.old, c.new, Align([]byte(c.old), []byte(c.new), eq)); got != c.want {
			t.Errorf("Align(%q, %q) = %q, want %q", c.old, c.new, got, c.want)
		}
	}
}
