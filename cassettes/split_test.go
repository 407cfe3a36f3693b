package cassettes

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// splitAndWhole reads data both ways, the split one cutting into runs of
// at least minSize bytes.
func splitAndWhole(data []byte, minSize int) (split *Cassette, splitErr error, whole *Cassette, wholeErr error) {
	split, splitErr = readSplit(testFile, bytes.NewReader(data), math.MaxInt64, minSize)
	doc, _, wholeErr := decodeDocument(testFile, data)
	if doc != nil {
		whole = &doc.Cassette
	}
	return split, splitErr, whole, wholeErr
}

// TestSplitReadsLikeOneDocument: what the session splitter reads, in runs
// of any size, is what the one-document reader reads.
func TestSplitReadsLikeOneDocument(t *testing.T) {
	written, err := Marshal(placedCassette(40))
	if err != nil {
		t.Fatal(err)
	}
	crlf := bytes.ReplaceAll(written, []byte("\n"), []byte("\r\n"))
	edited := strings.Replace(string(written), "sessions:\n", "sessions:\n# a reviewer's note\n\n", 1)
	edited = strings.Replace(edited, "\n  - id: 2\n", "\n# session two\n  - id: 2\n", 1)
	flush := dedentSessions(string(written))
	cases := map[string][]byte{
		"as written":             written,
		"CRLF line ends":         crlf,
		"comments and blanks":    []byte(edited),
		"dashes at column 0":     []byte(flush),
		"no final newline":       bytes.TrimRight(written, "\n"),
		"other before sessions":  moveOtherFirst(t, written),
		"sessions only, by hand": []byte("version: 2\nname: hand\nsessions:\n  - id: 1\n    invocations:\n      - id: 1\n        user: hi\n        steps:\n          - step: 0\n            agent: a\n            request: {method: GET, path: /x}\n            response: {status: 200, body: ok}\n  - id: 2\n    invocations: []\n"),
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			for _, minSize := range []int{1, 3000, minRun} {
				split, splitErr, whole, wholeErr := splitAndWhole(data, minSize)
				if wholeErr != nil {
					t.Fatalf("one document: %v", wholeErr)
				}
				if splitErr != nil {
					t.Fatalf("runs of %d bytes: the splitter gave up: %v", minSize, splitErr)
				}
				if d := diffCassettes(whole, split); d != "" {
					t.Fatalf("runs of %d bytes: %s", minSize, d)
				}
				if len(split.Exchanges) == 0 {
					t.Fatal("read no exchanges")
				}
			}
		})
	}
}

// dedentSessions moves the sessions block two columns left, so its dashes
// are at column 0 (YAML allows a sequence at its key's indentation).
func dedentSessions(s string) string {
	lines := strings.Split(s, "\n")
	inside := false
	for i, l := range lines {
		switch {
		case l == "sessions:":
			inside = true
		case inside && l != "" && l[0] != ' ':
			inside = false
		case inside:
			lines[i] = strings.TrimPrefix(l, "  ")
		}
	}
	return strings.Join(lines, "\n")
}

// moveOtherFirst puts the file's "other:" block before its sessions.
func moveOtherFirst(t *testing.T, data []byte) []byte {
	s := string(data)
	i := strings.Index(s, "\nother:\n")
	j := strings.Index(s, "\nsessions:\n")
	if i < 0 || j < 0 || j > i {
		t.Fatal("expected sessions, then other")
	}
	return []byte(s[:j+1] + s[i+1:] + s[j+1:i+1])
}

// TestSplitGivesUpOnWhatItDoesNotVouchFor: these go through the one
// document reader, so they load (or fail) exactly as before.
func TestSplitGivesUpOnWhatItDoesNotVouchFor(t *testing.T) {
	item := "  - id: 1\n    invocations: []\n"
	for name, data := range map[string]string{
		"tab indentation": "version: 2\nsessions:\n\t- id: 1\n",
		"document marker": "---\nversion: 2\nsessions:\n" + item,
		"not a sequence":  "version: 2\nsessions:\n  id: 1\n",
		"shallower line":  "version: 2\nsessions:\n    - id: 1\n      invocations: []\n  oops: 1\n",
		"empty sessions":  "version: 2\nsessions:\nname: x\n",
		"second document": "version: 2\nsessions:\n" + item + "---\nversion: 2\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := readSplit(testFile, strings.NewReader(data), math.MaxInt64, 1)
			if !errors.Is(err, errNotSplit) {
				t.Errorf("readSplit: %v, want errNotSplit", err)
			}
		})
	}
}

// TestFilesWithoutPlainSessionsAreReadWhole: a file with no plain
// "sessions:" key is read as one document from the text the splitter
// already read, with the one-document reader's result or error.
func TestFilesWithoutPlainSessionsAreReadWhole(t *testing.T) {
	item := "  - id: 1\n    invocations: []\n"
	for name, data := range map[string]string{
		"version 1":     validCassette,
		"no sessions":   "version: 2\nname: x\nother: []\n",
		"flow sessions": "version: 2\nsessions: [{id: 1, invocations: []}]\n",
		"commented key": "version: 2\nsessions: # two\n" + item,
		"broken":        "version: 1\ninteractions:\n  - request: {method: GET}\n",
	} {
		t.Run(name, func(t *testing.T) {
			split, splitErr, whole, wholeErr := splitAndWhole([]byte(data), 1)
			if errors.Is(splitErr, errNotSplit) {
				t.Fatal("readSplit gave up; it has the whole file")
			}
			if fmt.Sprint(splitErr) != fmt.Sprint(wholeErr) {
				t.Fatalf("errors differ:\nsplit: %v\nwhole: %v", splitErr, wholeErr)
			}
			if wholeErr == nil {
				if d := diffCassettes(whole, split); d != "" {
					t.Fatal(d)
				}
			}
		})
	}
}

// TestBrokenSplitFilesReportLikeOneDocument: a problem in one run is
// reported by the one-document reader, with its line in the whole file.
func TestBrokenSplitFilesReportLikeOneDocument(t *testing.T) {
	written, err := Marshal(placedCassette(40))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(written), "\n")
	for i, l := range lines {
		if strings.Contains(l, "status: 200") && i > len(lines)/2 {
			lines[i] = strings.Replace(l, "status: 200", "status: 2000", 1)
			break
		}
	}
	broken := []byte(strings.Join(lines, "\n"))
	_, splitErr, _, wholeErr := splitAndWhole(broken, 1)
	if splitErr == nil || wholeErr == nil {
		t.Fatalf("a status of 2000 loaded: split %v, whole %v", splitErr, wholeErr)
	}
	_, err = Unmarshal(testFile, broken)
	if err == nil || err.Error() != wholeErr.Error() {
		t.Errorf("Unmarshal: %v\nwant the one-document error: %v", err, wholeErr)
	}
}

// FuzzSplitReadsLikeOneDocument: whatever the splitter reads, the
// one-document reader reads the same.
func FuzzSplitReadsLikeOneDocument(f *testing.F) {
	if data, err := Marshal(placedCassette(3)); err == nil {
		f.Add(data, 1)
	}
	// Small cassettes whose values YAML stores in odd ways.
	for i := 0; i+2 < len(trickyStrings); i += 3 {
		c := &Cassette{Name: "tricky"}
		for j, s := range trickyStrings[i : i+3] {
			x := simpleExchange(s, s+"\n")
			x.Place = &Place{Session: j + 1, Invocation: 1, User: s, Step: 0, Agent: "a"}
			c.Exchanges = append(c.Exchanges, x)
		}
		if data, err := Marshal(c); err == nil {
			f.Add(data, i)
		}
	}
	f.Add([]byte("version: 2\nsessions:\n- id: 1\n  invocations: []\n- id: 2\n  invocations: []\n"), 1)
	f.Add([]byte("version: 2\nsessions:\n  - id: 1\n    invocations:\n      - id: 1\n        user: \"a\n  - b\"\n        steps: []\n"), 1)
	f.Add([]byte("version: 2\nsessions:\n  - id: 1\n    invocations: []\n  - &a {id: 2, invocations: []}\n  - *a\n"), 5)
	f.Fuzz(func(t *testing.T, data []byte, minSize int) {
		split, splitErr, whole, wholeErr := splitAndWhole(data, max(minSize%4096, 1))
		if splitErr != nil {
			return
		}
		if wholeErr != nil {
			t.Fatalf("the splitter read a file the one-document reader refuses: %v", wholeErr)
		}
		if d := diffCassettes(whole, split); d != "" {
			t.Fatalf("the two readers differ: %s", d)
		}
	})
}

// TestSplitKeepsTrickyValues: values that YAML stores in odd ways (block
// literals with leading or trailing blank lines, spaces, tabs, Unicode)
// read the same through the splitter, which takes block literals out of
// yaml.v3's hands, as through the one-document reader and as written.
func TestSplitKeepsTrickyValues(t *testing.T) {
	c := &Cassette{Name: "tricky"}
	for i, s := range trickyStrings {
		x := simpleExchange(s, s)
		x.Request.Header = map[string][]string{"X-Tricky": {s}}
		x.Response.Events = []Event{{Data: []byte(s)}, {Data: []byte("data: " + s + "\r\n\r\n")}}
		x.Response.Body = nil
		x.Place = &Place{Session: i + 1, Invocation: 1, User: s, Step: 0, Agent: "a"}
		y := simpleExchange(s+"\n", "{\"text\": "+q(s)+"}")
		y.Place = &Place{Session: i + 1, Invocation: 2, User: s + " again", Step: 0, Agent: "a"}
		c.Exchanges = append(c.Exchanges, x, y)
	}
	data, err := Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(": |")) {
		t.Fatal("no block literal in the test cassette")
	}
	for _, minSize := range []int{1, minRun} {
		split, splitErr, whole, wholeErr := splitAndWhole(data, minSize)
		if splitErr != nil || wholeErr != nil {
			t.Fatalf("runs of %d bytes: split %v, whole %v", minSize, splitErr, wholeErr)
		}
		if d := diffCassettes(whole, split); d != "" {
			t.Fatalf("runs of %d bytes: readers differ: %s", minSize, d)
		}
		if d := diffCassettes(c, split); d != "" {
			t.Fatalf("runs of %d bytes: not what was written: %s", minSize, d)
		}
	}
}

// FuzzLiteralMatchesYAML: a block literal the splitter reads itself has
// the value yaml.v3 gives it.
func FuzzLiteralMatchesYAML(f *testing.F) {
	f.Add([]byte("  {\n    \"a\": 1\n  }\n"), byte('-'), uint8(0))
	f.Add([]byte("\n  \n  x\n\n   \n  y  \n\n"), byte('+'), uint8(2))
	f.Add([]byte("  a\n\tb\n"), byte(0), uint8(0))
	f.Add([]byte("   \n  a\n"), byte('-'), uint8(0))
	f.Add([]byte("  a\r\n  b\r\n\r\n"), byte('+'), uint8(0))
	f.Add([]byte("    \xc2\x85x\n"), byte(0), uint8(4))
	f.Fuzz(func(t *testing.T, block []byte, chomp byte, keyCol uint8) {
		chomps := map[byte]string{'-': "-", '+': "+", 0: ""}
		ind, ok := chomps[chomp]
		if !ok {
			return
		}
		col := int(keyCol % 6)
		pad := strings.Repeat(" ", col)
		// Feed the block's lines until one ends it; YAML must then read
		// the lines taken as the literal's value, whatever followed.
		l := &literal{keyCol: col, chomp: chomp}
		rest := []byte(string(block) + pad + "next: 1\n")
		taken := 0
		for taken < len(rest) {
			i := bytes.IndexByte(rest[taken:], '\n') + 1
			if i == 0 {
				i = len(rest) - taken
			}
			if !l.add(rest[taken : taken+i]) {
				break
			}
			taken += i
		}
		got, ok := l.value()
		if !ok {
			return
		}
		doc := "outer:\n" + pad + "key: |" + ind + "\n" + string(rest[:taken]) + pad + "next: 1\n"
		if col == 0 {
			doc = "key: |" + ind + "\n" + string(rest[:taken]) + "next: 1\n"
		}
		var parsed struct {
			Key   *string
			Outer struct{ Key *string }
		}
		if err := yaml.Unmarshal([]byte(doc), &parsed); err != nil {
			t.Fatalf("the splitter read a block yaml.v3 refuses (%v):\n%q", err, doc)
		}
		want := parsed.Key
		if col > 0 {
			want = parsed.Outer.Key
		}
		if want == nil || *want != got {
			t.Fatalf("value %q, yaml.v3 reads %v from\n%q", got, want, doc)
		}
	})
}

// TestSplitIsNotFooledByHeadersInsideText: text that looks like a block
// literal header ("note: |") inside another value, which the splitter may
// take for one, still reads back exactly.
func TestSplitIsNotFooledByHeadersInsideText(t *testing.T) {
	texts := []string{
		" leading space\nnote: |\n  indented\nend",
		"plain\nnote: |-\n    deeper\n  back\n",
		"  two spaces\n  body: |+\n\n    x\n\n",
	}
	c := &Cassette{Name: "lookalikes"}
	for i, s := range texts {
		x := simpleExchange(s, s)
		x.Place = &Place{Session: i + 1, Invocation: 1, User: s, Step: 0, Agent: "a"}
		c.Exchanges = append(c.Exchanges, x)
	}
	got, data := roundTrip(t, c)
	if d := diffCassettes(c, got); d != "" {
		t.Fatalf("%s\n--- YAML ---\n%s", d, data)
	}
	split, splitErr, whole, _ := splitAndWhole(data, 1)
	if splitErr == nil {
		if d := diffCassettes(whole, split); d != "" {
			t.Fatalf("readers differ: %s", d)
		}
	}
}
