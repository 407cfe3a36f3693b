package matcher

import (
	"net/http"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
)

func toolReq(query, contentType, body string) *cassettes.Request {
	r := &cassettes.Request{Scheme: "https", Host: "weather.example.com", Method: "POST", Path: "/v1/current",
		Query: query, Header: http.Header{}, Body: []byte(body)}
	if contentType != "" {
		r.Header.Set("Content-Type", contentType)
	}
	return r
}

func TestToolKeyCanonicalisesQueryAndBodies(t *testing.T) {
	same := [][2]*cassettes.Request{
		{toolReq("a=1&b=2", "", ""), toolReq("b=2&a=1", "", "")},
		{toolReq("", "application/json", `{"a":1,"b":[1,2]}`), toolReq("", "application/json", `{ "b":[1,2], "a":1.0 }`)},
		{toolReq("", "application/x-www-form-urlencoded", "x=1&y=2"), toolReq("", "application/x-www-form-urlencoded; charset=utf-8", "y=2&x=1")},
	}
	for _, p := range same {
		if ToolKey(p[0]) != ToolKey(p[1]) {
			t.Errorf("keys differ for %q and %q", p[0].Query+string(p[0].Body), p[1].Query+string(p[1].Body))
		}
	}
	other := toolReq("a=1&b=2", "", "")
	other.Host = "weather.example.org"
	differ := [][2]*cassettes.Request{
		{toolReq("a=1&b=2", "", ""), toolReq("a=1&b=3", "", "")},
		{toolReq("a=1&b=2", "", ""), other},
		{toolReq("", "text/plain", "y=2&x=1"), toolReq("", "text/plain", "x=1&y=2")}, // not a form: bytes
	}
	for _, p := range differ {
		if ToolKey(p[0]) == ToolKey(p[1]) {
			t.Errorf("keys equal for %+v and %+v", p[0], p[1])
		}
	}
}

func TestDiffToolNamesTheField(t *testing.T) {
	for _, tc := range []struct {
		recorded, got *cassettes.Request
		want          string
	}{
		{toolReq("city=Paris&units=metric", "", ""), toolReq("units=metric&city=Lyon", "", ""), `query.city: recorded "Paris", got "Lyon"`},
		{toolReq("city=Paris", "", ""), toolReq("city=Paris&lang=fr", "", ""), `query.lang: added "fr"`},
		{toolReq("", "application/json", `{"q":{"city":"Paris"}}`), toolReq("", "application/json", `{"q":{"city":"Lyon"}}`), `body.q.city: recorded "Paris", got "Lyon"`},
		{toolReq("", "application/x-www-form-urlencoded", "city=Paris"), toolReq("", "application/x-www-form-urlencoded", "city=Lyon"), `body.city: recorded "Paris", got "Lyon"`},
		{toolReq("", "text/plain", "abc"), toolReq("", "text/plain", "abd"), `body: recorded "abc", got "abd"`},
	} {
		diffs := DiffTool(tc.recorded, tc.got)
		if len(diffs) != 1 || diffs[0].String() != tc.want {
			t.Errorf("DiffTool = %s, want %s", strings.TrimSpace(FormatDiffs(diffs, 0)), tc.want)
		}
	}
	if d := DiffTool(toolReq("b=2&a=1", "", ""), toolReq("a=1&b=2", "", "")); len(d) != 0 {
		t.Errorf("reordered query reported as %v", d)
	}
}
