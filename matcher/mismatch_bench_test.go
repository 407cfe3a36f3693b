package matcher

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
)

// BenchmarkMismatch is the cost of explaining a strict mismatch (issue 39
// item 8) at 1x, 4x and 16x a request of 2,500 function declarations (one
// changed in the middle) and 200 changed 2 KB texts: near-linear, the word
// diffs bounded by the request's budget.
func BenchmarkMismatch(b *testing.B) {
	m, _ := New()
	for _, k := range []int{1, 4, 16} {
		rec, got := mismatchPair(2500*k, 200*k)
		b.Run(fmt.Sprintf("size=%dx", k), func(b *testing.B) {
			b.SetBytes(int64(len(got.Body)))
			for b.Loop() {
				if len(m.Diff(rec, got)) == 0 {
					b.Fatal("no difference")
				}
			}
		})
	}
}

func mismatchPair(decls, texts int) (rec, got *cassettes.Request) {
	build := func(changed bool) *cassettes.Request {
		ds := make([]map[string]any, decls)
		for i := range ds {
			ds[i] = map[string]any{"name": fmt.Sprintf("fn_%d", i), "description": "does thing " + fmt.Sprint(i)}
		}
		var contents []any
		for i := range texts {
			words := make([]string, 300)
			for w := range words {
				words[w] = fmt.Sprintf("w%d", (w*7+i)%50)
				if changed && w%2 == 0 {
					words[w] += "x"
				}
			}
			contents = append(contents, map[string]any{"role": "user", "parts": []any{map[string]any{"text": strings.Join(words, " ")}}})
		}
		if changed {
			ds[decls/2]["description"] = "does something else"
		}
		body, _ := json.Marshal(map[string]any{"contents": contents, "tools": []any{map[string]any{"functionDeclarations": ds}}})
		return &cassettes.Request{Method: "POST", Path: "/v1beta/models/m:generateContent", Body: body}
	}
	return build(false), build(true)
}
