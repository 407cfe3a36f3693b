package matcher

import (
	"fmt"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
)

// diffBodies diffs two request bodies the way replay does.
func diffBodies(t *testing.T, recorded, got string) []string {
	t.Helper()
	m, err := New()
	if err != nil {
		t.Fatal(err)
	}
	req := func(body string) *cassettes.Request {
		return &cassettes.Request{Method: "POST", Path: "/v1beta/models/m:generateContent", Body: []byte(body)}
	}
	var lines []string
	for _, d := range m.Diff(req(recorded), req(got)) {
		lines = append(lines, d.String())
	}
	return lines
}

func decl(name string) string {
	return fmt.Sprintf(`{"name":%q,"description":"Tool %s","parameters":{"type":"OBJECT"}}`, name, name)
}

// One declaration inserted among others is one difference, named after the
// tool, not a change at every later position.
func TestInsertedToolDeclarationIsOneDifference(t *testing.T) {
	body := func(names ...string) string {
		var ds []string
		for _, n := range names {
			ds = append(ds, decl(n))
		}
		return `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"tools":[{"functionDeclarations":[` + strings.Join(ds, ",") + `]}]}`
	}
	got := diffBodies(t, body("get_weather", "get_time", "roll_die", "flip_coin"), body("get_weather", "get_time", "get_forecast", "roll_die", "flip_coin"))
	if len(got) != 1 || !strings.HasPrefix(got[0], `tools[0].functionDeclarations[get_forecast]: added {`) || !strings.Contains(got[0], `"name":"get_forecast"`) {
		t.Errorf("diffs:\n%s", strings.Join(got, "\n"))
	}
	// A declaration in another place is the same tool, moved; a changed one is diffed field by field.
	got = diffBodies(t, body("a", "b"), strings.Replace(body("b", "a"), `"Tool a"`, `"Tool A"`, 1))
	if len(got) != 2 || got[0] != `tools[0].functionDeclarations[a]: recorded at index 0, got at index 1` ||
		got[1] != `tools[0].functionDeclarations[a].description: recorded "Tool a", got "Tool A"` {
		t.Errorf("diffs:\n%s", strings.Join(got, "\n"))
	}
}

// One turn inserted into the history is one difference; turns after it are
// not blamed, and a changed turn is still diffed field by field.
func TestInsertedHistoryTurnIsOneDifference(t *testing.T) {
	turn := func(role, text string) string {
		return fmt.Sprintf(`{"role":%q,"parts":[{"text":%q}]}`, role, text)
	}
	body := func(turns ...string) string { return `{"contents":[` + strings.Join(turns, ",") + `]}` }
	recorded := body(turn("user", "q1"), turn("model", "a1"), turn("user", "q2"), turn("model", "a2"), turn("user", "q3"))
	got := diffBodies(t, recorded, body(turn("user", "q1"), turn("model", "a1"), turn("user", "extra"), turn("user", "q2"), turn("model", "a2"), turn("user", "q3")))
	if len(got) != 1 || got[0] != `contents[2]: added {"parts":[{"text":"extra"}],"role":"user"}` {
		t.Errorf("diffs:\n%s", strings.Join(got, "\n"))
	}
	got = diffBodies(t, recorded, body(turn("user", "q1"), turn("model", "a1"), turn("user", "Q2"), turn("model", "a2"), turn("user", "q3")))
	if len(got) != 1 || got[0] != `contents[2].parts[0].text: recorded "q2", got "Q2"` {
		t.Errorf("diffs:\n%s", strings.Join(got, "\n"))
	}
	got = diffBodies(t, recorded, body(turn("user", "q1"), turn("model", "a1"), turn("model", "a2"), turn("user", "q3")))
	if len(got) != 1 || got[0] != `contents[2]: removed (recorded {"parts":[{"text":"q2"}],"role":"user"})` {
		t.Errorf("diffs:\n%s", strings.Join(got, "\n"))
	}
}

// A part calling or answering a function is addressed by the function's
// name where both sides agree on it; an added part by its own name; a part
// whose function changed by its index.
func TestPartsAddressedByFunctionName(t *testing.T) {
	body := func(parts ...string) string {
		return `{"contents":[{"role":"user","parts":[{"text":"hi"}]},{"role":"model","parts":[` + strings.Join(parts, ",") + `]}]}`
	}
	call := func(name, city string) string {
		return `{"functionCall":{"name":"` + name + `","args":{"city":"` + city + `"}}}`
	}
	for _, c := range []struct {
		recorded, got []string
		want          string
	}{
		{[]string{call("get_weather", "Paris")}, []string{call("get_weather", "Rome")}, `contents[1].parts[get_weather].functionCall.args.city: recorded "Paris", got "Rome"`},
		{[]string{call("get_weather", "Paris"), call("get_weather", "Rome")}, []string{call("get_weather", "Paris"), call("get_weather", "Roma")}, `contents[1].parts[get_weather#2].functionCall.args.city: recorded "Rome", got "Roma"`},
		{[]string{call("get_weather", "Paris")}, []string{call("get_weather", "Paris"), call("get_time", "Paris")}, `contents[1].parts[get_time]: added {"functionCall":{"args":{"city":"Paris"},"name":"get_time"}}`},
		{[]string{call("get_weather", "Paris")}, []string{call("get_time", "Paris")}, `contents[1].parts[0].functionCall.name: recorded "get_weather", got "get_time"`},
	} {
		if got := diffBodies(t, body(c.recorded...), body(c.got...)); len(got) != 1 || got[0] != c.want {
			t.Errorf("diffs:\n%s\nwant %s", strings.Join(got, "\n"), c.want)
		}
	}
	for _, bad := range []string{"contents[*].parts[get_weather#0]", "contents[*].parts[get_weather#]", "contents[*].parts[#2]", "contents[*].parts[a#02]"} {
		if _, err := New(bad); err == nil {
			t.Errorf("New(%q) accepted a bad selector", bad)
		}
	}
}
