package runview

import (
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/base/textfmt"
)

// FuzzQuotedReadsTheWholeText: cutting a text to its head before
// collapsing its white space (headOf) gives the table the cell collapsing
// all of it gives.
func FuzzQuotedReadsTheWholeText(f *testing.F) {
	for _, s := range []string{"", "short", strings.Repeat("word ", 100), strings.Repeat(" \t\n", 50) + "x", "a\u00a0\u2028b  c\x00d", strings.Repeat("é ", 70)} {
		f.Add(s, 60)
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, s string, width int) {
		width = 3 + int(uint(width)%80)
		if got, want := quoted(s, width), textfmt.JSON(textfmt.Truncate(textfmt.OneLine(s), width-2)); got != want {
			t.Fatalf("quoted(%q, %d) = %s, want %s", s, width, got, want)
		}
	})
}
