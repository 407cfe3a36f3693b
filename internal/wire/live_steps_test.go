package wire

import (
	"slices"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
)

// liveConnection is a Live session in Python's spelling: a setup, a
// question answered through a tool call, then a second turn.
func liveConnection() *cassettes.Exchange {
	frame := func(client bool, ms int, data string) cassettes.Frame {
		return cassettes.Frame{FromClient: client, Kind: cassettes.FrameBinary, Data: []byte(data), At: time.Duration(ms) * time.Millisecond}
	}
	return &cassettes.Exchange{
		Request:  cassettes.Request{Method: "GET", Path: "/ws/google.ai.generativelanguage.v1alpha.GenerativeService.BidiGenerateContent"},
		Response: cassettes.Response{Status: 101},
		Live: &cassettes.Live{Frames: []cassettes.Frame{
			frame(true, 1, `{"setup":{"model":"models/gemini-live-2.5-flash","system_instruction":{"parts":[{"text":"You are an agent. Your internal name is \"weather_agent\"."}]},"tools":[{"function_declarations":[{"name":"get_weather"}]}]}}`),
			frame(false, 2, `{"setupComplete":{}}`),
			frame(true, 3, `{"client_content":{"turns":[{"role":"user","parts":[{"text":"Weather in Paris?"}]}],"turn_complete":true}}`),
			frame(false, 10, `{"toolCall":{"functionCalls":[{"id":"c1","name":"get_weather","args":{"city":"Paris"}}]}}`),
			frame(true, 12, `{"tool_response":{"function_responses":[{"id":"c1","name":"get_weather","response":{"temp_c":18}}]}}`),
			frame(false, 20, `{"serverContent":{"modelTurn":{"parts":[{"text":"It is "}]}}}`),
			frame(false, 22, `{"serverContent":{"modelTurn":{"parts":[{"text":"18°C."}]}}}`),
			frame(false, 23, `{"serverContent":{"turnComplete":true}}`),
			frame(false, 24, `{"usageMetadata":{"promptTokenCount":9,"responseTokenCount":3,"totalTokenCount":12}}`),
			frame(true, 30, `{"realtime_input":{"text":"Thanks"}}`),
			frame(false, 35, `{"serverContent":{"modelTurn":{"parts":[{"text":"You are welcome."}]},"turnComplete":true}}`),
			{Kind: cassettes.FrameClose, Code: 1000, At: 40 * time.Millisecond},
		}},
	}
}

func TestLiveConnectionIsASessionAfterTheHTTPOnes(t *testing.T) {
	http := &cassettes.Exchange{
		Request:  cassettes.Request{Method: "POST", Path: "/v1beta/models/m:generateContent", Body: []byte(`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`)},
		Response: cassettes.Response{Status: 200, Body: []byte(`{"candidates":[{"content":{"role":"model","parts":[{"text":"hello"}]}}]}`)},
		Place:    &cassettes.Place{Session: 1, Invocation: 1, User: "hi"}, // as conversation.Organize places it
	}
	sessions, other := placed(WithLiveSteps([]*cassettes.Exchange{liveConnection(), http}))
	if len(other) != 0 || len(sessions) != 2 {
		t.Fatalf("got %d sessions and %d other, want the HTTP session and the Live one", len(sessions), len(other))
	}
	live := sessions[1]
	if live.ID != 2 || len(live.Invocations) != 2 {
		t.Fatalf("live session %d has %d invocations, want session 2 with 2", live.ID, len(live.Invocations))
	}
	first, second := live.Invocations[0], live.Invocations[1]
	if first.User != "Weather in Paris?" || len(first.Steps) != 2 || second.User != "Thanks" || len(second.Steps) != 1 {
		t.Fatalf("invocations %q (%d steps), %q (%d steps)", first.User, len(first.Steps), second.User, len(second.Steps))
	}
	call := StepOf(first.Steps[0])
	if len(call.ToolCalls) != 1 || call.ToolCalls[0].Name != "get_weather" || call.ToolCalls[0].Args["city"] != "Paris" {
		t.Errorf("step 0 trajectory %+v, want the get_weather call", call)
	}
	answer := StepOf(first.Steps[1])
	if len(answer.ToolResults) != 1 || answer.ToolResults[0].Response["temp_c"] == nil || answer.Text != "It is 18°C." || answer.FinishReason != "STOP" {
		t.Errorf("step 1 trajectory %+v, want the tool result (temp_c kept) and the joined text", answer)
	}
	if u := answer.Usage; u == nil || u.Candidates != 3 || u.Total != 12 {
		t.Errorf("step 1 usage %+v, want the Live usage as candidates 3, total 12", u)
	}
	if answer.Latency != 12*time.Millisecond {
		t.Errorf("step 1 latency %v, want 12ms (tool response to usage)", answer.Latency)
	}
	p := first.Steps[1].Place
	if p.Agent != "weather_agent" || p.Step != 1 || first.Steps[1].Request.Path != "/v1alpha/models/gemini-live-2.5-flash:bidiGenerateContent" {
		t.Errorf("step 1 placed %+v at %s", p, first.Steps[1].Request.Path)
	}
	if got := StepOf(second.Steps[0]).Text; got != "You are welcome." {
		t.Errorf("second invocation text %q", got)
	}
}

// FuzzLiveSteps reads any frames without panicking, and every step it
// derives is placed in the session it was given.
func FuzzLiveSteps(f *testing.F) {
	for _, fr := range liveConnection().Live.Frames {
		f.Add(fr.Data, true)
	}
	f.Add([]byte(`{"toolResponse":{"functionResponses":"x"}}`), true)
	f.Add([]byte(`{"serverContent":{"modelTurn":{"parts":[1,{"text":2}]}}}`), false)
	f.Fuzz(func(t *testing.T, data []byte, client bool) {
		x := liveConnection()
		frames := x.Live.Frames
		x.Live.Frames = append(frames[:4:4], cassettes.Frame{FromClient: client, Kind: cassettes.FrameText, Data: data})
		x.Live.Frames = append(x.Live.Frames, frames[4:]...)
		for _, s := range LiveSteps(x, 3) {
			if s.Place == nil || s.Place.Session != 3 || s.Place.Invocation < 1 {
				t.Fatalf("step placed at %+v", s.Place)
			}
			StepOf(s)
		}
	})
}

type placedSession struct {
	ID          int
	Invocations []placedInvocation
}

type placedInvocation struct {
	User  string
	Steps []*cassettes.Exchange
}

// placed groups placed exchanges by session (in id order) and invocation
// (in order of first appearance, as a Live connection's steps come), the
// unplaced ones as other.
func placed(xs []*cassettes.Exchange) (sessions []placedSession, other []*cassettes.Exchange) {
	for _, x := range xs {
		p := x.Place
		if p == nil {
			other = append(other, x)
			continue
		}
		i := slices.IndexFunc(sessions, func(s placedSession) bool { return s.ID == p.Session })
		if i < 0 {
			i = len(sessions)
			sessions = append(sessions, placedSession{ID: p.Session})
		}
		s := &sessions[i]
		if len(s.Invocations) < p.Invocation {
			s.Invocations = append(s.Invocations, placedInvocation{User: p.User})
		}
		inv := &s.Invocations[p.Invocation-1]
		inv.Steps = append(inv.Steps, x)
	}
	slices.SortFunc(sessions, func(a, b placedSession) int { return a.ID - b.ID })
	return sessions, other
}
