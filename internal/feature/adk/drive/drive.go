// Driving: one session, turn by turn, through the ADK API client.

package drive

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/internal/base/adkapi"
	"github.com/adkproxy/adkproxy/internal/data/conformance"
)

// ErrUnansweredCall is wrapped when a turn's function_response names a
// function the server has not called earlier in the session.
var ErrUnansweredCall = errors.New("no earlier call of that function")

// Driver plays conversations as one user of one app.
type Driver struct {
	Client *adkapi.Client
	App    string
	User   string
	// Streaming runs the turns in ADK's SSE streaming mode (the model's
	// streaming method), as the corpus's -sse cases were recorded.
	Streaming bool
	// Confirm, when set, answers every tool confirmation request
	// (adk_request_confirmation) of a turn with its decision, right after
	// the turn, until the agent asks no more (at most maxConfirmations
	// times a turn); nil leaves them unanswered.
	Confirm *Confirmation
	// Report, when set, tells the adkproxy recording the agent each
	// answer before the agent gets it (ADK never sends it to the model).
	Report *adkapi.ConfirmationReporter
}

// maxConfirmations bounds the confirmation rounds of one turn, so an agent
// that keeps asking cannot hold a run forever.
const maxConfirmations = 10

// TurnError is a turn the server did not complete.
type TurnError struct {
	// Turn is the turn's index, from 0.
	Turn  int
	Where string
	Err   error
}

func (e *TurnError) Error() string {
	return fmt.Sprintf("turn %d (%s): %v", e.Turn+1, e.Where, e.Err)
}
func (e *TurnError) Unwrap() error { return e.Err }

// Drive creates a session with the conversation's initial state, posts
// every turn and returns the session as the server then stores it. When a
// turn fails, it still fetches the session (what the server kept is not
// lost) and returns it with a *TurnError; when even the session cannot be
// created or fetched, the session is nil.
func (d *Driver) Drive(ctx context.Context, c Conversation) (*adkapi.Session, error) {
	user := d.User
	if c.UserID != "" {
		user = c.UserID
	}
	s, err := d.Client.CreateSession(ctx, d.App, user, c.InitialState)
	if err != nil {
		return nil, fmt.Errorf("%s: creating the session: %w", c.Name, err)
	}
	calls := map[string]string{} // function name → id of the server's latest call
	var turnErr error
	for i, t := range c.Turns {
		msg := cloneContent(t.Content)
		if missing := conformance.PatchFunctionResponseIDs(msg, calls); len(missing) > 0 {
			turnErr = &TurnError{Turn: i, Where: t.Where, Err: fmt.Errorf("function_response %s: %w in the session", strings.Join(missing, ", "), ErrUnansweredCall)}
			break
		}
		events, err := d.Client.Run(ctx, adkapi.RunRequest{AppName: d.App, UserID: user, SessionID: s.ID, NewMessage: msg, StateDelta: t.StateDelta, Streaming: d.Streaming})
		for _, ev := range events {
			for _, fc := range ev.FunctionCalls() {
				calls[fc.Name] = fc.ID
			}
		}
		if err != nil {
			turnErr = &TurnError{Turn: i, Where: t.Where, Err: err}
			break
		}
		if err := d.confirm(ctx, user, s.ID, events); err != nil {
			turnErr = &TurnError{Turn: i, Where: t.Where, Err: err}
			break
		}
	}
	got, err := d.Client.GetSession(ctx, d.App, user, s.ID)
	if err != nil {
		err = fmt.Errorf("%s: reading the session back: %w", c.Name, err)
		if turnErr != nil {
			return nil, errors.Join(turnErr, err)
		}
		return nil, err
	}
	return got, turnErr
}

// cloneContent copies a turn's content, so patching ids leaves the
// conversation as it was read.
func cloneContent(c *genai.Content) *genai.Content {
	b, err := json.Marshal(c)
	if err != nil {
		panic(err) // genai.Content always marshals
	}
	var out genai.Content
	if err := json.Unmarshal(b, &out); err != nil {
		panic(err)
	}
	return &out
}

// confirm answers the turn's tool confirmation requests (Driver.Confirm).
func (d *Driver) confirm(ctx context.Context, user, session string, events []adkapi.Event) error {
	if d.Confirm == nil {
		return nil
	}
	for round := 0; ; round++ {
		calls := adkapi.ConfirmationRequests(events)
		if len(calls) == 0 {
			return nil
		}
		if round == maxConfirmations {
			return fmt.Errorf("the agent still asks for confirmation after %d answers", maxConfirmations)
		}
		var err error
		if err := d.Report.Report(ctx, calls, d.Confirm.Approve, d.Confirm.AsJSONString, d.Confirm.Payload); err != nil {
			return err
		}
		events, err = d.Client.Run(ctx, adkapi.RunRequest{AppName: d.App, UserID: user, SessionID: session, NewMessage: adkapi.ConfirmationAnswerWithPayload(calls, d.Confirm.Approve, d.Confirm.AsJSONString, d.Confirm.Payload), Streaming: d.Streaming})
		if err != nil {
			return fmt.Errorf("answering the tool confirmation request: %w", err)
		}
	}
}
