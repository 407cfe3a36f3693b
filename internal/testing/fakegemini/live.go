// The Live API over WebSocket: a scripted model session that answers
// setup with setupComplete, a user turn with a toolCall or text, a
// toolResponse with text, each turn ending with turnComplete and
// usageMetadata. A spoken turn (realtimeInput audio ended by
// audioStreamEnd or activityEnd) is transcribed and answered in audio with
// transcriptions (live_audio.go). The connection (frames in camelCase,
// binary frames out) is the product fake's, internal/engine/fake.

package fakegemini

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/adkproxy/adkproxy/internal/engine/fake"
)

// liveClientMessage is a client frame, keys already in camelCase.
type liveClientMessage struct {
	Setup *struct {
		Model string `json:"model"`
		Tools []tool `json:"tools"`
	} `json:"setup"`
	ClientContent *struct {
		Turns        []content `json:"turns"`
		TurnComplete bool      `json:"turnComplete"`
	} `json:"clientContent"`
	RealtimeInput *realtimeInput `json:"realtimeInput"`
	ToolResponse  *struct {
		FunctionResponses []struct {
			ID       string         `json:"id"`
			Name     string         `json:"name"`
			Response map[string]any `json:"response"`
		} `json:"functionResponses"`
	} `json:"toolResponse"`
}

// serveLive runs one Live session until the client closes it.
func (h *Handler) serveLive(w http.ResponseWriter, r *http.Request) {
	conn := fake.UpgradeLive(w, r)
	if conn == nil {
		return
	}
	var (
		session generateRequest
		voice   spokenTurn
	)
	conn.Serve("fakegemini", func(data, camel []byte) bool {
		h.mu.Lock()
		h.liveFrames = append(h.liveFrames, string(data))
		h.mu.Unlock()
		var msg liveClientMessage
		json.Unmarshal(camel, &msg)
		turn := false
		switch {
		case msg.Setup != nil:
			session.Tools = msg.Setup.Tools
			return conn.SetupComplete() == nil
		case msg.ClientContent != nil:
			session.Contents = append(session.Contents, msg.ClientContent.Turns...)
			turn = msg.ClientContent.TurnComplete
		case msg.RealtimeInput != nil && msg.RealtimeInput.Text != "":
			session.Contents = append(session.Contents, content{Role: "user", Parts: []part{{Text: msg.RealtimeInput.Text}}})
			turn = true
		case msg.RealtimeInput != nil:
			said, ended := voice.hear(msg.RealtimeInput)
			if !ended {
				return true
			}
			session.Contents = append(session.Contents, content{Role: "user", Parts: []part{{Text: said}}})
			if conn.Send(map[string]any{"serverContent": map[string]any{"inputTranscription": map[string]any{"text": said}}}) != nil {
				return false
			}
			turn = true
		case msg.ToolResponse != nil:
			c := content{Role: "user"}
			for _, fr := range msg.ToolResponse.FunctionResponses {
				c.Parts = append(c.Parts, part{FunctionResponse: &functionResponse{Name: fr.Name, Response: fr.Response}})
			}
			session.Contents = append(session.Contents, c)
			turn = true
		}
		if !turn {
			return true
		}
		reply := session.reply()
		if last := session.Contents[len(session.Contents)-1]; reply.FunctionCall != nil && !strings.Contains(last.text(), "?") {
			reply = part{Text: "You said: " + last.text()} // only a question calls the tool
		}
		session.Contents = append(session.Contents, content{Role: "model", Parts: []part{reply}})
		if fc := reply.FunctionCall; fc != nil {
			return conn.Send(map[string]any{"toolCall": map[string]any{"functionCalls": []any{conn.FunctionCall(fc.Name, fc.Args)}}}) == nil
		}
		// The text in two pieces (spoken, when the user spoke), then the
		// end of the turn and its usage.
		words := strings.SplitAfter(reply.Text, " ")
		half := strings.Join(words[:len(words)/2], "")
		for _, piece := range []string{half, strings.TrimPrefix(reply.Text, half)} {
			if piece == "" {
				continue
			}
			frame := map[string]any{"serverContent": map[string]any{"modelTurn": map[string]any{"role": "model", "parts": []part{{Text: piece}}}}}
			if voice.spoken {
				frame = spokenAnswer(piece)
			}
			if conn.Send(frame) != nil {
				return false
			}
		}
		return conn.EndTurn(len(strings.Fields(session.allText())), len(strings.Fields(reply.Text))) == nil
	})
}

// LiveFrames returns every client frame the Live sessions received.
func (h *Handler) LiveFrames() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.liveFrames...)
}
