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
