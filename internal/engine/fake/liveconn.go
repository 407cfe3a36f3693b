// A Live API connection as a fake serves it: the upgrade on the
// BidiGenerateContent paths, client frames read with their keys in
// camelCase (whichever spelling the client used), server frames sent as
// binary messages as the real API sends them, function call ids, the end
// of a turn, and closing. Exported for the rule-based test fake too.

package fake

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"time"

	"github.com/adkproxy/adkproxy/internal/wire"
	"github.com/gorilla/websocket"
)

var livePath = regexp.MustCompile(`/ws/google\.(ai\.generativelanguage\.v[0-9a-z]+\.GenerativeService\.BidiGenerateContent(Constrained)?|cloud\.aiplatform\.v[0-9a-z]+\.LlmBidiService/BidiGenerateContent)$`)

// IsLive reports whether r opens a Live API session.
func IsLive(r *http.Request) bool {
	return websocket.IsWebSocketUpgrade(r) && livePath.MatchString(r.URL.Path)
}

var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

// LiveConn is one Live connection being served.
type LiveConn struct {
	// Before, if set, runs before each Send: true means the connection
	// has ended (a fault closed it), and nothing is sent.
	Before func() bool
	conn   *websocket.Conn
	sent   int // server frames sent
	calls  int // function calls numbered
}

// errEnded is Send's error once Before has ended the connection.
var errEnded = errors.New("the Live connection has ended")

// UpgradeLive answers r's upgrade; nil when it failed (the upgrader has
// answered the client).
func UpgradeLive(w http.ResponseWriter, r *http.Request) *LiveConn {
	conn, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return nil
	}
	return &LiveConn{conn: conn}
}

// Serve hands every client frame to each, as sent and with its keys in
// camelCase, until each returns false or the client goes; then it closes
// the connection. A frame that is not JSON ends it with 1003 and a reason
// starting with who.
func (c *LiveConn) Serve(who string, each func(raw, camel []byte) bool) {
	defer c.conn.Close()
	for {
		_, data, err := c.conn.ReadMessage()
		if err != nil {
			return
		}
		var v any
		if json.Unmarshal(data, &v) != nil {
			c.Close(websocket.CloseUnsupportedData, who+": the frame is not JSON")
			return
		}
		camel, _ := json.Marshal(wire.CamelFrame(v))
		if !each(data, camel) {
			return
		}
	}
}

// Send writes v as a server frame, unless Before ends the connection.
func (c *LiveConn) Send(v any) error {
	if c.Before != nil && c.Before() {
		return errEnded
	}
	b, _ := json.Marshal(v)
	return c.SendFrame(b)
}

// SendFrame writes a server frame as it is.
func (c *LiveConn) SendFrame(b []byte) error {
	if err := c.conn.WriteMessage(websocket.BinaryMessage, b); err != nil {
		return err
	}
	c.sent++
	return nil
}

// Sent is how many server frames went out.
func (c *LiveConn) Sent() int { return c.sent }

// SetupComplete answers a setup frame.
func (c *LiveConn) SetupComplete() error {
	return c.Send(map[string]any{"setupComplete": map[string]any{}})
}

// FunctionCall is a toolCall's function call with the connection's next
// id ("call-1", "call-2", …).
func (c *LiveConn) FunctionCall(name string, args any) map[string]any {
	c.calls++
	return map[string]any{"id": fmt.Sprintf("call-%d", c.calls), "name": name, "args": args}
}

// EndTurn ends the model's turn: turnComplete, then its usage, counted in
// words.
func (c *LiveConn) EndTurn(prompt, response int) error {
	if err := c.Send(map[string]any{"serverContent": map[string]any{"turnComplete": true}}); err != nil {
		return err
	}
	return c.Send(map[string]any{"usageMetadata": map[string]any{"promptTokenCount": prompt, "responseTokenCount": response, "totalTokenCount": prompt + response}})
}

// Close sends a close frame; a reason too long for one is cut.
func (c *LiveConn) Close(code int, reason string) {
	c.conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, shortReason(reason)), time.Now().Add(time.Second))
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
