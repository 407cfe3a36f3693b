package runview

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzTableWritesAsTabwriter: a table written a line at a time with the
// widths it works out is the table its tabwriters align, byte for byte,
// whatever the cells (a cell tabwriter reads as more than text, or kinds
// with rows of other lengths, take the tabwriters' path).
func FuzzTableWritesAsTabwriter(f *testing.F) {
	f.Add("CASSETTE a|  session 1|    invocation 1,\"hi\",agents: a,steps: 2|      step 0,a,→ get_weather()|      step 1,a,\"It is 18 degrees\"|    GET,/v1/models,200,", "0123345")
	f.Add("é,ü,x|日本,語,y|a,,b|,,", "333")
	f.Add("a\tb,c|d,e\nf|g,\xff", "111")
	f.Add("a,b|c|d,e,f", "222")
	f.Fuzz(func(t *testing.T, rows, kinds string) {
		var tb table
		for i, r := range strings.Split(rows, "|") {
			kind := 0
			if i < len(kinds) {
				kind = int(kinds[i] % 6)
			}
			tb.add(kind, strings.Split(r, ",")...)
		}
		var fast, slow bytes.Buffer
		tb.write(&fast)
		tb.writeTabwriter(&slow)
		if fast.String() != slow.String() {
			t.Fatalf("written:\n%q\ntabwriter:\n%q", fast.String(), slow.String())
		}
	})
}
