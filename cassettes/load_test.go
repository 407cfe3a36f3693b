package cassettes

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// validCassette is a small hand-written cassette; the line numbers in the
// comments are what the error tests below refer to.
const validCassette = `version: 1
name: t
interactions:
  - request:
      method: POST
      path: /v1/x
      body: hi
    response:
      status: 200
      body: ok
`

func TestValidCassetteLoads(t *testing.T) {
	c, err := Unmarshal(testFile, []byte(validCassette))
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "t" || len(c.Exchanges) != 1 || string(c.Exchanges[0].Request.Body) != "hi" || string(c.Exchanges[0].Response.Body) != "ok" {
		t.Fatalf("unexpected cassette %+v", c)
	}
	if c.Exchanges[0].Response.End != EndComplete {
		t.Errorf("end = %q, want complete", c.Exchanges[0].Response.End)
	}
}

func TestLenientButExactForms(t *testing.T) {
	// Things a person may write by hand that still mean one thing.
	tests := map[string]string{
		"no interactions":        "version: 1\n",
		"empty interactions":     "version: 1\ninteractions: []\n",
		"quoted version":         "version: \"1\"\ninteractions: []\n",
		"comment only lines":     "# hi\nversion: 1 # the format\n# bye\n",
		"timestamp-like header":  "version: 1\ninteractions:\n  - request: {method: GET, path: /, headers: {Date: 2024-01-01}}\n    response: {status: 200}\n",
		"merge-like body":        "version: 1\ninteractions:\n  - request: {method: GET, path: /, body: <<}\n    response: {status: 200}\n",
		"explicit text encoding": "version: 1\ninteractions:\n  - request: {method: GET, path: /, body: x, body_encoding: text}\n    response: {status: 200}\n",
		"document start marker":  "---\nversion: 1\n",
		"document end marker":    "version: 1\n...\n",
		"explicit str tag":       "version: 1\nname: !!str 123\n",
		"explicit seq tag":       "version: 1\ninteractions: !!seq []\n",
	}
	for name, src := range tests {
		if _, err := Unmarshal(testFile, []byte(src)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	c, err := Unmarshal(testFile, []byte(tests["timestamp-like header"]))
	if err == nil && c.Exchanges[0].Request.Header.Get("Date") != "2024-01-01" {
		t.Errorf("date header = %q", c.Exchanges[0].Request.Header.Get("Date"))
	}
}

func TestLoadErrors(t *testing.T) {
	// replace swaps one line of validCassette (1-based) for text.
	replace := func(line int, text string) string {
		lines := strings.Split(validCassette, "\n")
		lines[line-1] = text
		return strings.Join(lines, "\n")
	}
	insert := func(line int, text string) string {
		lines := strings.Split(validCassette, "\n")
		lines = append(lines[:line-1], append([]string{text}, lines[line-1:]...)...)
		return strings.Join(lines, "\n")
	}
	tests := []struct {
		name string
		src  string
		want error
		line int
		msg  string // a part of the message
	}{
		{"unknown top-level field", insert(3, "bogus: 1"), ErrCorrupt, 3, `unknown field "bogus"`},
		{"unknown field in request", insert(7, "      bogus: 1"), ErrCorrupt, 7, `unknown field "bogus" in interaction 1 request`},
		{"unknown field in response", insert(10, "      bogus: 1"), ErrCorrupt, 10, `unknown field "bogus"`},
		{"unknown field in interaction", insert(8, "    extra: 1"), ErrCorrupt, 8, `unknown field "extra"`},
		{"missing version", replace(1, "# no version"), ErrCorrupt, 2, "missing 'version: 2'"},
		{"version 3", replace(1, "version: 3"), ErrVersion, 1, "upgrade"},
		{"v1 field in a v2 file", replace(1, "version: 2"), ErrCorrupt, 4, "not a field of version 2"},
		{"version 99", replace(1, "version: 99"), ErrVersion, 1, "upgrade"},
		{"version 0", replace(1, "version: 0"), ErrVersion, 1, "version 0"},
		{"version not a number", replace(1, "version: one"), ErrCorrupt, 1, "whole number"},
		{"version a float", replace(1, "version: 1.0"), ErrCorrupt, 1, "whole number"},
		{"version a list", replace(1, "version: [1]"), ErrCorrupt, 1, "whole number"},
		{"status too large", replace(9, "      status: 600"), ErrCorrupt, 9, "100 to 599"},
		{"status 999", replace(9, "      status: 999"), ErrCorrupt, 9, "100 to 599"},
		{"status too small", replace(9, "      status: 99"), ErrCorrupt, 9, "100 to 599"},
		{"status negative", replace(9, "      status: -200"), ErrCorrupt, 9, "100 to 599"},
		{"status missing", replace(9, "      headers: {A: b}"), ErrCorrupt, 9, "100 to 599"},
		{"status not a number", replace(9, "      status: OK"), ErrCorrupt, 9, "whole number"},
		{"invalid base64 body", insert(8, "      body_encoding: base64"), ErrCorrupt, 7, "not valid base64"},
		{"json encoding on non-JSON", insert(8, "      body_encoding: json"), ErrCorrupt, 7, "not JSON"},
		{"unknown body encoding", insert(8, "      body_encoding: gzip"), ErrCorrupt, 7, "unknown body_encoding"},
		{"encoding without body", replace(7, "      body_encoding: base64"), ErrCorrupt, 7, "encoding but no body"},
		{"both body and sse", insert(11, "      sse: []"), ErrCorrupt, 11, "both body and sse"},
		{"body is a list", replace(7, "      body: [a]"), ErrCorrupt, 7, "must be a string"},
		{"body is null", replace(7, "      body:"), ErrCorrupt, 7, "must be a string"},
		{"method missing", replace(5, "      headers: {}"), ErrCorrupt, 5, "method and a path"},
		{"path relative", replace(6, "      path: v1/x"), ErrCorrupt, 5, "path starting with /"},
		{"request missing", "version: 1\ninteractions:\n  - response: {status: 200}\n", ErrCorrupt, 3, "needs both a request and a response"},
		{"response missing", strings.Join(strings.Split(validCassette, "\n")[:7], "\n") + "\n", ErrCorrupt, 4, "needs both a request and a response"},
		{"interactions not a list", "version: 1\ninteractions: {}\n", ErrCorrupt, 2, "must be a list"},
		{"interactions null", "version: 1\ninteractions:\n", ErrCorrupt, 2, "must be a list"},
		{"interaction not a mapping", "version: 1\ninteractions:\n  - 5\n", ErrCorrupt, 3, "must be a mapping"},
		{"name not a string", replace(2, "name: {a: b}"), ErrCorrupt, 2, "name must be a string"},
		{"headers not a mapping", insert(7, "      headers: [a]"), ErrCorrupt, 7, "headers must be a mapping"},
		{"header value a mapping", insert(7, "      headers: {A: {b: c}}"), ErrCorrupt, 7, `unknown field "b"`},
		{"header value null", insert(7, "      headers: {A: }"), ErrCorrupt, 7, "must be a string"},
		{"header value bad base64", insert(7, "      headers: {A: {base64: '!!'}}"), ErrCorrupt, 7, "not valid base64"},
		{"header twice", insert(7, "      headers: {A: x, a: y}"), ErrCorrupt, 7, "appears twice"},
		{"header name a list", insert(7, "      headers: {[a]: x}"), ErrCorrupt, 7, "must be a string"},
		{"end unknown", insert(11, "      end: later"), ErrCorrupt, 11, "complete, eof or reset"},
		{"latency negative", insert(11, "      latency_ms: -1"), ErrCorrupt, 11, "non-negative"},
		{"latency NaN", insert(11, "      latency_ms: NaN"), ErrCorrupt, 11, "non-negative"},
		{"latency .nan", insert(11, "      latency_ms: .nan"), ErrCorrupt, 11, "non-negative"},
		{"latency infinite", insert(11, "      latency_ms: +Inf"), ErrCorrupt, 11, "non-negative"},
		{"latency overflows", insert(11, "      latency_ms: 1e300"), ErrCorrupt, 11, "non-negative"},
		{"latency text", insert(11, "      latency_ms: soon"), ErrCorrupt, 11, "non-negative"},
		{"duplicate top-level key", insert(2, "version: 1"), ErrCorrupt, 2, "appears twice"},
		{"duplicate key in request", insert(7, "      path: /v1/y"), ErrCorrupt, 7, `field "path" appears twice`},
		{"key not a string", insert(3, "[a]: 1"), ErrCorrupt, 3, "not a string"},
		{"top level a list", "- version: 1\n", ErrCorrupt, 1, "must be a mapping"},
		{"top level a scalar", "version 1\n", ErrCorrupt, 1, "must be a mapping"},
		{"empty file", "", ErrCorrupt, 1, "empty file"},
		{"only comments", "# nothing here\n", ErrCorrupt, 1, "empty file"},
		{"only whitespace", "\n\n   \n", ErrCorrupt, 1, "empty file"},
		{"null document", "~\n", ErrCorrupt, 1, "must be a mapping"},
		{"two documents", validCassette + "---\nversion: 1\n", ErrCorrupt, 11, "second YAML document"},
		{"two empty-ish documents", "---\n---\n" + validCassette, ErrCorrupt, 2, "second YAML document"},
		{"anchor", replace(2, "name: &n t"), ErrCorrupt, 2, "anchors and aliases"},
		{"anchor and alias", "version: 1\nname: &n t\ninteractions:\n  - request: {method: *n, path: /}\n    response: {status: 200}\n", ErrCorrupt, 2, "anchors and aliases"},
		{"binary tag", replace(2, "name: !!binary aGk="), ErrCorrupt, 2, "tag !!binary"},
		{"custom tag", replace(2, "name: !foo x"), ErrCorrupt, 2, "tag !foo"},
		{"python tag", replace(2, "name: !!python/object:os.system {}"), ErrCorrupt, 2, "tag !!python/object:os.system"},
		{"explicit timestamp tag", replace(2, "name: !!timestamp 2024-01-01"), ErrCorrupt, 2, "tag !!timestamp"},
		{"custom tag on a mapping", replace(3, "interactions: !thing"), ErrCorrupt, 3, "tag !thing"},
		{"set tag", replace(2, "name: !!set {a}"), ErrCorrupt, 2, "tag !!set"},
		{"unclosed flow sequence", replace(6, "      path: [/v1/x"), ErrCorrupt, 6, "not valid YAML"},
		{"unclosed flow mapping", replace(4, "  - request: {method: GET"), ErrCorrupt, -4, "not valid YAML"},
		{"tab indentation", replace(7, "\tbody: hi"), ErrCorrupt, -7, "not valid YAML"},
		{"bad indentation", replace(7, "     body: hi"), ErrCorrupt, -7, "not valid YAML"},
		{"unterminated quote", replace(7, `      body: "hi`), ErrCorrupt, -7, "not valid YAML"},
		{"mapping in a plain scalar", replace(7, "      body: a: b"), ErrCorrupt, 7, "not valid YAML"},
		{"syntax error on line 1", replace(1, "version: 1: 2"), ErrCorrupt, 1, "not valid YAML"},
		{"invalid utf-8", replace(7, "      body: \xff\xfe"), ErrCorrupt, 7, "not valid YAML"},
		{"control character", replace(9, "      status: 2\x0100"), ErrCorrupt, 9, "not valid YAML"},
		{"undefined alias", insert(3, "other: *n"), ErrCorrupt, 0, "unknown anchor"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Unmarshal(testFile, []byte(tt.src))
			if err == nil {
				t.Fatalf("loaded %+v from\n%s", c, tt.src)
			}
			if !isFormatErr(err, tt.want) {
				t.Fatalf("error %v (%T) does not wrap %v as a *FormatError", err, err, tt.want)
			}
			if other := map[error]error{ErrCorrupt: ErrVersion, ErrVersion: ErrCorrupt}[tt.want]; errors.Is(err, other) {
				t.Errorf("error %v also wraps %v", err, other)
			}
			msg := err.Error()
			if tt.line < 0 {
				// A YAML syntax error: yaml.v3 names the line where the
				// broken construct starts, at most a few lines up.
				var fe *FormatError
				errors.As(err, &fe)
				if fe.Line < -tt.line-3 || fe.Line > -tt.line {
					t.Errorf("error %q: want a line from %d to %d", msg, -tt.line-3, -tt.line)
				}
			} else if tt.line > 0 {
				if prefix := fmt.Sprintf("%s:%d: ", testFile, tt.line); !strings.HasPrefix(msg, prefix) {
					t.Errorf("error %q does not start with %q", msg, prefix)
				}
			} else if !strings.HasPrefix(msg, testFile+":") {
				t.Errorf("error %q does not name the file", msg)
			}
			if !strings.Contains(msg, tt.msg) {
				t.Errorf("error %q does not say %q", msg, tt.msg)
			}
		})
	}
}

func TestSyntaxErrorsCarryTheirLine(t *testing.T) {
	src := "version: 1\nname: t\ninteractions:\n  - request: {method: GET, path: /\n    response: {status: 200}\n"
	_, err := Unmarshal(testFile, []byte(src))
	var fe *FormatError
	if !errors.As(err, &fe) || !errors.Is(err, ErrCorrupt) {
		t.Fatalf("err = %v", err)
	}
	if fe.Line < 4 || fe.Line > 6 {
		t.Errorf("line = %d, want the broken flow mapping (4-6): %v", fe.Line, err)
	}
	if want := fmt.Sprintf("%s:%d: not valid YAML: ", testFile, fe.Line); !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %q does not start with %q", err, want)
	}
}

func TestEventErrors(t *testing.T) {
	head := "version: 1\ninteractions:\n  - request: {method: GET, path: /}\n    response:\n      status: 200\n      sse:\n"
	tests := []struct {
		name, events string
		line         int
		msg          string
	}{
		{"data and raw", "        - data: x\n          raw: y\n", 7, "exactly one of data or raw"},
		{"neither", "        - after_ms: 1\n", 7, "exactly one of data or raw"},
		{"unknown sep", "        - data: x\n          sep: cr\n", 8, "crlf or lf"},
		{"unknown field", "        - data: x\n          id: 1\n", 8, `unknown field "id"`},
		{"bad raw base64", "        - raw: '%%%'\n          encoding: base64\n", 7, "not valid base64"},
		{"encoding on a data event", "        - data: x\n          encoding: base64\n", 8, "encoding applies to raw events only"},
		{"sep on a raw event", "        - raw: x\n          sep: lf\n", 8, "sep applies to data events only"},
		{"negative after", "        - data: x\n          after_ms: -3\n", 8, "non-negative"},
		{"event a string", "        - data: x\n        - hello\n", 8, "must be a mapping"},
		{"sse a mapping", "        {a: b}\n", 7, "must be a list"},
		{"second event bad", "        - data: x\n        - data: [x]\n", 8, "event 2 data must be a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Unmarshal(testFile, []byte(head+tt.events))
			if !isFormatErr(err, ErrCorrupt) {
				t.Fatalf("err = %v", err)
			}
			if prefix := fmt.Sprintf("%s:%d: ", testFile, tt.line); !strings.HasPrefix(err.Error(), prefix) || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q: want prefix %q and %q", err, prefix, tt.msg)
			}
		})
	}
}

func TestYAMLBombIsRefusedQuickly(t *testing.T) {
	// The billion-laughs shape: nine levels of lists of ten aliases.
	var b strings.Builder
	b.WriteString("version: 1\n")
	b.WriteString(`a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]` + "\n")
	prev := "a"
	for _, name := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		fmt.Fprintf(&b, "%s: &%s [", name, name)
		for i := 0; i < 10; i++ {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString("*" + prev)
		}
		b.WriteString("]\n")
		prev = name
	}
	b.WriteString("interactions:\n  - request: {method: GET, path: /, body: *i}\n    response: {status: 200}\n")
	start := time.Now()
	_, err := Unmarshal(testFile, []byte(b.String()))
	if elapsed := time.Since(start); elapsed > time.Second {
		t.Errorf("refusing the bomb took %v", elapsed)
	}
	if !isFormatErr(err, ErrCorrupt) || !strings.HasPrefix(err.Error(), testFile+":2: ") || !strings.Contains(err.Error(), "anchors and aliases") {
		t.Fatalf("err = %v", err)
	}
}

func TestDeepNestingIsRefused(t *testing.T) {
	for _, src := range []string{
		"version: 1\nname: " + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "\n",
		"version: 1\nname: " + strings.Repeat("{a: ", 20000) + "x" + strings.Repeat("}", 20000) + "\n",
	} {
		start := time.Now()
		_, err := Unmarshal(testFile, []byte(src))
		if !isFormatErr(err, ErrCorrupt) {
			t.Errorf("err = %v", err)
		}
		if elapsed := time.Since(start); elapsed > 5*time.Second {
			t.Errorf("took %v", elapsed)
		}
	}
}

// TestTruncatedFiles cuts a real cassette at every byte: loading must never
// panic, and must either fail with ErrCorrupt or give a prefix of the
// exchanges in which only the last one may be shorter than recorded.
func TestTruncatedFiles(t *testing.T) {
	x1 := simpleExchange(goSDKRequest, geminiPretty)
	x1.Request.Header = http.Header{"Content-Type": {"application/json"}, "Accept": {"a", "b"}}
	x2 := simpleExchange(pythonRequest, "")
	x2.Response.Events = []Event{
		{Data: []byte("data: " + sseChunk(1) + "\r\n\r\n"), After: time.Millisecond},
		{Data: []byte(errorEvent)},
	}
	x2.Response.End = EndEOF
	x3 := simpleExchange("\xff\xfe binary", "text\n  with\n\tlines\n\n")
	want := &Cassette{Name: "cut", Exchanges: []*Exchange{x1, x2, x3}}
	data, err := Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	loaded, failed := 0, 0
	for cut := 0; cut < len(data); cut++ {
		c, err := Unmarshal(testFile, data[:cut])
		if err != nil {
			failed++
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrVersion) {
				t.Fatalf("cut at %d: error %v wraps neither ErrCorrupt nor ErrVersion", cut, err)
			}
			continue
		}
		loaded++
		if len(c.Exchanges) > len(want.Exchanges) {
			t.Fatalf("cut at %d: %d exchanges", cut, len(c.Exchanges))
		}
		for i := 0; i+1 < len(c.Exchanges); i++ {
			if d := diffExchanges(want.Exchanges[i], c.Exchanges[i]); d != "" {
				t.Fatalf("cut at %d: exchange %d, which ends before the cut, differs: %s", cut, i+1, d)
			}
		}
	}
	if loaded == 0 || failed == 0 {
		t.Errorf("loaded %d, failed %d: expected some of each", loaded, failed)
	}
}
