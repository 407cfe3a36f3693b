package recorded

import (
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
)

// FuzzCassetteOf reads any placed exchanges without panicking, and nothing
// is lost or shown twice: every model call is one step, every tool exchange
// is in its invocation's calls once and under one step when it has any, every
// unplaced exchange is other; sessions and invocations come in id order.
func FuzzCassetteOf(f *testing.F) {
	f.Add([]byte{1, 1, 0, 0, 1, 1, 2, 1, 1, 1, 0, 2}, []byte(`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f"}}]}}]}`))
	f.Add([]byte{2, 1, 0, 1, 1, 2, 0, 0, 0, 0, 0, 3}, []byte(`{"error":{"status":"UNAVAILABLE"}}`))
	f.Fuzz(func(t *testing.T, shape, body []byte) {
		c := &cassettes.Cassette{}
		models, tools, unplaced := 0, 0, 0
		for i := 0; i+3 < len(shape) && len(c.Exchanges) < 64; i += 4 {
			p := &cassettes.Place{Session: int(shape[i]%4) + 1, Invocation: int(shape[i+1]%4) + 1, Step: int(shape[i+2] % 4), Agent: string('a' + rune(shape[i+3]%2))}
			x := &cassettes.Exchange{
				Request:  cassettes.Request{Method: "POST", Path: "/v1beta/models/m:generateContent", Body: []byte(`{"contents":[]}`)},
				Response: cassettes.Response{Status: 200 + int(shape[i+3]%3)*100, Body: body},
				Place:    p,
			}
			switch shape[i+3] % 5 {
			case 3:
				x.Request = cassettes.Request{Scheme: "https", Host: "tool.example.com", Method: "GET", Path: "/t"}
				tools++
			case 4:
				x.Request = cassettes.Request{Method: "GET", Path: "/v1beta/models"}
				x.Place = nil
				unplaced++
			default:
				models++
			}
			c.Exchanges = append(c.Exchanges, x)
		}
		got := CassetteOf("c", "c.yaml", c)
		steps, calls := 0, 0
		lastSession := 0
		for _, s := range got.Sessions {
			if s.ID <= lastSession {
				t.Fatalf("session %d after %d", s.ID, lastSession)
			}
			lastSession = s.ID
			lastInv := 0
			for _, inv := range s.Invocations {
				if inv.ID <= lastInv {
					t.Fatalf("invocation %d after %d", inv.ID, lastInv)
				}
				lastInv = inv.ID
				steps += len(inv.Steps)
				calls += len(inv.HTTPCalls)
				filed := 0
				for _, st := range inv.Steps {
					filed += len(st.HTTPCalls)
					if st.Exchange.Place.Session != s.ID || st.Exchange.Place.Invocation != inv.ID {
						t.Fatalf("step of %+v in session %d invocation %d", st.Exchange.Place, s.ID, inv.ID)
					}
				}
				if want := len(inv.HTTPCalls); len(inv.Steps) == 0 && filed != 0 || len(inv.Steps) > 0 && filed != want {
					t.Fatalf("%d tool exchanges filed under %d steps, %d in the invocation", filed, len(inv.Steps), want)
				}
				inv.FinalStep()
				inv.Usage()
			}
		}
		if steps != models || calls != tools || len(got.Other) != unplaced {
			t.Fatalf("%d steps, %d tool exchanges, %d other; want %d, %d, %d", steps, calls, len(got.Other), models, tools, unplaced)
		}
	})
}
