package cassettes

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// fuzzCassette builds a cassette whose every byte field comes from the
// fuzzer: a plain exchange and a streamed one.
func fuzzCassette(reqBody, respBody, event []byte, header string, after int64) *Cassette {
	plain := &Exchange{
		Request: Request{
			Method: "POST",
			Path:   "/v1beta/models/gemini-2.0-flash:generateContent",
			Header: http.Header{"X-Fuzz": {header}, "Content-Type": {"application/json"}},
			Body:   reqBody,
		},
		Response: Response{
			Status:  200,
			Header:  http.Header{"X-Fuzz": {header, "second", header}},
			Body:    respBody,
			Latency: time.Duration(after),
		},
	}
	wrapped := append(append([]byte("data: "), event...), "\r\n\r\n"...)
	wrappedLF := append(append([]byte("data: "), event...), "\n\n"...)
	streamed := &Exchange{
		Request: Request{Method: "POST", Path: "/v1beta/models/gemini-2.0-flash:streamGenerateContent", Query: "alt=sse", Body: reqBody},
		Response: Response{
			Status: 200,
			Header: http.Header{"Content-Type": {"text/event-stream"}, "X-Fuzz": {header}},
			Events: []Event{
				{Data: event, After: time.Duration(after)},
				{Data: wrapped},
				{Data: wrappedLF, After: time.Duration(after) / 3},
			},
			End: EndEOF,
		},
	}
	return &Cassette{Name: "fuzz", Exchanges: []*Exchange{plain, streamed}}
}

func FuzzSaveLoad(f *testing.F) {
	f.Add([]byte(goSDKRequest), []byte(geminiPretty), []byte(sseChunk(1)), "application/json", int64(1234567891))
	f.Add([]byte(jsRequest), []byte(errorEvent), []byte(errorEvent), "a, b", int64(0))
	f.Add([]byte(pythonRequest), []byte{0xff, 0xfe, 0}, []byte{0x80}, "caf\xe9", int64(1500))
	f.Add([]byte(""), []byte(""), []byte(""), "", int64(-1))
	for i, s := range trickyStrings {
		other := trickyStrings[(i+7)%len(trickyStrings)]
		f.Add([]byte(s), []byte(other), []byte(s), other, int64(i*997))
	}
	f.Fuzz(func(t *testing.T, reqBody, respBody, event []byte, header string, after int64) {
		want := fuzzCassette(reqBody, respBody, event, header, after)
		data, err := Marshal(want)
		if err != nil {
			t.Fatalf("Marshal: %v", err)
		}
		got, err := Unmarshal(testFile, data)
		if err != nil {
			t.Fatalf("Unmarshal of Marshal output: %v\n--- YAML ---\n%s", err, data)
		}
		if d := diffCassettes(want, got); d != "" {
			t.Fatalf("round trip changed the cassette: %s\n--- YAML ---\n%s", d, data)
		}
	})
}

func FuzzUnmarshal(f *testing.F) {
	f.Add([]byte(validCassette))
	f.Add([]byte("version: 1\n"))
	f.Add([]byte(""))
	f.Add([]byte("version: 2\n"))
	f.Add([]byte("version: 1\nname: &a x\ninteractions: [*a]\n"))
	f.Add([]byte("version: 1\ninteractions:\n  - request: {method: GET, path: /, headers: {A: [x, {base64: /w==}]}}\n    response: {status: 200, sse: [{data: x, sep: lf, after_ms: 1.5}, {raw: /w==, encoding: base64}], end: eof, latency_ms: 3}\n"))
	f.Add([]byte("version: 1\ninteractions:\n  - request: {method: POST, path: /x, body: '{\"a\": 1}', body_encoding: json}\n    response: {status: 200, body: aGk=, body_encoding: base64}\n"))
	f.Add([]byte("version: 2\nname: t\nsessions:\n  - id: 1\n    invocations:\n      - id: 1\n        user: u\n        steps:\n          - step: 0\n            agent: a\n            request: {method: POST, path: /x}\n            response: {status: 200}\n            http_calls:\n              - request: {scheme: https, host: 'w.example:8443', method: GET, path: /v1, query: a=1}\n                response: {status: 200, body: ok}\nother:\n  - request: {scheme: http, host: h, method: GET, path: /}\n    response: {status: 204}\n"))
	f.Add([]byte("version: 2\nname: t\nsessions:\n  - id: 1\n    invocations:\n      - id: 1\n        user: u\n        steps:\n          - step: 0\n            agent: a\n            request: {method: POST, path: /x}\n            response: {status: 200}\n            confirmations:\n              - {tool: book_room, args: {city: Paris, n: 2.5, l: [1, null]}, confirmed: true, payload: {rooms: 2}, hint: ok?, shape: json-string}\n              - {tool: pay, confirmed: false, payload: '3'}\n"))
	for _, s := range trickyStrings[:20] {
		if data, err := Marshal(fuzzCassette([]byte(s), []byte(s), []byte(s), s, 1)); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Unmarshal(testFile, data)
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) || !(errors.Is(err, ErrCorrupt) || errors.Is(err, ErrVersion)) {
				t.Fatalf("error %v (%T) is not a FormatError wrapping ErrCorrupt or ErrVersion", err, err)
			}
			if fe.File != testFile || fe.Line < 0 {
				t.Fatalf("error %v names %q line %d", err, fe.File, fe.Line)
			}
			return
		}
		// Whatever loads can be saved again and loads the same.
		out, err := Marshal(c)
		if err != nil {
			t.Fatalf("a loaded cassette cannot be marshalled: %v", err)
		}
		again, err := Unmarshal(testFile, out)
		if err != nil {
			t.Fatalf("re-marshalled cassette does not load: %v\n--- YAML ---\n%s", err, out)
		}
		if d := diffCassettes(c, again); d != "" {
			t.Fatalf("re-marshalling changed the cassette: %s\n--- YAML ---\n%s", d, out)
		}
	})
}

// FuzzFaithfulScalar holds faithfulScalar's shortcut for simple text to the
// full check, and the full check to its promise.
func FuzzFaithfulScalar(f *testing.F) {
	for _, s := range trickyStrings {
		f.Add(s)
	}
	for _, s := range []string{"<<", "a #b", "a: b", "- a", "? a", "a,b", "[a", "{a", "'", "\"", "@a", "`a", "%a", "!a", "&a", "*a", "|", ">", "#", "a ", " a", "a  b", "=", "~", "-", "---", "...", "Y", "yes", "NO", "on", "0o7", "0b1", "0x_1", "1_000", "+.5", "-.inf", ".NaN", "2001-12-14t21:59:43.10-05:00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, ok := faithfulScalar(s)
		if !ok {
			return
		}
		if !readsBackAs(n, s) {
			t.Fatalf("faithfulScalar(%q) chose style %v, which does not read back", s, n.Style)
		}
		if simpleText(s) {
			for _, style := range []yaml.Style{yaml.SingleQuotedStyle, yaml.DoubleQuotedStyle} {
				if m := (&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Style: style}); !readsBackAs(m, s) {
					t.Fatalf("simple text %q does not survive style %v", s, style)
				}
			}
		}
	})
}
