package fault

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	for spec, want := range map[string]Fault{
		"call 1: 429":                {Where: Where{Kind: AtCall, Call: 1}, What: What{Kind: Status, Code: 429, RetryAfter: time.Second}},
		"call 2: 429 retry after 5s": {Where: Where{Kind: AtCall, Call: 2}, What: What{Kind: Status, Code: 429, RetryAfter: 5 * time.Second}},
		"CALL 3 : 503":               {Where: Where{Kind: AtCall, Call: 3}, What: What{Kind: Status, Code: 503}},
		"invocation 2 step 0: reset": {Where: Where{Kind: AtPlace, Invocation: 2}, What: What{Kind: Reset}},
		"invocation 1 step 2 in suite/TestX: reset after 3 events": {Where: Where{Kind: AtPlace, Invocation: 1, Step: 2, Cassette: "suite/TestX"}, What: What{Kind: Reset, Events: 3}},
		"tool api.weather.example/v1: delay 30s":                   {Where: Where{Kind: AtTool, Host: "api.weather.example", Path: "/v1"}, What: What{Kind: Delay, Duration: 30 * time.Second}},
		"tool https://API.example: 500":                            {Where: Where{Kind: AtTool, Host: "api.example", Path: "/"}, What: What{Kind: Status, Code: 500}},
		"tool localhost:8080/v1/x: 503":                            {Where: Where{Kind: AtTool, Host: "localhost:8080", Path: "/v1/x"}, What: What{Kind: Status, Code: 503}},
		"every call 20% seed 7: safety":                            {Where: Where{Kind: EveryCall, Probability: 0.2, Seed: 7}, What: What{Kind: Safety}},
		"every call with probability 0.5: empty":                   {Where: Where{Kind: EveryCall, Probability: 0.5, Seed: 1}, What: What{Kind: Empty}},
		"every call: malformed-call":                               {Where: Where{Kind: EveryCall, Probability: 1, Seed: 1}, What: What{Kind: MalformedCall}},
		"call 1: truncated-json":                                   {Where: Where{Kind: AtCall, Call: 1}, What: What{Kind: TruncatedJSON}},
		"call 1: close 1011 after 2 frames":                        {Where: Where{Kind: AtCall, Call: 1}, What: What{Kind: LiveClose, Code: 1011, Frames: 2}},
		"call 1: goAway":                                           {Where: Where{Kind: AtCall, Call: 1}, What: What{Kind: GoAway, Frames: 1}},
		"call 1: goaway after 0 frames":                            {Where: Where{Kind: AtCall, Call: 1}, What: What{Kind: GoAway}},
	} {
		got, err := Parse(spec)
		if err != nil {
			t.Errorf("Parse(%q): %v", spec, err)
			continue
		}
		want.Spec = strings.TrimSpace(spec)
		if got != want {
			t.Errorf("Parse(%q) = %+v, want %+v", spec, got, want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for spec, want := range map[string]string{
		"call 1 429":                   "has no ':'",
		"call 0: 429":                  `call "0" is not a number from 1`,
		"call: 429":                    `"call" takes one number`,
		"invocation 1: 429":            `write "invocation I step S"`,
		"invocation 1 step -1: 429":    `step "-1" is not a number from 0`,
		"tool: 429":                    `"tool" takes one HOST`,
		"tool api.example: safety":     "safety answers a model call, not a tool request",
		"every call 150%: 503":         `probability "150%" is not between 0 and 1`,
		"every call 0.1 seed x: 503":   `seed "x" is not a whole number`,
		"somewhere: 503":               `"somewhere" is not a place`,
		"call 1: 200":                  "status 200 is not an error status",
		"call 1: 503 retry after 1s":   `only "429 retry after D" takes words`,
		"call 1: 429 retry after 1.5s": "Retry-After is whole seconds",
		"call 1: delay forever":        `"forever" is not a duration`,
		"every call 1: delay 24h":      "at most 10m0s",
		"call 1: delay 11m":            "at most 10m0s",
		"call 1: 429 retry after 1h":   "at most 10m0s",
		"call 1: reset after 3":        `write "after N events"`,
		"call 1: close 1006":           "is not one a WebSocket close frame can carry",
		"call 1: explode":              `"explode" is not a fault`,
		"call 1:":                      "it says nothing after ':'",
		"call 1: safety now":           "safety takes nothing after it",
	} {
		_, err := Parse(spec)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), spec) {
			t.Errorf("Parse(%q): %v; want an error naming the spec and saying %q", spec, err, want)
		}
	}
}

// TestDrawIsFixedBySeed: the same seed picks the same calls; another
// picks others; the share is near the probability.
func TestDrawIsFixedBySeed(t *testing.T) {
	hits := func(seed uint64) (n int, first string) {
		f, err := Parse("every call 30% seed " + string(rune('0'+seed)) + ": 503")
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for call := 1; call <= 1000; call++ {
			if f.Hits(Request{ModelCall: call}) {
				n++
				if call <= 40 {
					b.WriteString(" " + string(rune('0'+call%10)))
				}
			}
		}
		return n, b.String()
	}
	n1, a := hits(1)
	_, b := hits(1)
	_, c := hits(2)
	if a != b || a == c {
		t.Errorf("seed 1 hit %q then %q; seed 2 %q", a, b, c)
	}
	if n1 < 230 || n1 > 370 {
		t.Errorf("30%% of 1000 calls hit %d", n1)
	}
}

func TestParseFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "faults.yaml")
	os.WriteFile(good, []byte("faults:\n  - \"call 1: 429\"\n  - 'invocation 2 step 0: reset'\n"), 0o644)
	faults, err := ReadFile(good)
	if err != nil || len(faults) != 2 || faults[1].Where.Invocation != 2 {
		t.Fatalf("ReadFile: %+v, %v", faults, err)
	}
	for body, want := range map[string]string{
		"":                          "empty",
		"fault:\n  - call 1: 429\n": `unknown key "fault"`,
		"faults:\n  - call 1: 429\n  - call x: 429\n": "f.yaml:3: faults[1]",
		"faults:\n  - {call: 1}\n":                    "f.yaml:2: faults[0]",
		"faults: [\n":                                 "not YAML",
		"other: 1\n":                                  `unknown key "other"`,
		"faults: call 1: 429\n":                       "not YAML",
	} {
		_, err := ParseFile("f.yaml", []byte(body))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseFile(%q): %v; want %q", body, err, want)
		}
	}
	if _, err := ReadFile(filepath.Join(dir, "missing.yaml")); err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Errorf("a missing file: %v", err)
	}
}

// FuzzParse: no spec panics; a spec that parses parses the same again
// from its Spec, and a fault that hits a tool never answers as a model.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"call 1: 429", "invocation 2 step 0 in a/b: reset after 3 events", "tool h/p: delay 1s",
		"every call 20% seed 7: 503", "call 1: close 1011 after 2 frames", "call 1: goAway", "call 1: 429 retry after 2s", ":", "every call NaN: 503"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		got, err := Parse(spec)
		if err != nil {
			return
		}
		again, err := Parse(got.Spec)
		if err != nil || again != got {
			t.Fatalf("%q parsed as %+v, its Spec %q as %+v, %v", spec, got, got.Spec, again, err)
		}
		if got.Where.Kind == AtTool && got.What.ForModel() {
			t.Fatalf("%q: a tool fault answers as a model", spec)
		}
		if got.Where.Kind == EveryCall && (got.Where.Probability < 0 || got.Where.Probability > 1) {
			t.Fatalf("%q: probability %v", spec, got.Where.Probability)
		}
	})
}

// FuzzParseFile: no file panics, and every fault it yields parses alone.
func FuzzParseFile(f *testing.F) {
	f.Add([]byte("faults:\n  - \"call 1: 429\"\n"))
	f.Add([]byte("faults: []\n"))
	f.Add([]byte("faults:\n  - [1]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		faults, err := ParseFile("f.yaml", data)
		if err != nil {
			return
		}
		for _, ft := range faults {
			if _, err := Parse(ft.Spec); err != nil {
				t.Fatalf("%q from the file does not parse alone: %v", ft.Spec, err)
			}
		}
	})
}
