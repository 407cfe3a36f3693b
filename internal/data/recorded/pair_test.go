// The one pairing rule of tool results and calls.

package recorded

import (
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
)

func TestPairResults(t *testing.T) {
	call := func(name, id string) cassettes.ToolCall { return cassettes.ToolCall{Name: name, ID: id} }
	result := func(name, id string) cassettes.ToolResult { return cassettes.ToolResult{Name: name, ID: id} }
	none := CallRef{-1, -1}
	for _, tc := range []struct {
		name  string
		turns []Turn
		want  [][]CallRef
	}{
		{"parallel calls of a tool are answered in order",
			[]Turn{{Calls: []cassettes.ToolCall{call("get", ""), call("get", "")}}, {Results: []cassettes.ToolResult{result("get", ""), result("get", "")}}},
			[][]CallRef{{}, {{0, 0}, {0, 1}}}},
		{"an id goes first, even after a result without one",
			[]Turn{{Calls: []cassettes.ToolCall{call("get", ""), call("get", "x")}}, {Results: []cassettes.ToolResult{result("get", "x"), result("get", "")}}},
			[][]CallRef{{}, {{0, 1}, {0, 0}}}},
		{"ids answer out of order",
			[]Turn{{Calls: []cassettes.ToolCall{call("get", "a"), call("get", "b")}}, {Results: []cassettes.ToolResult{result("get", "b"), result("get", "a")}}},
			[][]CallRef{{}, {{0, 1}, {0, 0}}}},
		{"two ids that differ are no pair; nor is a call of another name",
			[]Turn{{Calls: []cassettes.ToolCall{call("get", "a"), call("put", "")}}, {Results: []cassettes.ToolResult{result("get", "b"), result("get", "")}}},
			[][]CallRef{{}, {none, {0, 0}}}},
		{"a result answers only a call made before its turn, and only once",
			[]Turn{
				{Results: []cassettes.ToolResult{result("get", "")}, Calls: []cassettes.ToolCall{call("get", "")}},
				{Results: []cassettes.ToolResult{result("get", ""), result("get", "")}, Calls: []cassettes.ToolCall{call("get", "")}},
				{Results: []cassettes.ToolResult{result("get", "")}},
			},
			[][]CallRef{{none}, {{0, 0}, none}, {{1, 0}}}},
	} {
		got := PairResults(tc.turns)
		for i := range tc.want {
			if len(got[i]) != len(tc.want[i]) {
				t.Errorf("%s: turn %d: %v, want %v", tc.name, i, got[i], tc.want[i])
				continue
			}
			for k := range tc.want[i] {
				if got[i][k] != tc.want[i][k] {
					t.Errorf("%s: turn %d result %d answers %v, want %v", tc.name, i, k, got[i][k], tc.want[i][k])
				}
			}
		}
	}
}
