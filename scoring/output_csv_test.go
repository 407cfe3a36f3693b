package scoring

import (
	"bytes"
	"encoding/csv"
	"testing"
)

// A cell a spreadsheet would read as a formula starts with a quote, as
// OWASP recommends for CSV injection; numbers adkproxy computes stay numbers.
func TestWriteCSVNeutralisesFormulas(t *testing.T) {
	neg := -0.5
	rows := &Rows{HasLabel: true, Label: "@SUM(A1)", Criteria: []string{"=crit"},
		Rows: []Row{{EvalSetID: "+set", EvalID: `=HYPERLINK("http://x","y")`, SessionID: "-s",
			Case:  &Case{Actual: []Invocation{{FinalResponse: "\t=1+1"}}},
			Extra: []Cell{{"cr", "\r=1"}, {"n", neg}, {"list", []string{"=a", "b"}}, {"plain", "fine"}}}}}
	var b bytes.Buffer
	if err := rows.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	head, row := recs[0], recs[1]
	cell := func(col string) string {
		for i, h := range head {
			if h == col {
				return row[i]
			}
		}
		t.Fatalf("no column %q in %q", col, head)
		return ""
	}
	want := map[string]string{
		"label": "'@SUM(A1)", "eval_set_id": "'+set", "eval_id": `'=HYPERLINK("http://x","y")`,
		"session_id": "'-s", "final_response": "'\t=1+1", "cr": "'\r=1", "n": "-0.5", "list": "'=a;b", "plain": "fine",
	}
	for col, w := range want {
		if got := cell(col); got != w {
			t.Errorf("%s: %q, want %q", col, got, w)
		}
	}
	if head[5] != "'=crit" || head[6] != "'=crit.status" {
		t.Errorf("criterion header cells %q %q, want them quoted", head[5], head[6])
	}
}
