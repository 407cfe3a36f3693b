package recorded

import (
	"fmt"
	"iter"
	"reflect"
	"runtime"
	"testing"
	"weak"

	"github.com/adkproxy/adkproxy/cassettes"
)

// streamCassettes are two cassettes of sessions with one invocation of two
// steps each, out of order in the file, and a request that is no model
// call; weak points at each model call's exchange, by cassette and session.
func streamCassettes(sessions int) (loaded map[string]*cassettes.Cassette, weak map[string][]weak.Pointer[cassettes.Exchange]) {
	loaded, weak = map[string]*cassettes.Cassette{}, map[string][]weakExchange{}
	for _, name := range []string{"b", "a"} {
		c := &cassettes.Cassette{Name: name, File: "/run/" + name + ".yaml"}
		for s := sessions; s >= 1; s-- {
			for step := range 2 {
				x := &cassettes.Exchange{
					Request:  cassettes.Request{Method: "POST", Path: "/v1beta/models/m:generateContent", Body: []byte(`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`)},
					Response: cassettes.Response{Status: 200, Body: []byte(fmt.Sprintf(`{"candidates":[{"content":{"parts":[{"text":"answer %d.%d"}]}}]}`, s, step))},
					Place:    &cassettes.Place{Session: s, Invocation: 1, Step: step, Agent: "root", User: "hi"},
				}
				c.Exchanges = append(c.Exchanges, x)
				weak[name] = append(weak[name], weakOf(x))
			}
		}
		c.Exchanges = append(c.Exchanges, &cassettes.Exchange{Request: cassettes.Request{Method: "GET", Path: "/v1beta/models"}, Response: cassettes.Response{Status: 200}})
		loaded[name] = c
	}
	return loaded, weak
}

type weakExchange = weak.Pointer[cassettes.Exchange]

func weakOf(x *cassettes.Exchange) weakExchange { return weak.Make(x) }

// TestStreamIsBuild: Stream hands out the cassettes, sessions and
// invocations Build makes, in Build's order.
func TestStreamIsBuild(t *testing.T) {
	loaded, _ := streamCassettes(3)
	want := Build("/run", loaded)
	loaded, _ = streamCassettes(3)
	var got Run
	Stream("/run", loaded, func(c *Cassette, invocations iter.Seq2[int, *Invocation]) {
		for session, inv := range invocations {
			if len(c.Sessions) == 0 || c.Sessions[len(c.Sessions)-1].ID != session {
				c.Sessions = append(c.Sessions, Session{ID: session})
			}
			s := &c.Sessions[len(c.Sessions)-1]
			s.Invocations = append(s.Invocations, *inv)
		}
		got.Cassettes = append(got.Cassettes, *c)
	})
	if len(loaded) != 0 {
		t.Errorf("Stream left %d cassettes in loaded; it consumes them", len(loaded))
	}
	// The exchanges are other copies: compare what was read from them.
	for _, r := range []*Run{&want, &got} {
		for i := range r.Cassettes {
			for j := range r.Cassettes[i].Sessions {
				for k := range r.Cassettes[i].Sessions[j].Invocations {
					for l := range r.Cassettes[i].Sessions[j].Invocations[k].Steps {
						r.Cassettes[i].Sessions[j].Invocations[k].Steps[l].Exchange = nil
					}
				}
			}
			r.Cassettes[i].Other = nil
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Stream read\n%+v\nBuild read\n%+v", got, want)
	}
}

// TestStreamLetsGoOfWhatItRead is issue 39 item 12: while a run is
// streamed, the exchanges of the invocations already read are garbage, so
// ls's table of a large cassette holds the cassette once, not the cassette
// and a model of all of it.
func TestStreamLetsGoOfWhatItRead(t *testing.T) {
	loaded, weak := streamCassettes(50)
	read := 0
	Stream("/run", loaded, func(c *Cassette, invocations iter.Seq2[int, *Invocation]) {
		for session, inv := range invocations {
			if inv.Steps[0].Text == "" {
				t.Fatalf("%s session %d: no text read", c.Name, session)
			}
			read++
			if session != 40 {
				continue
			}
			runtime.GC()
			// weak[name] is in file order: session 50 first.
			ws := weak[c.Name]
			for s := 1; s <= 50; s++ {
				first := ws[2*(50-s)]
				switch gone := first.Value() == nil; {
				case s < 40 && !gone:
					t.Errorf("%s: session %d, read before session 40, is still held", c.Name, s)
				case s > 40 && gone:
					t.Errorf("%s: session %d, not read yet, is gone", c.Name, s)
				}
			}
		}
	})
	if read != 100 {
		t.Errorf("read %d invocations, want 100", read)
	}
}
