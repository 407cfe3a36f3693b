package cassettes

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestConfirmationsRoundTripOnTheirStep: a step's confirmations are written
// under it, in both shapes, with args and payload of every JSON type, and
// read back as they were; a step without any writes no field.
func TestConfirmationsRoundTripOnTheirStep(t *testing.T) {
	step := simpleExchange(`{"contents":[{"role":"user","parts":[{"text":"book"}]}]}`, `{"candidates":[]}`)
	step.Place = &Place{Session: 1, Invocation: 1, User: "book", Step: 2, Agent: "booker"}
	want := []Confirmation{
		{Tool: "book_room", Args: map[string]any{"city": "Paris", "nights": 2.5, "late": true, "tags": []any{"a", 1.0}, "none": nil},
			Confirmed: true, Payload: map[string]any{"rooms": 2.0, "note": "123"}, Hint: "Please approve", Shape: shapeJSONString},
		{Tool: "pay", Confirmed: false, Shape: shapeObject},
	}
	step.Confirmations = want
	got, data := roundTrip(t, &Cassette{Name: "c", Exchanges: []*Exchange{step}})
	text := string(data)
	for _, s := range []string{"confirmations:\n", "tool: book_room", "confirmed: true", "shape: json-string", "note: \"123\""} {
		if !strings.Contains(text, s) {
			t.Errorf("YAML lacks %q:\n%s", s, text)
		}
	}
	if !reflect.DeepEqual(got.Exchanges[0].Confirmations, want) {
		t.Errorf("read back %#v\nwant %#v\n%s", got.Exchanges[0].Confirmations, want, text)
	}
	step.Confirmations = nil
	_, data = roundTrip(t, &Cassette{Name: "c", Exchanges: []*Exchange{step}})
	if strings.Contains(string(data), "confirmations") {
		t.Errorf("a step without confirmations has the field:\n%s", data)
	}
}

func TestConfirmationErrorsNameTheField(t *testing.T) {
	head := "version: 2\nname: x\nsessions:\n  - id: 1\n    invocations:\n      - id: 1\n        user: u\n        steps:\n          - step: 0\n            agent: a\n            request: {method: POST, path: /x}\n            response: {status: 200}\n            confirmations:\n"
	for _, tc := range []struct{ yaml, want string }{
		{"              - {tool: t}\n", "confirmation 1 needs confirmed: true or false"},
		{"              - {tool: t, confirmed: yes}\n", "confirmation 1 needs confirmed: true or false"},
		{"              - {confirmed: true}\n", "names no tool"},
		{"              - {tool: t, confirmed: true, shape: xml}\n", `shape "xml" is neither object nor json-string`},
		{"              - {tool: t, confirmed: true, args: [1]}\n", "args must be a mapping"},
		{"              - {tool: t, confirmed: true, color: red}\n", `unknown field "color"`},
		{"              - {tool: t, confirmed: true, payload: {1: a}}\n", "payload is not a JSON value"},
		{"              {tool: t}\n", "confirmations must be a list"},
	} {
		_, err := Unmarshal(testFile, []byte(head+tc.yaml))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), testFile) {
			t.Errorf("%q: error %v, want one naming %s and %q", tc.yaml, err, testFile, tc.want)
		}
	}
}

// TestJournalKeepsConfirmations: a recording killed after the step was
// journalled keeps its confirmation.
func TestJournalKeepsConfirmations(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	step := journalExchange(1)
	step.Confirmations = []Confirmation{{Tool: "book_room", Args: map[string]any{"city": "Oslo"}, Confirmed: true, Payload: 3.0, Shape: shapeObject}}
	writeJournal(t, path, "c", step)
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c.Exchanges[0].Confirmations, step.Confirmations) {
		t.Fatalf("journal gave back %#v", c.Exchanges[0].Confirmations)
	}
	if err := Save(path, c, nil); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), "confirmations:\n") || !strings.Contains(string(data), "payload: 3") {
		t.Errorf("the saved cassette lacks the confirmation:\n%s", data)
	}
}
