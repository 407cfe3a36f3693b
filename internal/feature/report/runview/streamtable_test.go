package runview

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/recorded"
)

// TestStreamTableIsWriteTable: ls's table read one invocation at a time
// (StreamTable) is the table of the whole run, byte for byte: the summary
// counted as the rows are made, sessions, tool calls and other requests.
func TestStreamTableIsWriteTable(t *testing.T) {
	loaded := func() map[string]*cassettes.Cassette {
		out := map[string]*cassettes.Cassette{}
		for _, name := range []string{"zeta", "alpha"} {
			c := &cassettes.Cassette{Name: name, File: "/run/" + name + ".yaml"}
			for s := 3; s >= 1; s-- {
				for step := range 2 {
					resp := fmt.Sprintf(`{"candidates":[{"content":{"parts":[{"text":"answer %d.%d"}]},"finishReason":"STOP"}],"usageMetadata":{"totalTokenCount":7}}`, s, step)
					if step == 0 {
						resp = `{"candidates":[{"content":{"parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}}}]}}]}`
					}
					c.Exchanges = append(c.Exchanges, &cassettes.Exchange{
						Request:  cassettes.Request{Method: "POST", Path: "/v1beta/models/m:generateContent", Body: []byte(`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`)},
						Response: cassettes.Response{Status: 200, Body: []byte(resp)},
						Place:    &cassettes.Place{Session: s, Invocation: 1 + step/2, Step: step, Agent: "root", User: fmt.Sprintf("weather %d", s)},
					})
				}
				c.Exchanges = append(c.Exchanges, &cassettes.Exchange{
					Request:  cassettes.Request{Scheme: "https", Host: "weather.example.com", Method: "GET", Path: "/v1/current", Query: "city=Paris"},
					Response: cassettes.Response{Status: 200, Body: []byte(`{"temp":18}`)},
					Place:    &cassettes.Place{Session: s, Invocation: 1, Step: 0, Agent: "root"},
				})
			}
			c.Exchanges = append(c.Exchanges, &cassettes.Exchange{Request: cassettes.Request{Method: "GET", Path: "/v1beta/models"}, Response: cassettes.Response{Status: 200}})
			out[name] = c
		}
		return out
	}
	var whole, streamed bytes.Buffer
	WriteTable(&whole, "/run", recorded.Build("/run", loaded()))
	StreamTable(&streamed, "/run", loaded())
	if streamed.String() != whole.String() {
		t.Errorf("StreamTable wrote\n%s\nWriteTable wrote\n%s", streamed.String(), whole.String())
	}
	if !bytes.Contains(whole.Bytes(), []byte("tool http GET weather.example.com")) || !bytes.Contains(whole.Bytes(), []byte("CASSETTE alpha")) {
		t.Errorf("the table lacks its tool call or a cassette:\n%s", whole.String())
	}
	var none bytes.Buffer
	StreamTable(&none, "/run", map[string]*cassettes.Cassette{})
	if none.String() != "no cassettes in /run\n" {
		t.Errorf("no cassettes: %q", none.String())
	}
}
