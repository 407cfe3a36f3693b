package textfmt

import "testing"

func TestTextfmt(t *testing.T) {
	tests := []struct{ got, want string }{
		{Truncate("abcdef", 6), "abcdef"},
		{Truncate("abcdefg", 6), "abcde…"},
		{Truncate("°°°°°°°", 3), "°°…"},
		{Truncate("°°°", 3), "°°°"},
		{Truncate("abc", 0), "…"},
		{OneLine("  a\n\tb  c \r\n"), "a b c"},
		{OneLine("red\x1b[31m\u202e"), "red\ufffd[31m\ufffd"},
		{Plural(1, "other request"), "1 other request"},
		{Plural(0, "session"), "0 sessions"},
		{Plural(2, "step"), "2 steps"},
	}
	for i, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%d: got %q, want %q", i, tt.got, tt.want)
		}
	}
}

func TestTruncate(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"abc", 3, "abc"}, {"abcd", 3, "ab…"}, {"ééé", 3, "ééé"}, {"éééé", 3, "éé…"}, {"", 1, ""},
	} {
		if got := Truncate(tc.in, tc.n); got != tc.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

func TestCall(t *testing.T) {
	long := "0123456789012345678901234567890123456789012345678901234567890123456789"
	for _, tc := range []struct {
		name  string
		args  map[string]any
		width int
		want  string
	}{
		{"get_weather", map[string]any{"city": "London"}, 60, `get_weather(city="London")`},
		{"f", map[string]any{"b": []any{1.0, "x"}, "a": "y", "c": nil}, 30, `f(a="y", b=[1,"x"], c=null)`},
		{"f", map[string]any{"q": `say "<hi>"`}, 60, `f(q="say \"<hi>\"")`},
		{"noargs", map[string]any{}, 30, `noargs()`},
		{"f", nil, 30, `f(null)`},
		{"f", map[string]any{"q": long}, 30, `f(q="` + long[:27] + `…")`},
		{"f", map[string]any{"n": []any{long}}, 10, `f(n=["0123456…)`},
		{"f", map[string]any{"q": "a  b\nc\u202e"}, 30, `f(q="a  b\nc` + "\ufffd" + `")`},
		{"f\nx", map[string]any{"k\tk": 1}, 30, `f x(k k=1)`},
	} {
		if got := Call(tc.name, tc.args, tc.width); got != tc.want {
			t.Errorf("Call(%q, %v, %d) = %s, want %s", tc.name, tc.args, tc.width, got, tc.want)
		}
	}
}
