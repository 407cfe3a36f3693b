package cassettes

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestDeepJSONIsStoredCompact: a compact request nested 9,000 objects deep
// would grow quadratically when indented (to about 160 MB); it is stored
// compact instead, the cassette stays within maxIndentGrowth of the body,
// and it reads back byte for byte.
func TestDeepJSONIsStoredCompact(t *testing.T) {
	const depth = 9000
	body := []byte(strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth))
	x := &Exchange{
		Request:  Request{Method: "POST", Path: "/v1beta/models/m:generateContent", Body: body},
		Response: Response{Status: 200, Body: []byte(`{"ok":true}`)},
	}
	start := time.Now()
	data, err := Marshal(&Cassette{Name: "deep", Exchanges: []*Exchange{x}})
	if err != nil {
		t.Fatal(err)
	}
	if limit := maxIndentGrowth*len(body) + 4096; len(data) > limit {
		t.Fatalf("a %d-byte body became a %d-byte cassette; want at most %d", len(body), len(data), limit)
	}
	t.Logf("%d-byte body, %d-byte cassette, marshalled in %v", len(body), len(data), time.Since(start))
	c, err := Unmarshal("deep.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Exchanges[0].Request.Body; !bytes.Equal(got, body) {
		t.Fatalf("the body read back differs (%d bytes, want %d)", len(got), len(body))
	}
}

// TestShallowJSONIsStillIndented: the growth bound leaves ordinary
// requests readable, and they still read back byte for byte.
func TestShallowJSONIsStillIndented(t *testing.T) {
	body := []byte(`{"contents":[{"role":"user","parts":[{"text":"What is the weather like in Paris today, and should I take an umbrella?"}]}],"generationConfig":{"temperature":0.2}}`)
	x := &Exchange{
		Request:  Request{Method: "POST", Path: "/v1beta/models/m:generateContent", Body: body},
		Response: Response{Status: 200},
	}
	data, err := Marshal(&Cassette{Name: "shallow", Exchanges: []*Exchange{x}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "body_encoding: json") {
		t.Fatalf("an ordinary request was not indented:\n%s", data)
	}
	c, err := Unmarshal("shallow.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Exchanges[0].Request.Body; !bytes.Equal(got, body) {
		t.Fatalf("read back %q, want %q", got, body)
	}
}

// TestIndentedSizeMatchesIndent holds indentedSize to json.Indent's output.
func TestIndentedSizeMatchesIndent(t *testing.T) {
	for _, s := range []string{
		`{}`, `[]`, `{"a":{}}`, `[[],[1,2],{}]`, `{"a":"{,[:\"}"}`, `"x"`, `1`,
		`{"a":[1,{"b":null,"c":[true,false]}],"d":"e\\"}`,
		strings.Repeat(`[`, 50) + strings.Repeat(`]`, 50),
		strings.Repeat(`{"k":`, 40) + `[1,2]` + strings.Repeat(`}`, 40),
	} {
		var out bytes.Buffer
		if err := json.Indent(&out, []byte(s), "", "  "); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if got := indentedSize([]byte(s)); got != out.Len() {
			t.Errorf("indentedSize(%s) = %d, json.Indent gives %d bytes", s, got, out.Len())
		}
	}
}
