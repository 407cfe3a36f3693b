package wire

import (
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
)

// A spoken Live session in Python's spelling: audio chunks (the model
// still speaking to the first turn when the user speaks again), the
// transcriptions in pieces, silence streamed after the last answer.
func TestLiveSpokenTurnsAreTranscribed(t *testing.T) {
	frame := func(client bool, ms int, data string) cassettes.Frame {
		return cassettes.Frame{FromClient: client, Kind: cassettes.FrameBinary, Data: []byte(data), At: time.Duration(ms) * time.Millisecond}
	}
	x := &cassettes.Exchange{
		Request:  cassettes.Request{Method: "GET", Path: "/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent"},
		Response: cassettes.Response{Status: 101},
		Live: &cassettes.Live{Frames: []cassettes.Frame{
			frame(true, 1, `{"setup":{"model":"models/gemini-live-2.5-flash"}}`),
			frame(false, 2, `{"setupComplete":{}}`),
			frame(true, 3, `{"realtime_input":{"audio":{"mime_type":"audio/pcm","data":"AAAA"}}}`),
			frame(true, 4, `{"realtime_input":{"audio":{"mime_type":"audio/pcm","data":"AAAA"}}}`),
			frame(false, 9, `{"serverContent":{"inputTranscription":{"text":" Weather in"}}}`),
			frame(false, 10, `{"serverContent":{"inputTranscription":{"text":" Paris?"}}}`),
			frame(false, 12, `{"serverContent":{"modelTurn":{"parts":[{"inlineData":{"mimeType":"audio/pcm","data":"AQID"}}]},"outputTranscription":{"text":"Sunny"}}}`),
			frame(true, 13, `{"realtime_input":{"audio":{"mime_type":"audio/pcm","data":"AAAA"}}}`),
			frame(false, 14, `{"serverContent":{"modelTurn":{"parts":[{"inlineData":{"mimeType":"audio/pcm","data":"AQID"}}]},"outputTranscription":{"text":" and 18°C."}}}`),
			frame(false, 15, `{"serverContent":{"turnComplete":true}}`),
			frame(true, 20, `{"realtime_input":{"media_chunks":[{"mime_type":"audio/pcm","data":"AAAA"}]}}`),
			frame(false, 25, `{"serverContent":{"modelTurn":{"parts":[{"inlineData":{"mimeType":"audio/pcm","data":"AQID"}}]}}}`),
			frame(false, 26, `{"serverContent":{"turnComplete":true}}`),
			frame(true, 30, `{"realtime_input":{"audio":{"mime_type":"audio/pcm","data":"AAAA"}}}`),
			frame(true, 31, `{"realtime_input":{"audio_stream_end":true}}`),
			{Kind: cassettes.FrameClose, Code: 1000, At: 40 * time.Millisecond},
		}},
	}
	sessions, _ := placed(WithLiveSteps([]*cassettes.Exchange{x}))
	if len(sessions) != 1 || len(sessions[0].Invocations) != 2 {
		t.Fatalf("got %+v, want one session of two invocations (no empty one for the trailing silence)", sessions)
	}
	first, second := sessions[0].Invocations[0], sessions[0].Invocations[1]
	if first.User != "Weather in Paris?" || len(first.Steps) != 1 {
		t.Fatalf("invocation 1: %q, %d steps", first.User, len(first.Steps))
	}
	answer := StepOf(first.Steps[0])
	if answer.Text != "Sunny and 18°C." || answer.FinishReason != "STOP" || answer.Latency != 12*time.Millisecond {
		t.Errorf("invocation 1's answer: %+v, want the output transcription as its text, from the first audio chunk (3 ms) to turnComplete (15 ms)", answer)
	}
	// A spoken turn without transcription: an invocation with no user text
	// and an answer with no text.
	if second.User != "" || len(second.Steps) != 1 || StepOf(second.Steps[0]).Text != "" {
		t.Errorf("invocation 2: %q, %+v", second.User, StepOf(second.Steps[0]))
	}
}
