package matcher

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"
)

// stdParse is what ParseJSON did with encoding/json: the reference the
// decoder must agree with on every input.
func stdParse(body []byte) (v any, ok bool) {
	trimmed := bytes.Trim(body, " \t\r\n")
	if len(trimmed) == 0 || (trimmed[0] != '{' && trimmed[0] != '[') {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false
	}
	return v, true
}

var decodeSeeds = []string{
	`{"b":1,"a":[1,2.0,{"y":null,"x":true}],"b":false}`, `[1e2, 100, 1.000E+2, -0, 0.0, -1.5e-3]`,
	`{"t":"hi \u003c there \"q\" \\ \/ \b\f\n\r\t"}`, `{"a":"\ud83d\ude00 \ud83d \ude00 \ud83d\u0041 \udc00\ud83d"}`,
	"[\"\xff\xfe bad \xed\xa0\x80 utf8 é\"]", `[]`, `{}`, `{"":{"":[]}}`, `[01]`, `[1.]`, `[.5]`, `[-]`, `[1e]`,
	`[tru]`, `[truex]`, `{"a" 1}`, `{"a":1,}`, `[1,]`, `[1 2]`, `{} {}`, `{}x`, "[\"a\x01\"]", `["\x"]`, `["\u12"]`,
	`["\'"]`, `[nul]`, ` [ 1 , { "k" : [ ] } ] `, `{"k":"v"`, `"s"`, `1`,
}

// TestDecodeMatchesEncodingJSON: the decoder gives what encoding/json
// gives, values and refusals, on valid and broken bodies alike.
func TestDecodeMatchesEncodingJSON(t *testing.T) {
	for _, s := range append(decodeSeeds, strings.Repeat("[", maxDepth)+strings.Repeat("]", maxDepth),
		strings.Repeat("[", maxDepth+1)+strings.Repeat("]", maxDepth+1)) {
		checkDecode(t, []byte(s))
	}
}

func FuzzDecodeMatchesEncodingJSON(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(checkDecode)
}

func checkDecode(t *testing.T, body []byte) {
	want, wantOK := stdParse(body)
	got, ok := ParseJSON(body)
	if ok != wantOK {
		t.Fatalf("%q: ParseJSON ok=%v, encoding/json ok=%v", body, ok, wantOK)
	}
	if ok && !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: ParseJSON gives %#v, encoding/json %#v", body, got, want)
	}
}
