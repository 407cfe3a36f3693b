// The Live API over WebSocket: each connection is a session of its own;
// each user turn (clientContent with turnComplete, or realtimeInput text)
// starts the next script turn, and it and each toolResponse take the
// turn's next item. The connection itself is liveconn.go's.

package fake

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/adkproxy/adkproxy/internal/data/fault"
	"github.com/adkproxy/adkproxy/internal/wire"
	"github.com/gorilla/websocket"
)

// liveConn is one Live session being served.
type liveConn struct {
	*LiveConn
	s       *Server
	session int
	turn    int         // script turn of the current user turn, from 1
	user    string      // its text
	what    *fault.What // a Live fault waiting for its frame count
}

func (s *Server) serveLive(w http.ResponseWriter, r *http.Request) {
	conn := UpgradeLive(w, r)
	if conn == nil {
		return
	}
	s.mu.Lock()
	s.liveIDs++
	c := &liveConn{LiveConn: conn, s: s, session: liveSessions + s.liveIDs}
	s.mu.Unlock()
	conn.Before = c.faultNow
	conn.Serve("adkproxy fake", func(_, camel []byte) bool {
		msg, _ := wire.ReadFrame(camel)
		var user string
		switch {
		case msg.Setup != nil:
			return c.SetupComplete() == nil
		case msg.ClientContent != nil:
			if !msg.ClientContent.TurnComplete {
				return true
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
			return true
		}
		return c.answer(user)
	})
}

// answer sends the turn's next item; false when the connection ends.
func (c *liveConn) answer(user string) bool {
	if user != "" {
		c.user = user
	}
	item, _, err := c.s.take(c.session, max(c.turn, 1), user)
	if err != nil {
		c.Close(websocket.CloseInternalServerErr, err.Error())
		return false
	}
	switch {
	case item.Error != nil:
		c.Close(websocket.CloseInternalServerErr, fmt.Sprintf("%s: %s", item.Error.Status, item.Error.Message))
		return false
	case item.Fault != nil:
		if !item.Fault.Live() {
			c.Close(websocket.CloseInternalServerErr, "adkproxy fake: "+item.Spec)
			return false
		}
		what := *item.Fault
		what.Frames += c.Sent() // counted from here
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
			calls = append(calls, c.FunctionCall(p.Call, p.Args))
		} else {
			text += p.Text
			if c.Send(map[string]any{"serverContent": map[string]any{"modelTurn": map[string]any{"role": "model", "parts": []any{map[string]any{"text": p.Text}}}}}) != nil {
				return false
			}
		}
	}
	if calls != nil {
		return c.Send(map[string]any{"toolCall": map[string]any{"functionCalls": calls}}) == nil
	}
	return c.EndTurn(len(strings.Fields(c.user)), len(strings.Fields(text))) == nil
}

// faultNow ends the connection with the waiting fault once its frames
// have been sent (the connection's Before every frame).
func (c *liveConn) faultNow() bool {
	f := c.what
	if f == nil || c.Sent() < f.Frames {
		return false
	}
	if f.Kind == fault.GoAway {
		c.SendFrame([]byte(`{"goAway": {"timeLeft": "0s"}}`))
		c.Close(websocket.CloseNormalClosure, "adkproxy fake: goAway")
		return true
	}
	c.Close(f.Code, fmt.Sprintf("adkproxy fake: close %d", f.Code))
	return true
}
