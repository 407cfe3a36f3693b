// The JSON document against its schema, and the 10k-invocation benchmark.

package rundiff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/recorded"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// weatherDir is the shipped example recording: one session, two turns of
// a get_weather call and an answer.
const weatherDir = "../../../../examples/weather/cassettes"

func loadWeather(t testing.TB) recorded.Run {
	t.Helper()
	loaded, err := cassettes.LoadDir(weatherDir)
	if err != nil {
		t.Fatal(err)
	}
	return recorded.Build(weatherDir, loaded)
}

// edited is a copy of the example changed the way a refactor would:
// Paris asked in Fahrenheit, Tokyo's call dropped and its answer reworded.
func edited(t testing.TB) recorded.Run {
	run := loadWeather(t)
	data, _ := json.Marshal(run)
	var out recorded.Run
	json.Unmarshal(data, &out)
	for ci, c := range run.Cassettes { // exchanges are not in the JSON form
		for si, s := range c.Sessions {
			for ii, inv := range s.Invocations {
				for k, st := range inv.Steps {
					out.Cassettes[ci].Sessions[si].Invocations[ii].Steps[k].Exchange = st.Exchange
				}
			}
		}
	}
	invs := out.Cassettes[0].Sessions[0].Invocations
	invs[0].Steps[0].ToolCalls[0].Args["units"] = "fahrenheit"
	invs[1].Steps[0].ToolCalls = []cassettes.ToolCall{}
	invs[1].Steps[1].Text = "Tokyo: 24°C and clear."
	return out
}

// The JSON document follows schema.json, and holds what changed.
func TestJSONFollowsSchema(t *testing.T) {
	schemaFile, err := os.Open("schema.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("schema.json", doc); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile("schema.json")
	if err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]*Report{
		"changed":   Diff("old", "new", loadWeather(t), edited(t), Options{}),
		"identical": Diff("old", "new", loadWeather(t), loadWeather(t), Options{}),
		"removed":   Diff("old", "new", loadWeather(t), recorded.Run{}, Options{}),
	} {
		var buf bytes.Buffer
		if err := WriteJSON(&buf, r); err != nil {
			t.Fatal(err)
		}
		v, err := jsonschema.UnmarshalJSON(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if err := schema.Validate(v); err != nil {
			t.Errorf("%s: %v\n%s", name, err, buf.String())
		}
	}
	r := Diff("old", "new", loadWeather(t), edited(t), Options{})
	if got := CountChanges(r.Summary.Changes); got != "1 tool removed, 1 argument changed, 1 response changed" {
		t.Errorf("changes: %s", got)
	}
	// Every kind the code knows is in the schema's list, and no other.
	data, _ := os.ReadFile("schema.json")
	var s struct {
		Defs struct {
			Kind struct {
				Enum []string `json:"enum"`
			} `json:"kind"`
		} `json:"$defs"`
	}
	json.Unmarshal(data, &s)
	if fmt.Sprint(s.Defs.Kind.Enum) != strings.Trim(fmt.Sprint(Kinds), "") {
		t.Errorf("schema kinds %v, code %v", s.Defs.Kind.Enum, Kinds)
	}
}

// BenchmarkDiff10k compares two runs of 10,000 invocations each (100
// sessions of 100 turns, built from the recorded example; one turn in a
// hundred changed).
func BenchmarkDiff10k(b *testing.B) {
	old, new := bigRun(b, false), bigRun(b, true)
	b.ResetTimer()
	for b.Loop() {
		r := Diff("old", "new", old, new, Options{})
		if r.Summary.Invocations != 10000 || r.Summary.Changed != 100 {
			b.Fatalf("summary %+v", r.Summary)
		}
	}
}

func bigRun(b *testing.B, changed bool) recorded.Run {
	example := loadWeather(b).Cassettes[0].Sessions[0].Invocations
	changes := edited(b).Cassettes[0].Sessions[0].Invocations
	c := recorded.Cassette{Name: "big"}
	for s := range 100 {
		session := recorded.Session{ID: s + 1}
		for i := range 100 {
			inv := example[i%2]
			if changed && i == 50 {
				inv = changes[0]
			}
			inv.ID, inv.User = i+1, fmt.Sprintf("session %d turn %d: %s", s, i, inv.User)
			session.Invocations = append(session.Invocations, inv)
		}
		c.Sessions = append(c.Sessions, session)
	}
	return recorded.Run{Cassettes: []recorded.Cassette{c}}
}
