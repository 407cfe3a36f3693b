package conversation_test

import (
	"fmt"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/conversation"
	"github.com/adkproxy/adkproxy/matcher"
)

// BenchmarkFileUntaggedCall files the Nth untagged call of a cassette that
// already holds N−1: identical calls (each its own session, as parallel
// sessions of one test would make) and calls with distinct user texts
// (each a new conversation). Each iteration places the Nth call and
// abandons it (a failed step frees its place), so every iteration files the
// Nth call against the same N−1. The floor: N=10,000 within 1.2× of N=10.
func BenchmarkFileUntaggedCall(b *testing.B) {
	for _, kind := range []string{"identical", "distinct"} {
		for _, n := range []int{10, 10_000} {
			b.Run(fmt.Sprintf("%s/calls=%d", kind, n), func(b *testing.B) {
				call := func(i int) *conversation.Call {
					text := "the same question"
					if kind == "distinct" {
						text = fmt.Sprintf("question %d", i)
					}
					body := fmt.Sprintf(`{"contents":[{"role":"user","parts":[{"text":%q}]}],"systemInstruction":{"parts":[{"text":"be brief"}]}}`, text)
					c, ok := conversation.Analyze(matcher.Default(), "/v1beta/models/gemini-2.5-flash:generateContent", []byte(body))
					if !ok {
						b.Fatal("not a model call")
					}
					return c
				}
				org := conversation.NewOrganizer()
				ok := &cassettes.Response{Status: 200, End: cassettes.EndComplete}
				for i := range n - 1 {
					_, token := org.Place(call(i), "")
					org.Finish(token, ok)
				}
				last := call(n - 1)
				failed := &cassettes.Response{Status: 429}
				b.ReportAllocs()
				for b.Loop() {
					_, token := org.Place(last, "")
					org.Finish(token, failed)
				}
			})
		}
	}
}
