package scoring

import (
	"encoding/json"
	"testing"
)

func TestFormatCall(t *testing.T) {
	for _, tc := range []struct {
		call ToolCall
		want string
	}{
		{engCall("get_weather", "city", "London"), `get_weather(city="London")`},
		{engCall("f", "b", json.Number("2"), "a", []any{true, nil}, "q", `say "<hi>"`), `f(a=[true,null], b=2, q="say \"<hi>\"")`},
		{engCall("f"), `f()`},
		{engNullCall("f"), `f(null)`},
		{engCall("f", "long", "0123456789012345678901234567890123456789012345678901234567890123456789"), `f(long="0123456789012345678901234567890123456789012345678901234567…)`},
	} {
		if got := FormatCall(tc.call); got != tc.want {
			t.Errorf("%v: %s, want %s", tc.call, got, tc.want)
		}
	}
}

func TestCut(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"abc", 3, "abc"}, {"abcd", 3, "ab…"}, {"ééé", 3, "ééé"}, {"éééé", 3, "éé…"}, {"", 1, ""},
	} {
		if got := cut(tc.in, tc.n); got != tc.want {
			t.Errorf("cut(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}
