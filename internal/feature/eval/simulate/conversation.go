// One simulated conversation: the session, the starting prompt, the
// simulated user's turns and the agent's answers, until a stop condition.

package simulate

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/internal/base/adkapi"
	"github.com/adkproxy/adkproxy/internal/base/samplename"
	"github.com/adkproxy/adkproxy/internal/data/scenarios"
	"github.com/adkproxy/adkproxy/matcher"
	"github.com/adkproxy/adkproxy/scoring"
)

// Status says why a conversation ended: ADK's status values, and Failed
// for a conversation that could not go on (Transcript.Failure says why).
type Status string

const (
	StatusTurnLimit Status = "turn_limit_reached"
	StatusStop      Status = "stop_signal_detected"
	// StatusNoMessage: the simulated user gave no reply (empty or
	// blocked); ADK defines it, adkproxy returns it, and the scenario fails.
	StatusNoMessage Status = "no_message_generated"
	StatusFailed    Status = "failed"
)

// Case is one conversation to play: a scenario, or a static conversation
// (an eval case's user turns, played in order).
type Case struct {
	ID       string
	Scenario *scenarios.Scenario // nil for a static conversation
	Static   []*genai.Content    // the user turns of a static conversation
	Input    scenarios.SessionInput
	Rubrics  []byte // the eval case's rubrics (JSON), kept for the eval set
	// Run is the case's run (from 1) when each case is played several
	// times (simulate --num-runs); 0 otherwise.
	Run int
	// Sample is the sample (from 1) the case is played in (simulate
	// --samples K, RunSamples); 0 otherwise.
	Sample int
}

// InSample is the case played in sample n (from 1).
func (c *Case) InSample(n int) *Case {
	s := *c
	s.Sample = n
	return &s
}

// Nth is run k (from 1) of the case, for numruns.Repeat.
func (c *Case) Nth(k int) *Case {
	r := *c
	r.Run = k
	return &r
}

// Key names one run of the case where runs must not share a name: its
// session, its simulated user's cassette and turn keys, its timings and
// session files. The case's id for one run (or the first), else
// "<id>.run-<N>"; in sample S that name's sample name, "<id>@S"
// (samplename), so that sample S's user turns are a cassette of their own.
func (c *Case) Key() string {
	key := c.ID
	if c.Run > 1 {
		key += ".run-" + strconv.Itoa(c.Run)
	}
	return samplename.Name(key, c.Sample)
}

// Turn is one user turn and the agent's events in answer.
type Turn struct {
	User    *genai.Content
	Events  []adkapi.Event
	Elapsed time.Duration // the agent's answer, as run_sse took it
	// Recorded is the agent's answer as the recording run measured it
	// (UseRecordedTimings), 0 when not known; Duration picks.
	Recorded time.Duration
	// UserElapsed is what writing the user's message took: rendering the
	// prompt and the simulated user's model call (0 for the starting
	// prompt and static turns) — the simulator's own cost per turn.
	UserElapsed time.Duration
}

// Divergence is a replayed user turn whose request differs from its
// recording: the agent answered differently before it.
type Divergence struct {
	Scenario string
	Turn     int
	Diffs    []matcher.Difference
}

func (d Divergence) String() string {
	return fmt.Sprintf("scenario %s diverged at turn %d:%s", d.Scenario, d.Turn, matcher.FormatDiffs(d.Diffs, 12))
}

// Transcript is a played conversation.
type Transcript struct {
	Case      *Case
	SessionID string
	AgentName string
	Turns     []Turn
	Status    Status
	Failure   string
	// Divergences are the replayed turns that differed from the recording.
	Divergences []Divergence
	// Session is the session as the server returned it at the end.
	Session *adkapi.Session
	// UserUsage is what the simulated user's calls cost.
	UserUsage scoring.Usage
	UserModel string
	Elapsed   time.Duration
	// Replayed says the turns carry the recording's durations (Recorded).
	Replayed bool
}

// Failed says whether the scenario failed.
func (t *Transcript) Failed() bool { return t.Failure != "" }

// player plays one case.
type player struct {
	r    *Runner
	c    *Case
	t    *Transcript
	user *prompter
	// history is what the simulated user has read: user events and the
	// agent's, in order.
	history history
	// onTurn reports progress: the number of user turns sent.
	onTurn func(int)
}

func (p *player) fail(status Status, err error) {
	p.t.Status, p.t.Failure = status, err.Error()
}

// play runs the conversation to its end. Failures end up in the transcript.
func (p *player) play(ctx context.Context) {
	start := time.Now()
	defer func() { p.t.Elapsed = time.Since(start) }()
	in := p.c.Input
	if p.c.Scenario != nil {
		var persona map[string]any
		if sp := p.c.Scenario.Persona; sp != nil {
			persona = sp.TemplateVar()
		}
		var err error
		if p.user, err = newPrompter(&p.r.templates, p.r.cfg.CustomInstructions, p.r.cfg.File, persona, p.c.Scenario.ConversationPlan); err != nil {
			p.fail(StatusFailed, err)
			return
		}
	}
	// A session named after the case gets the same id in every run; a
	// server that refuses the name (it has the session from an earlier
	// run, or names sessions itself) names it.
	sess, err := p.r.server.CreateSessionWithID(ctx, p.r.app, in.UserID, SessionID(p.c.Key()), in.State)
	var refused *adkapi.HTTPError
	if errors.As(err, &refused) && refused.Status/100 == 4 {
		sess, err = p.r.server.CreateSession(ctx, p.r.app, in.UserID, in.State)
	}
	if err != nil {
		p.fail(StatusFailed, err)
		return
	}
	p.t.SessionID = sess.ID
	for n := 1; ; n++ {
		userStart := time.Now()
		msg, status, err := p.next(ctx, n)
		userElapsed := time.Since(userStart)
		if err != nil {
			p.fail(status, err)
			break
		}
		if msg == nil {
			p.t.Status = status
			break
		}
		if err := p.send(ctx, sess.ID, msg, userElapsed); err != nil {
			p.fail(StatusFailed, fmt.Errorf("turn %d: %w", n, err))
			break
		}
		if err := p.confirm(ctx, sess.ID, n); err != nil {
			p.fail(StatusFailed, fmt.Errorf("turn %d: %w", n, err))
			break
		}
		p.onTurn(n)
	}
	if s, err := p.r.server.GetSession(ctx, p.r.app, in.UserID, sess.ID); err == nil {
		p.t.Session = s
	} else if p.t.Failure == "" {
		p.fail(StatusFailed, err)
	}
}

// next is the user's turn n (from 1): its message, or nil and the status
// that ends the conversation.
func (p *player) next(ctx context.Context, n int) (*genai.Content, Status, error) {
	if p.c.Scenario == nil {
		if n > len(p.c.Static) {
			return nil, StatusStop, nil // ADK's static simulator: exhausted is a stop
		}
		return p.c.Static[n-1], "", nil
	}
	if limit := p.r.cfg.MaxAllowedInvocations; limit >= 0 && n > limit {
		return nil, StatusTurnLimit, nil
	}
	var text string
	if n == 1 {
		text = p.c.Scenario.StartingPrompt
		if strings.TrimSpace(text) == "" {
			return nil, StatusFailed, errors.New("the starting prompt is empty")
		}
	} else {
		prompt, err := p.user.render(p.history.String())
		if err != nil {
			return nil, StatusFailed, err
		}
		count := p.r.missCount()
		var before []matcher.Outcome
		if count != 0 {
			before = p.r.missesOf(p.c.Key())
		}
		reply, usage, err := p.r.model.reply(ctx, p.c.Key(), n, prompt)
		addUsage(&p.t.UserUsage, usage)
		if count < 0 || p.r.missCount() > count {
			if d := p.r.missesOf(p.c.Key()); len(d) > len(before) {
				p.t.Divergences = append(p.t.Divergences, Divergence{Scenario: p.c.Key(), Turn: n, Diffs: d[len(before)].Diffs})
			}
		}
		if err != nil {
			if errors.Is(err, ErrNoReply) {
				return nil, StatusNoMessage, err
			}
			return nil, StatusFailed, err
		}
		text = reply
	}
	if strings.Contains(strings.ToLower(text), StopSignal) {
		return nil, StatusStop, nil // the reply is discarded, surrounding text too
	}
	return &genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{{Text: text}}}, "", nil
}

// send runs the agent on msg and adds the turn to the history.
func (p *player) send(ctx context.Context, session string, msg *genai.Content, userElapsed time.Duration) error {
	start := time.Now()
	events, err := p.r.server.Run(ctx, adkapi.RunRequest{AppName: p.r.app, UserID: p.c.Input.UserID, SessionID: session, NewMessage: msg})
	turn := Turn{User: msg, Events: events, Elapsed: time.Since(start), UserElapsed: userElapsed}
	p.t.Turns = append(p.t.Turns, turn)
	if err != nil {
		return err
	}
	p.heard(msg, events)
	for _, ev := range events {
		if p.t.AgentName == "" && ev.Author != "user" {
			p.t.AgentName = ev.Author
		}
	}
	return nil
}

// heard adds the user's message msg and the agent's events in answer to
// the history, the user's event first (as ADK's driver inserts it, under
// the agent's invocation id). A message the agent did not answer leaves
// no trace, as in ADK.
func (p *player) heard(msg *genai.Content, events []adkapi.Event) {
	if len(events) == 0 {
		return
	}
	p.history.add(adkapi.Event{Author: "user", InvocationID: events[0].InvocationID, Content: msg})
	for _, ev := range events {
		if !ev.Partial {
			p.history.add(ev)
		}
	}
}

// SessionID is the session a case's conversation runs in: named after
// the case, as ADK's "___eval___session___" sessions are, so that a re-run
// gets the same id.
func SessionID(caseID string) string { return "___eval___session___" + caseID }

func addUsage(to *scoring.Usage, u scoring.Usage) {
	to.Prompt += u.Prompt
	to.Candidates += u.Candidates
	to.Cached += u.Cached
	to.Thoughts += u.Thoughts
	to.ToolUse += u.ToolUse
	to.Total += u.Total
}
