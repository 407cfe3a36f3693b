package matcher

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
)

// declarations is a request declaring n functions; changed gives the
// middle one another description.
func declarations(n int, changed bool) *cassettes.Request {
	decls := make([]map[string]any, n)
	for i := range decls {
		decls[i] = map[string]any{"name": fmt.Sprintf("fn_%d", i), "description": "does thing " + fmt.Sprint(i)}
	}
	if changed {
		decls[n/2]["description"] = "does something else"
	}
	body, _ := json.Marshal(map[string]any{
		"contents": []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": "hi"}}}},
		"tools":    []any{map[string]any{"functionDeclarations": decls}},
	})
	return &cassettes.Request{Method: "POST", Path: "/v1beta/models/m:generateContent", Body: body}
}

// TestMismatchOfManyDeclarationsIsOneDifference is issue 39 item 8's
// first case: a request of 40,000 function declarations,
// one changed in the middle, is one difference addressed by name, and
// aligning it spends no cells (the common start and end are trimmed), so
// the work is a pass over the declarations (see BenchmarkMismatch).
func TestMismatchOfManyDeclarationsIsOneDifference(t *testing.T) {
	m, _ := New()
	for _, n := range []int{10_000, 40_000} {
		rec, got := declarations(n, false), declarations(n, true)
		rv, _ := m.Parse(rec.Body)
		gv, _ := m.Parse(got.Body)
		b := newBudget()
		diffs := diffRequestsWithin(rec, got, rv, true, gv, true, b)
		want := fmt.Sprintf("tools[0].functionDeclarations[fn_%d].description", n/2)
		if len(diffs) != 1 || diffs[0].Path != want {
			t.Fatalf("n=%d: %v, want one difference at %s", n, diffs, want)
		}
		if spent := maxDiffCells - b.cells; spent > 1 {
			t.Errorf("n=%d: %d cells spent aligning one changed declaration", n, spent)
		}
	}
}

// TestWordDiffsShareOneBudget is issue 39 item 8's second case: 3,200
// changed texts of 2 KB each would take hundreds of millions of cells of
// word diffs; the request's budget bounds them all, and each text past it
// says that its word diff was left out.
func TestWordDiffsShareOneBudget(t *testing.T) {
	text := func(i int, v string) string {
		words := make([]string, 300)
		for k := range words {
			words[k] = fmt.Sprintf("w%d", (k*7+i)%50)
		}
		for k := 0; k < len(words); k += 2 {
			words[k] += v // every other word changed: nothing to trim, the whole text is aligned
		}
		return strings.Join(words, " ")
	}
	var rec, got []any
	for i := range 3200 {
		rec = append(rec, map[string]any{"role": "user", "parts": []any{map[string]any{"text": text(i, "before")}}})
		got = append(got, map[string]any{"role": "user", "parts": []any{map[string]any{"text": text(i, "after")}}})
	}
	b := newBudget()
	diffs := diffJSON("contents", place{}, rec, got, b)
	if b.cells < 0 {
		t.Errorf("spent %d cells over the budget", -b.cells)
	}
	full, leftOut := 0, 0
	for _, d := range diffs {
		switch {
		case strings.Contains(d.Words, "word diff left out"):
			leftOut++
		case strings.Contains(d.Words, "before-] {+"):
			full++
		}
	}
	if full == 0 || leftOut == 0 || full+leftOut != 3200 {
		t.Fatalf("%d word diffs in full, %d left out, of %d differences; want both, 3200 in all", full, leftOut, len(diffs))
	}
	if n := int64(full) * 300 * 300; n > maxDiffCells {
		t.Errorf("%d word diffs of 300 words each exceed the budget", full)
	}
}
