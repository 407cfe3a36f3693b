package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// The wrapped command of TestLiveVoiceSessionIsGraded (dispatched by
// TestMain with the other clients).
func init() { proxiedClients["live-voice"] = liveVoiceClient }

// liveVoiceClient speaks to a Live model through adkproxy's base URL:
// "What is the weather in Paris?" as two audio chunks, the tool call
// answered, then "Thanks"; the model answers in audio with transcriptions,
// which it prints.
func liveVoiceClient() int {
	base := "ws" + strings.TrimPrefix(os.Getenv("GOOGLE_GEMINI_BASE_URL"), "http")
	ctx := context.Background()
	client, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: os.Getenv("GOOGLE_API_KEY"), Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: base, APIVersion: "v1beta"}})
	if err != nil {
		fmt.Fprintln(os.Stderr, "client:", err)
		return 2
	}
	session, err := client.Live.Connect(ctx, "gemini-live-2.5-flash-preview", &genai.LiveConnectConfig{
		ResponseModalities:       []genai.Modality{genai.ModalityAudio},
		InputAudioTranscription:  &genai.AudioTranscriptionConfig{},
		OutputAudioTranscription: &genai.AudioTranscriptionConfig{},
		SystemInstruction:        genai.NewContentFromText(`You are an agent. Your internal name is "voice_agent".`, genai.RoleUser),
		Tools: []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{{Name: "get_weather", Description: "Current weather for a city",
			Parameters: &genai.Schema{Type: genai.TypeObject, Properties: map[string]*genai.Schema{"city": {Type: genai.TypeString}}}}}}},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "connect:", err)
		return 2
	}
	defer session.Close()
	// The fake model "hears" the audio's bytes as words.
	speak := func(chunks ...string) error {
		for _, c := range chunks {
			if err := session.SendRealtimeInput(genai.LiveRealtimeInput{Audio: &genai.Blob{MIMEType: "audio/pcm;rate=16000", Data: []byte(c)}}); err != nil {
				return err
			}
		}
		return session.SendRealtimeInput(genai.LiveRealtimeInput{AudioStreamEnd: true})
	}
	for _, turn := range [][]string{{"What is the weather ", "in Paris?"}, {"Thanks"}} {
		if err := speak(turn...); err != nil {
			fmt.Fprintln(os.Stderr, "send:", err)
			return 2
		}
		var heard, said strings.Builder
		for done := false; !done; {
			msg, err := session.Receive()
			if err != nil {
				fmt.Fprintln(os.Stderr, "receive:", err)
				return 2
			}
			switch {
			case msg.ToolCall != nil:
				var responses []*genai.FunctionResponse
				for _, c := range msg.ToolCall.FunctionCalls {
					responses = append(responses, &genai.FunctionResponse{ID: c.ID, Name: c.Name,
						Response: map[string]any{"city": c.Args["city"], "temp_c": 18, "sky": "sunny"}})
				}
				if err := session.SendToolResponse(genai.LiveToolResponseInput{FunctionResponses: responses}); err != nil {
					return 2
				}
			case msg.ServerContent != nil:
				if t := msg.ServerContent.InputTranscription; t != nil {
					heard.WriteString(t.Text)
				}
				if t := msg.ServerContent.OutputTranscription; t != nil {
					said.WriteString(t.Text)
				}
			case msg.UsageMetadata != nil:
				done = true
			}
		}
		fmt.Printf("heard %q, said %q\n", heard.String(), said.String())
	}
	return 0
}

// TestLiveVoiceSessionIsGraded: a Live session spoken in audio only is
// recorded through adkproxy; its transcriptions make the invocations'
// user texts and final responses, so ls shows the transcript, score pairs
// it with an eval case by its first user turn and grades its answer, and
// the CSV carries the spoken answer.
func TestLiveVoiceSessionIsGraded(t *testing.T) {
	t.Parallel()
	dir := testutil.OutDir(t)
	up := httptest.NewServer(&fakegemini.Handler{})
	defer up.Close()
	rec := adkproxy(t, []string{"GOOGLE_API_KEY=" + testutil.SecretAPIKey},
		append([]string{"record", "--cassettes", dir, "--upstream", up.URL}, self("live-voice")...)...)
	if rec.code != 0 || !strings.Contains(rec.stdout, `heard "What is the weather in Paris?"`) {
		t.Fatalf("record: exit %d\nstdout %s\nstderr %s", rec.code, rec.stdout, rec.stderr)
	}
	var heard, answer string
	fmt.Sscanf(strings.Split(rec.stdout, "\n")[0], "heard %q, said %q", &heard, &answer)
	if answer == "" {
		t.Fatalf("no spoken answer: %s", rec.stdout)
	}

	ls := adkproxy(t, nil, "ls", dir)
	t.Logf("ls:\n%s", ls.stdout)
	if ls.code != 0 || !strings.Contains(ls.stdout, `"What is the weather in Paris?"`) || !strings.Contains(ls.stdout, `"Thanks"`) ||
		!strings.Contains(ls.stdout, answer[:20]) || !strings.Contains(ls.stdout, "get_weather") {
		t.Errorf("ls does not show the transcript:\n%s%s", ls.stdout, ls.stderr)
	}

	set := filepath.Join(t.TempDir(), "voice.evalset.json")
	os.WriteFile(set, []byte(`{"eval_set_id": "voice", "eval_cases": [{"eval_id": "paris_by_voice", "conversation": [
	  {"user_content": {"parts": [{"text": "What is the weather in Paris?"}]}, "final_response": {"parts": [{"text": `+fmt.Sprintf("%q", answer)+`}]},
	   "intermediate_data": {"tool_uses": [{"name": "get_weather", "args": {"city": "Paris"}}]}},
	  {"user_content": {"parts": [{"text": "Thanks"}]}}]}]}`), 0o644)
	cfg := filepath.Join(t.TempDir(), "config.json")
	os.WriteFile(cfg, []byte(`{"criteria": {"tool_trajectory_avg_score": 1.0}, "adkproxy": {"criteria": {"total_tokens": {}}}}`), 0o644)
	r := adkproxy(t, nil, "score", "--expected", set, "--config", cfg, "--format", "csv", dir)
	rows, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if err != nil || len(rows) != 2 {
		t.Fatalf("score: exit %d, %v\n%s\n%s", r.code, err, r.stdout, r.stderr)
	}
	cell := map[string]string{}
	for i, c := range rows[0] {
		cell[c] = rows[1][i]
	}
	if cell["eval_id"] != "paris_by_voice" || cell["tool_trajectory_avg_score"] != "1" || cell["metric.turn_count"] != "2" ||
		cell["final_response"] == "" || cell["metric.unique_tools"] != "get_weather" {
		t.Errorf("the voice session is not graded: %v\nstderr %s", cell, r.stderr)
	}
	os.WriteFile(cfg, []byte(`{"criteria": {"response_match_score": {"threshold": 0.99}}}`), 0o644)
	// Invocation 1's spoken answer is what the eval set expects; invocation
	// 2 expects nothing and gets ROUGE 0, so the mean is 0.5.
	r = adkproxy(t, nil, "score", "--expected", set, "--config", cfg, "--format", "csv", dir)
	if rows, _ := csv.NewReader(strings.NewReader(r.stdout)).ReadAll(); len(rows) != 2 || rows[1][5] != "0.5" {
		t.Errorf("response_match_score of the spoken answers:\n%s\n%s", r.stdout, r.stderr)
	}
}
