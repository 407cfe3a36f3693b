package recorded

import (
	"fmt"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
)

// BenchmarkCassetteOf reads a placed cassette of N steps (sessions of ten
// invocations of two steps, a tool call and a tool exchange each): the
// cost per step (ns/step) stays the same from 20,000 to 200,000 steps, as
// ls, score and diff need.
func BenchmarkCassetteOf(b *testing.B) {
	for _, n := range []int{20_000, 200_000} {
		c := placedCassette(n)
		b.Run(fmt.Sprintf("steps=%d", n), func(b *testing.B) {
			for b.Loop() {
				got := CassetteOf("big", "big.yaml", c)
				if len(got.Sessions) != n/20 {
					b.Fatalf("%d sessions", len(got.Sessions))
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/step")
		})
	}
}

func placedCassette(n int) *cassettes.Cassette {
	c := &cassettes.Cassette{}
	for i := range n / 2 {
		p := cassettes.Place{Session: i/10 + 1, Invocation: i%10 + 1, Agent: "root", User: fmt.Sprintf("turn %d", i)}
		call, answer := p, p
		answer.Step = 2
		c.Exchanges = append(c.Exchanges,
			&cassettes.Exchange{
				Request:  cassettes.Request{Method: "POST", Path: "/v1beta/models/gemini-2.5-flash:generateContent", Body: []byte(`{"contents":[{"role":"user","parts":[{"text":"` + p.User + `"}]}]}`)},
				Response: cassettes.Response{Status: 200, Body: []byte(`{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}}}]}}],"usageMetadata":{"promptTokenCount":10,"totalTokenCount":12}}`)},
				Place:    &call,
			},
			&cassettes.Exchange{
				Request:  cassettes.Request{Scheme: "https", Host: "weather.example.com", Method: "GET", Path: "/v1/current", Query: "city=Paris"},
				Response: cassettes.Response{Status: 200, Body: []byte(`{"temp_c":18}`)},
				Place:    &call,
			},
			&cassettes.Exchange{
				Request: cassettes.Request{Method: "POST", Path: "/v1beta/models/gemini-2.5-flash:generateContent", Body: []byte(`{"contents":[{"role":"user","parts":[{"text":"` + p.User + `"}]},` +
					`{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}}}]},{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"temp_c":18}}}]}]}`)},
				Response: cassettes.Response{Status: 200, Body: []byte(`{"candidates":[{"content":{"role":"model","parts":[{"text":"It is 18°C."}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":20,"totalTokenCount":25}}`)},
				Place:    &answer,
			})
	}
	return c
}
