// The Live API over WebSocket: each connection is a session of its own;
// each user turn (clientContent with turnComplete, or realtimeInput text)
// starts the next script turn, and it and each toolResponse take the
// turn's next item. Server frames go out as binary messages, as the real
// API sends them; client frames are read in camelCase or snake_case.

package fake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/adkproxy/adkproxy/internal/fault"
	"github.com/adkproxy/adkproxy/matcher"
	"github.com/gorilla/websocket"
)

var livePath = regexp.MustCompile(`/ws/google\.(ai\.generativelanguage\.v[0-9a-z]+\.GenerativeService\.BidiGenerateContent(Constrained)?|cloud\.aiplatform\.v[0-9a-z]+\.LlmBidiService/BidiGenerateContent)$`)

func isLive(r *http.Request) bool {
	return websocket.IsWebSocketUpgrade(r) && livePath.MatchString(r.URL.Path)
}

var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

type liveMessage struct {
	Setup         *struct{} `json:"setup"`
	ClientContent *struct {
		Turns []struct {
			Parts []struct {
				Text string `json:"text"`
			} `json:"parts"`
		} `json:"turns"`
		TurnComplete bool `json:"turnComplete"`
	} `json:"clientContent"`
	RealtimeInput *struct {
		Text string `json:"text"`
	} `json:"realtimeInput"`
	ToolResponse *struct{} `json:"toolResponse"`
}

// liveConn is one Live session being served.
type liveConn struct {
	s       *Server
	conn    *websocket.Conn
	session int
	turn    int    // script turn of the current user turn, from 1
	user    string // its text
	sent    int    // server frames sent
	calls   int
	what    *fault.What // a Live fault waiting for its frame count
}

func (s *Server) serveLive(w http.ResponseWriter, r *http.Request) {
	conn, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	defer conn.Close()
	s.mu.Lock()
	s.liveIDs++
	c := &liveConn{s: s, conn: conn, session: liveSessions + s.liveIDs}
	s.mu.Unlock()
	for {
		_, data, err := conn.ReadMessage()
		if err != nil {
			return
		}
		var raw any
		if json.Unmarshal(data, &raw) != nil {
			c.close(websocket.CloseUnsupportedData, "adkproxy fake: the frame is not JSON")
			return
		}
		camel, _ := json.Marshal(matcher.CamelFrame(raw))
		var msg liveMessage
		json.Unmarshal(camel, &msg)
		var user string
		switch {
		case msg.Setup != nil:
			if !c.send(map[string]any{"setupComplete": map[string]any{}}) {
				return
			}
			continue
		case msg.ClientContent != nil:
			if !msg.ClientContent.TurnComplete {
				continue
			}
			for _, t := range msg.ClientContent.Turns {
				for _, p := range t.Parts {
					user += p.Text
				}
			}
			c.turn++
		case msg.RealtimeInput != nil && msg.RealtimeInput.Text != "":
			user = msg.RealtimeInput.Text
			c.turn++
		case msg.ToolResponse != nil:
			if c.turn == 0 {
				c.turn = 1
			}
		default:
			continue
		}
		if !c.answer(user) {
			return
		}
	}
}

// answer sends the turn's next item; false when the connection ends.
func (c *liveConn) answer(user string) bool {
	if user != "" {
		c.user = user
	}
	item, _, err := c.s.take(c.session, max(c.turn, 1), user)
	if err != nil {
		c.close(websocket.CloseInternalServerErr, shortReason(err.Error()))
		return false
	}
	switch {
	case item.Error != nil:
		c.close(websocket.CloseInternalServerErr, shortReason(fmt.Sprintf("%s: %s", item.Error.Status, item.Error.Message)))
		return false
	case item.Fault != nil:
		if !item.Fault.Live() {
			c.close(websocket.CloseInternalServerErr, shortReason("adkproxy fake: "+item.Spec))
			return false
		}
		what := *item.Fault
		what.Frames += c.sent // counted from here
		c.what = &what
		if c.faultNow() {
			return false
		}
		// The fault waits for its frames: the turn's next answer goes on.
		return c.answer(user)
	}
	var calls []any
	var text string
	for _, p := range item.Parts {
		if p.Call != "" {
			c.calls++
			calls = append(calls, map[string]any{"id": fmt.Sprintf("call-%d", c.calls), "name": p.Call, "args": p.Args})
		} else {
			text += p.Text
			if !c.send(map[string]any{"serverContent": map[string]any{"modelTurn": map[string]any{"role": "model", "parts": []any{map[string]any{"text": p.Text}}}}}) {
				return false
			}
		}
	}
	if calls != nil {
		return c.send(map[string]any{"toolCall": map[string]any{"functionCalls": calls}})
	}
	n := len(strings.Fields(text))
	return c.send(map[string]any{"serverContent": map[string]any{"turnComplete": true}}) &&
		c.send(map[string]any{"usageMetadata": map[string]any{"promptTokenCount": len(strings.Fields(c.user)), "responseTokenCount": n, "totalTokenCount": len(strings.Fields(c.user)) + n}})
}

// send writes a server frame, unless a waiting fault ends the connection
// first; false when the connection is over.
func (c *liveConn) send(v any) bool {
	if c.faultNow() {
		return false
	}
	b, _ := json.Marshal(v)
	if c.conn.WriteMessage(websocket.BinaryMessage, b) != nil {
		return false
	}
	c.sent++
	return true
}

// faultNow ends the connection with the waiting fault once its frames
// have been sent.
func (c *liveConn) faultNow() bool {
	f := c.what
	if f == nil || c.sent < f.Frames {
		return false
	}
	if f.Kind == fault.GoAway {
		c.conn.WriteMessage(websocket.BinaryMessage, []byte(`{"goAway": {"timeLeft": "0s"}}`))
		c.close(websocket.CloseNormalClosure, "adkproxy fake: goAway")
		return true
	}
	c.close(f.Code, fmt.Sprintf("adkproxy fake: close %d", f.Code))
	return true
}

func (c *liveConn) close(code int, reason string) {
	c.conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(time.Second))
}

// shortReason fits a close reason in the 123 bytes a close frame allows.
func shortReason(s string) string {
	if len(s) <= 123 {
		return s
	}
	cut := 120
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "..."
}
