package adkproxytest_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/adkproxy/adkproxy/adkproxytest"
	"github.com/adkproxy/adkproxy/cassettes"
)

// BenchmarkStart is what a replayed test pays for its proxy: made, one
// model call answered from its cassette, closed, with the test's cassette
// alone in the folder and beside 399 others (as a suite's folder holds
// them). The two should cost the same: a test reads only its own cassette.
func BenchmarkStart(b *testing.B) {
	const path = "/v1beta/models/gemini-2.5-flash:generateContent"
	req := []byte(`{"contents":[{"role":"user","parts":[{"text":"What is the weather in Paris?"}]}]}`)
	for _, n := range []int{1, 400} {
		b.Run(fmt.Sprintf("cassettes=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			for i := range n {
				name := fmt.Sprintf("TestSuite/case%03d", i)
				file, err := cassettes.PathFor(dir, name)
				if err != nil {
					b.Fatal(err)
				}
				c := &cassettes.Cassette{Name: name, Exchanges: []*cassettes.Exchange{{
					Request: cassettes.Request{Method: http.MethodPost, Path: path, Body: req},
					Response: cassettes.Response{Status: 200, Header: http.Header{"Content-Type": {"application/json"}},
						Body: []byte(`{"candidates":[{"content":{"role":"model","parts":[{"text":"Sunny."}]},"finishReason":"STOP"}]}`)},
				}}}
				if err := cassettes.Save(file, c, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				p, err := adkproxytest.New(dir, "TestSuite/case000")
				if err != nil {
					b.Fatal(err)
				}
				resp, err := http.Post(p.URL+path, "application/json", bytes.NewReader(req))
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					b.Fatalf("status %d", resp.StatusCode)
				}
				if err := p.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
