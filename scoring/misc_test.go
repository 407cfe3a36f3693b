package scoring

import (
	"encoding/json"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
)

func TestFormatCall(t *testing.T) {
	for _, tc := range []struct {
		call cassettes.ToolCall
		want string
	}{
		{engCall("get_weather", "city", "London"), `get_weather(city="London")`},
		{engCall("f", "b", json.Number("2"), "a", []any{true, nil}, "q", `say "<hi>"`), `f(a=[true,null], b=2, q="say \"<hi>\"")`},
		{engCall("f"), `f()`},
		{engNullCall("f"), `f(null)`},
		{engCall("f", "long", "0123456789012345678901234567890123456789012345678901234567890123456789"), `f(long="012345678901234567890123456789012345678901234567890123456…")`},
	} {
		if got := formatCall(tc.call); got != tc.want {
			t.Errorf("%v: %s, want %s", tc.call, got, tc.want)
		}
	}
}
