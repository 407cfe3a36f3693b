package cassettes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// geminiPretty is a response body as the Gemini REST API sends it: indented
// JSON ending in "}\n".
const geminiPretty = `{
  "candidates": [
    {
      "content": {
        "parts": [
          {
            "text": "Hello! \"Quoted\" text, a tab\t and a newline\n and unicode: héllo ✓"
          }
        ],
        "role": "model"
      },
      "finishReason": "STOP",
      "avgLogprobs": -0.052
    }
  ],
  "usageMetadata": {
    "promptTokenCount": 5,
    "candidatesTokenCount": 12,
    "totalTokenCount": 17
  },
  "modelVersion": "gemini-2.0-flash"
}
`

// goSDKRequest is compact JSON with a final newline, as encoding/json's
// Encoder (and so the Go SDK) writes it.
const goSDKRequest = `{"contents":[{"parts":[{"text":"Write a haiku about \"proxies\" <and> & records\n"}],"role":"user"}],"generationConfig":{"temperature":0.2,"maxOutputTokens":256,"stopSequences":["\n\n"]},"safetySettings":[]}` + "\n"

// jsRequest is compact JSON without a final newline (JSON.stringify).
const jsRequest = `{"contents":[{"role":"user","parts":[{"text":"Summarise the following text in one sentence, please; it is long enough to be indented."}]}],"generationConfig":{"candidateCount":1}}`

// pythonRequest uses json.dumps' default ", " and ": " separators: not
// compact, so it must stay text.
const pythonRequest = `{"contents": [{"parts": [{"text": "Hello from Python, with separators that compacting would remove"}], "role": "user"}], "generationConfig": {"temperature": 0.7}}`

// errorEvent is the bare JSON error Gemini appends to a broken stream.
const errorEvent = "{\n  \"error\": {\n    \"code\": 503,\n    \"message\": \"The model is overloaded. Please try again later.\",\n    \"status\": \"UNAVAILABLE\"\n  }\n}\n"

func sseChunk(i int) string {
	return fmt.Sprintf(`{"candidates": [{"content": {"parts": [{"text": "chunk %d, with 'single' quotes"}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 5},"modelVersion": "gemini-2.0-flash"}`, i)
}

func TestRoundTripRepresentativeBodies(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		encoding string // expected body_encoding, "" for text
	}{
		{"gemini pretty response", geminiPretty, ""},
		{"go sdk compact request", goSDKRequest, "json"},
		{"js compact request", jsRequest, "json"},
		{"python spaced request", pythonRequest, ""},
		{"short compact json", `{"a":1}`, ""},
		{"compact json array", `[` + strings.Repeat(`{"k":"v","n":1.50,"e":1e3},`, 10) + `null]`, "json"},
		{"json with escapes kept", `{"t":"\u00e9\u003c\/","pad":"` + strings.Repeat("x", 150) + `"}`, "json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Cassette{Name: "bodies", Exchanges: []*Exchange{simpleExchange(tt.body, tt.body)}}
			text := assertRoundTrip(t, c)
			if tt.encoding == "" {
				if strings.Contains(text, "body_encoding") {
					t.Errorf("body stored with an encoding, want plain text:\n%s", text)
				}
			} else if n := strings.Count(text, "body_encoding: "+tt.encoding+"\n"); n != 2 {
				t.Errorf("want body_encoding: %s twice, found %d times:\n%s", tt.encoding, n, text)
			}
		})
	}
}

func TestCompactJSONIsIndented(t *testing.T) {
	c := &Cassette{Name: "go", Exchanges: []*Exchange{simpleExchange(goSDKRequest, "ok")}}
	text := assertRoundTrip(t, c)
	if !strings.Contains(text, "body_encoding: json") {
		t.Fatalf("no body_encoding: json in\n%s", text)
	}
	if !regexp.MustCompile(`(?m)^ +"contents": \[$`).MatchString(text) {
		t.Errorf("the request body is not indented for reading:\n%s", text)
	}
	if !regexp.MustCompile(`(?m)^ +"temperature": 0.2,$`).MatchString(text) {
		t.Errorf("numbers are not kept as written:\n%s", text)
	}
}

func TestSSERoundTrip(t *testing.T) {
	var events []Event
	for i := 0; i < 3; i++ {
		events = append(events, Event{Data: []byte("data: " + sseChunk(i) + "\r\n\r\n"), After: time.Duration(i) * 1500 * time.Microsecond})
	}
	events = append(events,
		Event{Data: []byte("data: " + sseChunk(3) + "\n\n"), After: 2 * time.Millisecond},
		Event{Data: []byte("data: \r\n\r\n")},
		Event{Data: []byte(": keep-alive comment\n\n")},
		Event{Data: []byte("event: x\ndata: two\ndata: lines\n\n")},
		Event{Data: []byte(errorEvent), After: 10 * time.Millisecond},
	)
	x := simpleExchange(jsRequest, "")
	x.Response = Response{
		Status: 200,
		Header: http.Header{"Content-Type": {"text/event-stream"}},
		Events: events,
		End:    EndEOF,
	}
	text := assertRoundTrip(t, &Cassette{Name: "sse", Exchanges: []*Exchange{x}})
	if strings.Contains(text, `\"`) {
		t.Errorf("SSE payloads are stored with escaped quotes, not readable JSON:\n%s", text)
	}
	if !strings.Contains(text, "- data: '"+strings.ReplaceAll(sseChunk(0), "'", "''")+"'\n") {
		t.Errorf("the JSON payload is not readable as is:\n%s", text)
	}
	if strings.Contains(text, "!!") {
		t.Errorf("explicit tags in the output:\n%s", text)
	}
	if got := strings.Count(text, "- data: "); got != 5 {
		t.Errorf("want 5 data events, found %d:\n%s", got, text)
	}
	if got := strings.Count(text, "sep: lf"); got != 1 {
		t.Errorf("want 1 sep: lf, found %d:\n%s", got, text)
	}
	if !strings.Contains(text, "- raw: |") || !strings.Contains(text, `"status": "UNAVAILABLE"`) {
		t.Errorf("the trailing error event is not stored raw and readable:\n%s", text)
	}
	if !strings.Contains(text, "end: eof") {
		t.Errorf("end: eof missing:\n%s", text)
	}
}

func TestEmptyEventListStaysStreamed(t *testing.T) {
	x := simpleExchange("", "")
	x.Response.Events = []Event{}
	got, _ := roundTrip(t, &Cassette{Exchanges: []*Exchange{x}})
	if !got.Exchanges[0].Response.Streamed() {
		t.Fatal("a streamed response without events came back as not streamed")
	}
	x.Response.Events = nil
	got, _ = roundTrip(t, &Cassette{Exchanges: []*Exchange{x}})
	if got.Exchanges[0].Response.Streamed() {
		t.Fatal("a plain response came back as streamed")
	}
}

func TestBinaryBodies(t *testing.T) {
	bins := [][]byte{
		{0xff, 0xfe, 0x00, 0x01},
		{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'},
		append([]byte("valid text then "), 0xc3),
		bytes.Repeat([]byte{0x80}, 1000),
	}
	for i, b := range bins {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			x := simpleExchange(string(b), string(b))
			x.Response.Events = []Event{{Data: b}, {Data: append([]byte("data: "), append(b, "\r\n\r\n"...)...)}}
			x.Response.Body = nil
			y := simpleExchange("", string(b))
			text := assertRoundTrip(t, &Cassette{Name: "bin", Exchanges: []*Exchange{x, y}})
			if !strings.Contains(text, "body_encoding: base64") {
				t.Errorf("no body_encoding: base64 in\n%s", text)
			}
			if !strings.Contains(text, "encoding: base64") {
				t.Errorf("no event encoding: base64 in\n%s", text)
			}
		})
	}
}

// trickyStrings are values that yaml.v3 mangles unless they are stored
// with care.
var trickyStrings = []string{
	"\nleading newline",
	"\n\nleading newlines\n",
	"\tleading tab",
	"\tleading tab\nand a second line\n",
	"   leading spaces",
	"   leading spaces\n  on two lines\n",
	"trailing spaces   ",
	"trailing spaces   \non two lines   \n",
	"line\n\n\n",
	"line\n\n\nwith blank lines\n\n",
	"no final newline\nsecond",
	" ",
	"   \n\t  \n",
	"\n",
	"\r",
	"\r\n",
	"a\rb",
	"mixed\r\nline\nends\r",
	"\x00",
	"nul\x00in\x00the middle",
	"---",
	"---\nafter a document marker\n",
	"text\n---\nmore\n",
	"...",
	"text\n...\n",
	"#comment",
	"# comment\nline\n",
	"key: value",
	"key: value\nother: 1\n",
	"- item",
	"[1, 2]",
	"{a: b}",
	"&anchor",
	"*alias",
	"!tag",
	"!!binary aGk=",
	"%YAML 1.2",
	"@at",
	"`backtick",
	"|",
	">",
	"|-\nfolded",
	"'single'",
	`"double"`,
	`back\slash`,
	"true",
	"null",
	"~",
	"",
	"0x1F",
	"1e3",
	".inf",
	"2024-01-01",
	"<<",
	"héllo wörld ✓ 日本語 🦀",
	"\u2028line separator\u2029",
	"\u0085next line",
	"\ufeffBOM",
	"\u00a0nbsp",
	"\x7f\x1b[31mansi\x1b[0m",
	strings.Repeat("very long line without spaces ", 1) + strings.Repeat("x", 5000),
	strings.Repeat("long words and spaces ", 500),
	strings.Repeat("a: b, ", 400) + "\n",
}

func TestTrickyStringsRoundTrip(t *testing.T) {
	for i, s := range trickyStrings {
		t.Run(fmt.Sprintf("%d_%.12q", i, s), func(t *testing.T) {
			x := &Exchange{
				Request: Request{
					Method: "POST",
					Path:   "/v1/" + s,
					Query:  "q=" + s,
					Header: http.Header{"X-Tricky": {s}, "X-Multi": {s, "plain", s}},
					Body:   []byte(s),
				},
				Response: Response{Status: 200, Header: http.Header{"X-Tricky": {s}}, Body: []byte(s)},
			}
			sse := &Exchange{
				Request: Request{Method: "GET", Path: "/"},
				Response: Response{Status: 200, Events: []Event{
					{Data: []byte(s)},
					{Data: []byte("data: " + s + "\r\n\r\n")},
					{Data: []byte("data: " + s + "\n\n")},
				}},
			}
			assertRoundTrip(t, &Cassette{Name: s, Exchanges: []*Exchange{x, sse}})
		})
	}
}

func TestHeaders(t *testing.T) {
	x := simpleExchange("", "")
	x.Request.Header = http.Header{
		"Content-Type":      {"application/json"},
		"X-Goog-Api-Client": {"google-genai-sdk/1.0.0 gl-go/1.26"},
		"Accept":            {"a", "b", "c, d"},
		"X-Empty":           {""},
		"X-Colon":           {"a: b"},
		"X-Latin1":          {"caf\xe9"}, // obs-text: HTTP allows bytes that are not UTF-8
	}
	x.Response.Header = http.Header{
		"Set-Cookie": {"a=1; Path=/", "b=2; Path=/"},
		"Vary":       {"Origin", "X-Origin", "Referer"},
		"X-Bytes":    {"ok", "\xff\xfe", "\n"},
	}
	text := assertRoundTrip(t, &Cassette{Name: "headers", Exchanges: []*Exchange{x}})
	if !strings.Contains(text, "Vary: [Origin, X-Origin, Referer]") {
		t.Errorf("multi-valued headers are not a readable list:\n%s", text)
	}
	if !strings.Contains(text, "X-Latin1: {base64: ") {
		t.Errorf("a header value that is not UTF-8 is not stored as base64:\n%s", text)
	}
}

func TestHeaderNamesAreCanonicalOnLoad(t *testing.T) {
	src := "version: 1\ninteractions:\n  - request: {method: GET, path: /, headers: {content-type: text/plain, x-goog-api-client: [a, b]}}\n    response: {status: 200}\n"
	c, err := Unmarshal(testFile, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	h := c.Exchanges[0].Request.Header
	if h.Get("Content-Type") != "text/plain" || len(h["X-Goog-Api-Client"]) != 2 {
		t.Fatalf("headers = %v", h)
	}
}

func TestEndAndTiming(t *testing.T) {
	for _, end := range []End{"", EndComplete, EndEOF, EndReset} {
		x := simpleExchange("a", "partial")
		x.Response.End = end
		x.Response.Latency = 1234567891 * time.Nanosecond
		got, text := roundTrip(t, &Cassette{Exchanges: []*Exchange{x}})
		if want := endOf(end); got.Exchanges[0].Response.End != want {
			t.Errorf("end %q came back as %q", end, got.Exchanges[0].Response.End)
		}
		if (end == EndEOF || end == EndReset) != bytes.Contains(text, []byte("end: ")) {
			t.Errorf("end %q: end field presence wrong:\n%s", end, text)
		}
		if got.Exchanges[0].Response.Latency != 1234568*time.Microsecond {
			t.Errorf("latency = %v, want 1.234568s", got.Exchanges[0].Response.Latency)
		}
		if !bytes.Contains(text, []byte("latency_ms: 1234.568\n")) {
			t.Errorf("latency not in milliseconds with microsecond precision:\n%s", text)
		}
	}
}

func TestDurationRounding(t *testing.T) {
	tests := []struct {
		in, want time.Duration
	}{
		{0, 0},
		{-5 * time.Millisecond, 0}, // negative durations are not stored
		{499 * time.Nanosecond, 0},
		{500 * time.Nanosecond, time.Microsecond},
		{1499 * time.Nanosecond, time.Microsecond},
		{1500 * time.Nanosecond, 2 * time.Microsecond},
		{time.Millisecond, time.Millisecond},
		{123456789 * time.Nanosecond, 123457 * time.Microsecond},
		{90 * time.Minute, 90 * time.Minute},
		{100*time.Hour + 1, 100 * time.Hour},
		{999999999999 * time.Microsecond, 999999999999 * time.Microsecond},
	}
	for _, tt := range tests {
		x := simpleExchange("", "")
		x.Response.Latency = tt.in
		x.Response.Events = []Event{{Data: []byte("data: x\r\n\r\n"), After: tt.in}}
		got, text := roundTrip(t, &Cassette{Exchanges: []*Exchange{x}})
		r := got.Exchanges[0].Response
		if r.Latency != tt.want || r.Events[0].After != tt.want {
			t.Errorf("%v: latency %v, after %v, want %v\n%s", tt.in, r.Latency, r.Events[0].After, tt.want, text)
		}
	}
}

func TestMarshalRefusesWhatCannotBeStored(t *testing.T) {
	tests := map[string]*Cassette{
		"nil cassette":        nil,
		"nil exchange":        {Exchanges: []*Exchange{nil}},
		"binary name":         {Name: "a\xffb"},
		"binary path":         {Exchanges: []*Exchange{{Request: Request{Method: "GET", Path: "/\xff"}, Response: Response{Status: 200}}}},
		"binary query":        {Exchanges: []*Exchange{{Request: Request{Method: "GET", Path: "/", Query: "a=\xff"}, Response: Response{Status: 200}}}},
		"binary header name":  {Exchanges: []*Exchange{{Request: Request{Method: "GET", Path: "/", Header: http.Header{"X-\xff": {"v"}}}, Response: Response{Status: 200}}}},
		"binary method":       {Exchanges: []*Exchange{{Request: Request{Method: "G\xffT", Path: "/"}, Response: Response{Status: 200}}}},
		"binary response end": {Exchanges: []*Exchange{{Request: Request{Method: "GET", Path: "/"}, Response: Response{Status: 200, End: "\xff"}}}},
		"unknown end":         {Exchanges: []*Exchange{{Request: Request{Method: "GET", Path: "/"}, Response: Response{Status: 200, End: "later"}}}},
		"no method":           {Exchanges: []*Exchange{{Request: Request{Path: "/"}, Response: Response{Status: 200}}}},
		"relative path":       {Exchanges: []*Exchange{{Request: Request{Method: "GET", Path: "x"}, Response: Response{Status: 200}}}},
		"status 0":            {Exchanges: []*Exchange{{Request: Request{Method: "GET", Path: "/"}}}},
		"status 600":          {Exchanges: []*Exchange{{Request: Request{Method: "GET", Path: "/"}, Response: Response{Status: 600}}}},
	}
	for name, c := range tests {
		if _, err := Marshal(c); err == nil {
			t.Errorf("%s: Marshal succeeded", name)
		}
	}
}

func TestMarshalIsDeterministic(t *testing.T) {
	x := simpleExchange(goSDKRequest, geminiPretty)
	x.Request.Header = http.Header{"B": {"1"}, "A": {"2"}, "C": {"3", "4"}, "Content-Type": {"application/json"}}
	c := &Cassette{Name: "det", Exchanges: []*Exchange{x, x}}
	first, err := Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		again, _ := Marshal(c)
		if !bytes.Equal(first, again) {
			t.Fatal("Marshal output depends on map order")
		}
	}
	if !bytes.HasPrefix(first, []byte("# adkproxy cassette")) || !bytes.Contains(first, []byte("\nversion: 2\n")) {
		t.Errorf("missing header comment or version:\n%s", first)
	}
}

func TestIndentedJSONDecodesByteExact(t *testing.T) {
	// Hand-edited json bodies: any indentation or a kept final newline
	// decodes to compact JSON plus at most one newline.
	src := `version: 1
interactions:
  - request:
      method: POST
      path: /v1
      body: |
        {
            "a" :   [1,  2],
          "b": "x y"
        }
      body_encoding: json
    response:
      status: 200
      body: |-
        {"c": 1}
      body_encoding: json
`
	c, err := Unmarshal(testFile, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(c.Exchanges[0].Request.Body); got != `{"a":[1,2],"b":"x y"}`+"\n" {
		t.Errorf("request body = %q", got)
	}
	if got := string(c.Exchanges[0].Response.Body); got != `{"c":1}` {
		t.Errorf("response body = %q", got)
	}
}

func TestJSONBodyIsValidJSONOnDisk(t *testing.T) {
	// The indented form written to disk must itself be JSON that a reader
	// can copy out of the cassette.
	c := &Cassette{Exchanges: []*Exchange{simpleExchange(goSDKRequest, jsRequest)}}
	data, err := Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Unmarshal(testFile, data)
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(got.Exchanges[0].Request.Body) || !json.Valid(got.Exchanges[0].Response.Body) {
		t.Fatal("bodies are not valid JSON after the round trip")
	}
}

func TestManyExchangesKeepOrder(t *testing.T) {
	c := &Cassette{Name: "order"}
	for i := 0; i < 50; i++ {
		c.Exchanges = append(c.Exchanges, simpleExchange(fmt.Sprintf(`{"i":%d}`, i), fmt.Sprintf("resp %d\n", i)))
	}
	assertRoundTrip(t, c)
}

func TestEveryHTTPStatusRoundTrips(t *testing.T) {
	for _, status := range []int{100, 101, 204, 304, 429, 503, 599} {
		x := simpleExchange("", "")
		x.Response.Status = status
		assertRoundTrip(t, &Cassette{Exchanges: []*Exchange{x}})
	}
}

func TestHeaderNamesAreStoredCanonical(t *testing.T) {
	x := simpleExchange("", "")
	x.Request.Header = http.Header{
		"content-type": {"application/json"},
		"x-a":          {"lower"},
		"X-A":          {"canonical"},
		"X-Empty-List": {},
		"Bad Name":     {"kept as is"}, // not a token: CanonicalHeaderKey leaves it
	}
	got, text := roundTrip(t, &Cassette{Exchanges: []*Exchange{x}})
	want := http.Header{
		"Content-Type": {"application/json"},
		"X-A":          {"canonical", "lower"},
		"X-Empty-List": {},
		"Bad Name":     {"kept as is"},
	}
	if d := diffHeaders(want, got.Exchanges[0].Request.Header); d != "" {
		t.Errorf("%s\n%s", d, text)
	}
}
