// Running a turn: POST {prefix}/run_sse and reading its event stream.

package adkapi

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/internal/base/outbound"
)

// RunRequest is one turn. Its JSON is exactly the fields every ADK server
// accepts: ADK Go rejects a body with any other field.
type RunRequest struct {
	AppName    string         `json:"appName"`
	UserID     string         `json:"userId"`
	SessionID  string         `json:"sessionId"`
	NewMessage *genai.Content `json:"newMessage"`
	// Streaming asks for ADK's SSE streaming mode: the agent calls the
	// model's streaming method and partial events come before each whole
	// one (only whole ones are kept in the session). Usually false.
	Streaming  bool           `json:"streaming"`
	StateDelta map[string]any `json:"stateDelta,omitempty"`
}

// StreamError is an error the server reported inside the event stream
// (ADK servers answer 200 and then send data: {"error": "…"} when the
// agent fails mid-turn). Events holds those received before it.
type StreamError struct {
	URL     string
	Message string
	Events  []Event
}

func (e *StreamError) Error() string {
	return fmt.Sprintf("adkapi: POST %s: the server reported an error after %d event(s): %s", e.URL, len(e.Events), e.Message)
}

// maxEventBytes bounds one SSE line; an event with inline data can be big.
const maxEventBytes = 64 << 20

// Run posts one turn to {prefix}/run_sse and returns its events in the
// order the server sent them.
func (c *Client) Run(ctx context.Context, r RunRequest) ([]Event, error) {
	if r.NewMessage == nil {
		return nil, errors.New("adkapi: Run: the turn has no newMessage")
	}
	u := c.url("run_sse")
	resp, err := c.do(ctx, http.MethodPost, u, r)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	events, err := readEvents(resp.Body)
	var se *StreamError
	switch {
	case errors.As(err, &se):
		se.URL = u
		return events, se
	case err != nil:
		return events, fmt.Errorf("adkapi: POST %s: %w", u, err)
	}
	return events, nil
}

// readEvents reads an SSE body: each event's data lines joined by "\n"
// (the SSE rules) are one JSON event. Comments, other fields and empty
// data are skipped.
func readEvents(body io.Reader) ([]Event, error) {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 0, 64<<10), maxEventBytes)
	var (
		events []Event
		data   [][]byte
		line   int
	)
	flush := func() error {
		if len(data) == 0 {
			return nil
		}
		payload := bytes.Join(data, []byte("\n"))
		data = data[:0]
		if len(bytes.TrimSpace(payload)) == 0 {
			return nil
		}
		if msg, ok := streamError(payload); ok {
			return &StreamError{Message: outbound.Printable(msg), Events: events}
		}
		var ev Event
		if err := json.Unmarshal(payload, &ev); err != nil {
			return fmt.Errorf("%w: event ending at line %d of the stream is not an ADK event (%v): %s", ErrBadResponse, line, err, quote(payload))
		}
		events = append(events, ev)
		return nil
	}
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if len(b) == 0 {
			if err := flush(); err != nil {
				return events, err
			}
			continue
		}
		field, value, _ := bytes.Cut(b, []byte(":"))
		if string(field) != "data" {
			continue // a comment (":…") or a field ADK does not send
		}
		value = bytes.TrimPrefix(value, []byte(" "))
		data = append(data, append([]byte(nil), value...))
	}
	if err := sc.Err(); err != nil {
		return events, fmt.Errorf("reading the event stream after %d event(s): %w", len(events), err)
	}
	return events, flush()
}

// streamError recognises the {"error": "…"} object ADK servers send in
// place of an event when a turn fails.
func streamError(payload []byte) (string, bool) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(payload, &obj) != nil || len(obj) != 1 {
		return "", false
	}
	raw, ok := obj["error"]
	if !ok {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	return string(raw), true
}
