package cassettes

import (
	"errors"
	"strings"
	"testing"
)

// A line longer than the splitter's read buffer holding a one-line scalar
// (plain, single- or double-quoted: a text body, a base64 body, an
// answer's text in its step's trajectory) reads the same through the
// splitter, which streams it (longscalar.go), as through the one-document
// reader, whatever the characters at its ends, at the cut between the
// buffer's parts or next to a quote or an escape; and the usual forms go
// through the splitter rather than back to the one-document reader.
func TestLongScalarsReadLikeOneDocument(t *testing.T) {
	long := strings.Repeat("word ", 70000/5)
	values := []string{long + "end", "'" + long + "'", `"` + long + `"`, long + "\tend", "a: b " + long + " # c", long + "\u00e9\u4e16\U0001F600",
		strings.Repeat("\u00e9", 40000), strings.Repeat("'", 70000), strings.Repeat(`\`, 70000), strings.Repeat("\x01é", 30000), long + "\x00", long + "\u2028"}
	for _, s := range trickyStrings {
		if !strings.Contains(s, "\n") {
			values = append(values, s+long+s, long+s)
		}
	}
	split := 0
	for i, v := range values {
		c := &Cassette{Name: "long"}
		for j, body := range []string{v, `{"candidates":[{"content":{"role":"model","parts":[{"text":` + q(v) + `}]}}]}`} {
			x := simpleExchange(`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`, body)
			x.Request.Path = "/v1beta/models/m:generateContent"
			x.Request.Body = []byte(v) // a text (or base64) body on one line
			x.Place = &Place{Session: j + 1, Invocation: 1, User: "hi", Agent: "a"}
			c.Exchanges = append(c.Exchanges, x)
		}
		c.Trajectories = func(x *Exchange) Trajectory { return Trajectory{Text: v} }
		data, err := Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		got, splitErr, whole, wholeErr := splitAndWhole(data, minRun)
		if wholeErr != nil {
			t.Fatalf("value %d: %v", i, wholeErr)
		}
		if errors.Is(splitErr, errNotSplit) {
			continue
		}
		if splitErr != nil {
			t.Fatalf("value %d: %v", i, splitErr)
		}
		split++
		if d := diffCassettes(whole, got); d != "" {
			t.Fatalf("value %d (%.40q): the two readers differ: %s", i, v, d)
		}
	}
	if split < len(values)/2 {
		t.Errorf("only %d of %d cassettes went through the splitter", split, len(values))
	}
	t.Logf("%d of %d through the splitter", split, len(values))
}
