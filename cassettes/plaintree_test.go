package cassettes

import (
	"bytes"
	"fmt"
	"math"
	"testing"

	"gopkg.in/yaml.v3"
)

// samePlainTree compares two node trees but for their lines and columns;
// "" when they agree.
func samePlainTree(a, b *yaml.Node, at string) string {
	switch {
	case a.Kind != b.Kind:
		return fmt.Sprintf("%s: kind %v, yaml.v3 %v", at, a.Kind, b.Kind)
	case a.Value != b.Value:
		return fmt.Sprintf("%s: value %q, yaml.v3 %q", at, a.Value, b.Value)
	case a.Tag != b.Tag:
		return fmt.Sprintf("%s: tag %s, yaml.v3 %s", at, a.Tag, b.Tag)
	case a.Style != b.Style:
		return fmt.Sprintf("%s: style %v, yaml.v3 %v", at, a.Style, b.Style)
	case len(a.Content) != len(b.Content):
		return fmt.Sprintf("%s: %d children, yaml.v3 %d", at, len(a.Content), len(b.Content))
	}
	for i := range a.Content {
		if d := samePlainTree(a.Content[i], b.Content[i], fmt.Sprintf("%s/%d", at, i)); d != "" {
			return d
		}
	}
	return ""
}

// splitPieces is the text of every piece the session splitter cuts data
// into, runs of at least minSize bytes.
func splitPieces(data []byte, minSize int) []string {
	var pieces []string
	splitSessions(bytes.NewReader(data), math.MaxInt64, minSize, nil, func(run []byte, _ []block) {
		pieces = append(pieces, string(run))
	})
	return pieces
}

// plainTreeMatchesYAML fails t when plainTree accepts text and yaml.v3
// reads it otherwise (or not at all).
func plainTreeMatchesYAML(t *testing.T, text string) bool {
	t.Helper()
	got, ok := plainTree([]byte(text))
	if !ok {
		return false
	}
	want, ok := yamlTree([]byte(text))
	if !ok {
		t.Fatalf("plainTree read a piece yaml.v3 refuses:\n%s", text)
	}
	if d := samePlainTree(got, want, "doc"); d != "" {
		t.Fatalf("%s\nin:\n%s", d, text)
	}
	r := reader{file: testFile}
	if (r.check(got) == nil) != (r.check(want) == nil) {
		t.Fatalf("check: %v, yaml.v3's tree: %v", r.check(got), r.check(want))
	}
	return true
}

// TestPlainTreeReadsWhatSaveWrites: every piece of cassettes Save wrote,
// tricky values included, is read without yaml.v3, as yaml.v3 reads it.
func TestPlainTreeReadsWhatSaveWrites(t *testing.T) {
	c := placedCassette(40)
	for i, s := range trickyStrings {
		x := simpleExchange(s, `{"candidates": [{"content": {"parts": [{"functionCall": {"name": "f", "args": {"q": `+q(s)+`, "n": -1.5, "z": null, "k": [true, "null", "~", "a: b", "#x"]}}}], "role": "model"}}]}`)
		x.Request.Header = map[string][]string{"X-Tricky": {s}, "Vary": {"a", s}}
		x.Place = &Place{Session: 100 + i, Invocation: 1, User: s, Tag: s, Step: 0, Agent: "a"}
		c.Exchanges = append(c.Exchanges, x)
	}
	data, err := Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte("trajectory:")) {
		t.Fatal("no trajectory in the test cassette")
	}
	read, rejected := 0, 0
	for _, piece := range splitPieces(data, 1) {
		if plainTreeMatchesYAML(t, piece) {
			read++
		} else {
			rejected++
		}
	}
	// A piece with a value Save writes in a form plainTree leaves to
	// yaml.v3 (a multi-line or tab-holding string) is allowed; most are read.
	if read < 40 || rejected > len(trickyStrings)/2 {
		t.Fatalf("plainTree read %d pieces and gave %d to yaml.v3", read, rejected)
	}
}

// plainSubset are pieces in the layout plainTree reads: nested blocks,
// flow collections with quoted keys, nulls, escapes, duplicate keys and a
// literal mark.
var plainSubset = []string{
	"  - [yes, on, Y, n, True, FALSE, 0x1f, 1e3, .5, -.inf, .NaN, 0o17, 1_000, 2024-01-01, +1, -0, 012, '1', \"true\"]\n  - {a: [1, 2.5, true, ~], 'y': yes, \"n\": null}\n  - t: 2024-01-01T10:00:00Z\n",
	"  - id: 1\n    invocations:\n      - id: 1\n        user: 'it''s #1'\n        steps:\n          - step: 0\n            t: {a: [b, c d], e: {}, f: []}\n            n: null\n            e:\n            body: |-\n              " + literalMark + "0\n",
	"  - \"\\x41\\u00e9\\U0001F600\\t\\\\\"\n  - -5\n  - ~\n  - a#b\n  - Null\n",
	"  - a: 1\n    a: 2\n    null: x\n    b: [c, {d: e, 'f': \"g\"}]\n    h: \"\\x80\\u0000\\N\\_\\L\\e\\ \"\n    i: a  b, c\n    j: 0x1f\n  - [x, y]\n  - k\n",
}

// TestPlainTreeReadsTheSubset: each is read without yaml.v3, as yaml.v3
// reads it.
func TestPlainTreeReadsTheSubset(t *testing.T) {
	for _, text := range plainSubset {
		if !plainTreeMatchesYAML(t, text) {
			t.Errorf("plainTree gave up on\n%s", text)
		}
	}
}

// TestPlainTreeGivesUpOnOtherLayouts: what it does not vouch for goes to
// yaml.v3.
func TestPlainTreeGivesUpOnOtherLayouts(t *testing.T) {
	for name, text := range map[string]string{
		"comment":             "  - id: 1 # one\n",
		"comment line":        "  - id: 1\n    # note\n    invocations: []\n",
		"blank line":          "  - id: 1\n\n    invocations: []\n",
		"anchor":              "  - &a {id: 1}\n",
		"alias":               "  - id: *a\n",
		"tag":                 "  - id: !!str 1\n",
		"multi-line plain":    "  - id: 1\n    user: a\n      b\n",
		"multi-line quoted":   "  - user: 'a\n      b'\n",
		"folded":              "  - user: >\n      a\n",
		"literal not a mark":  "  - body: |\n      text\n",
		"tab":                 "  - id:\t1\n",
		"CR":                  "  - id: 1\r\n",
		"seq at key's indent": "  - steps:\n    - 1\n",
		"unclosed flow":       "  - h: [a, b\n",
		"flow with colon":     "  - h: [a:b]\n",
		"no final newline":    "  - id: 1",
		"top is a mapping":    "  id: 1\n",
		"merge key":           "  - a: <<\n",
	} {
		if _, ok := plainTree([]byte(text)); ok {
			t.Errorf("%s: plainTree read %q", name, text)
		}
	}
}

// FuzzPlainTree: on every piece plainTree reads, yaml.v3 reads the same
// tree (as far as the readers look at it).
func FuzzPlainTree(f *testing.F) {
	if data, err := Marshal(placedCassette(4)); err == nil {
		for _, p := range splitPieces(data, 1) {
			f.Add(p)
		}
	}
	for _, s := range trickyStrings {
		f.Add("  - user: " + q(s) + "\n    h: [a, " + q(s) + "]\n")
	}
	for _, text := range plainSubset {
		f.Add(text)
	}
	f.Fuzz(func(t *testing.T, text string) {
		plainTreeMatchesYAML(t, text)
	})
}

// BenchmarkPieceTree is the node tree of the sessions pieces of a
// realistic cassette, read by plainTree and by yaml.v3.
func BenchmarkPieceTree(b *testing.B) {
	data, err := Marshal(placedCassette(200))
	if err != nil {
		b.Fatal(err)
	}
	pieces := splitPieces(data, minRun)
	size := 0
	for _, p := range pieces {
		size += len(p)
	}
	for name, read := range map[string]func([]byte) (*yaml.Node, bool){"plain": plainTree, "yaml.v3": yamlTree} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				for _, p := range pieces {
					if _, ok := read([]byte(p)); !ok {
						b.Fatal("not read")
					}
				}
			}
		})
	}
}
