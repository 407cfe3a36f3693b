// The Live API over WebSocket: a scripted model session that answers
// setup with setupComplete, a user turn with a toolCall or text, a
// toolResponse with text, each turn ending with turnComplete and
// usageMetadata. A spoken turn (realtimeInput audio ended by
// audioStreamEnd or activityEnd) is transcribed and answered in audio with
// transcriptions (live_audio.go). Server frames go out as binary messages, as the real API
// sends them; client frames are read in camelCase or snake_case.

package fakegemini

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/adkproxy/adkproxy/matcher"
	"github.com/gorilla/websocket"
)

var livePath = regexp.MustCompile(`/ws/google\.(ai\.generativelanguage\.v[0-9a-z]+\.GenerativeService\.BidiGenerateContent(Constrained)?|cloud\.aiplatform\.v[0-9a-z]+\.LlmBidiService/BidiGenerateContent)$`)

// isLive reports whether r opens a Live API session.
func isLive(r *http.Request) bool {
	return websocket.IsWebSocketUpgrade(r) && livePath.MatchString(r.URL.Path)
}

var liveUpgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

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
	conn, err := liveUpgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	defer conn.Close()
	var (
		session generateRequest
		calls   int
		voice   spokenTurn
	)
	send := func(v any) error {
		b, _ := json.Marshal(v)
		return conn.WriteMessage(websocket.BinaryMessage, b)
	}
	for {
		_, data, err := conn.ReadMessage()
		if err != nil {
			return
		}
		h.mu.Lock()
		h.liveFrames = append(h.liveFrames, string(data))
		h.mu.Unlock()
		var raw any
		if json.Unmarshal(data, &raw) != nil {
			conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseUnsupportedData, "fakegemini: frame is not JSON"), time.Now().Add(time.Second))
			return
		}
		camel, _ := json.Marshal(matcher.CamelFrame(raw))
		var msg liveClientMessage
		json.Unmarshal(camel, &msg)
		turn := false
		switch {
		case msg.Setup != nil:
			session.Tools = msg.Setup.Tools
			if err := send(map[string]any{"setupComplete": map[string]any{}}); err != nil {
				return
			}
			continue
		case msg.ClientContent != nil:
			session.Contents = append(session.Contents, msg.ClientContent.Turns...)
			turn = msg.ClientContent.TurnComplete
		case msg.RealtimeInput != nil && msg.RealtimeInput.Text != "":
			session.Contents = append(session.Contents, content{Role: "user", Parts: []part{{Text: msg.RealtimeInput.Text}}})
			turn = true
		case msg.RealtimeInput != nil:
			said, ended := voice.hear(msg.RealtimeInput)
			if !ended {
				continue
			}
			session.Contents = append(session.Contents, content{Role: "user", Parts: []part{{Text: said}}})
			if send(map[string]any{"serverContent": map[string]any{"inputTranscription": map[string]any{"text": said}}}) != nil {
				return
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
			continue
		}
		reply := session.reply()
		if last := session.Contents[len(session.Contents)-1]; reply.FunctionCall != nil && !strings.Contains(last.text(), "?") {
			reply = part{Text: "You said: " + last.text()} // only a question calls the tool
		}
		session.Contents = append(session.Contents, content{Role: "model", Parts: []part{reply}})
		if fc := reply.FunctionCall; fc != nil {
			calls++
			call := map[string]any{"id": fmt.Sprintf("call-%d", calls), "name": fc.Name, "args": fc.Args}
			if send(map[string]any{"toolCall": map[string]any{"functionCalls": []any{call}}}) != nil {
				return
			}
			continue
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
			if send(frame) != nil {
				return
			}
		}
		prompt := len(strings.Fields(session.allText()))
		out := len(strings.Fields(reply.Text))
		if send(map[string]any{"serverContent": map[string]any{"turnComplete": true}}) != nil ||
			send(map[string]any{"usageMetadata": map[string]any{"promptTokenCount": prompt, "responseTokenCount": out, "totalTokenCount": prompt + out}}) != nil {
			return
		}
	}
}

// LiveFrames returns every client frame the Live sessions received.
func (h *Handler) LiveFrames() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.liveFrames...)
}
