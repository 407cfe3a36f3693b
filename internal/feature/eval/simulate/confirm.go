// The simulated user answering ADK's tool confirmation requests
// (adk_request_confirmation): its model decides from the plan, the answer
// goes back in the same turn.

package simulate

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/internal/base/adkapi"
)

// maxConfirmations bounds the confirmation rounds of one turn.
const maxConfirmations = 10

// ConfirmKey names the simulated user's call deciding confirmation round
// k of turn n: "<scenario id>/turn-<n>/confirm-<k>".
func ConfirmKey(scenario string, turn, round int) string {
	return fmt.Sprintf("%s/confirm-%d", TurnKey(scenario, turn), round)
}

// confirm answers the tool confirmation requests of turn n's answer, as
// long as the agent makes them: the simulated user's model is asked, with
// the plan, whether to approve each request (one call per round, its reply
// approving when it says APPROVE and not REFUSE), and the answer is sent
// as a function response in the same turn, whose events it extends. A
// static conversation has no plan to decide by: its requests stay
// unanswered, as ADK's static simulator leaves them.
func (p *player) confirm(ctx context.Context, session string, n int) error {
	if p.c.Scenario == nil || p.r.model == nil || len(p.t.Turns) == 0 {
		return nil
	}
	turn := &p.t.Turns[len(p.t.Turns)-1]
	events := turn.Events
	for round := 1; ; round++ {
		calls := adkapi.ConfirmationRequests(events)
		if len(calls) == 0 {
			return nil
		}
		if round > maxConfirmations {
			return fmt.Errorf("the agent still asks for confirmation after %d answers", maxConfirmations)
		}
		var asks []string
		for _, fc := range calls {
			name, args, _ := confirmationAsk(fc)
			b, _ := json.Marshal(args)
			asks = append(asks, fmt.Sprintf("%s(%s)", name, b))
		}
		prompt := "You are the user in a conversation with an AI agent, following this plan:\n" +
			p.c.Scenario.ConversationPlan + "\n\nThe agent asks you to confirm before it runs a tool. The request:\n" +
			strings.Join(asks, "\n") + "\n\nDecide as your plan says. Answer with exactly one word: APPROVE or REFUSE."
		start := time.Now()
		reply, usage, err := p.r.model.replyAs(ctx, p.c.Key(), ConfirmKey(p.c.Key(), n, round), n, prompt)
		addUsage(&p.t.UserUsage, usage)
		if err != nil {
			return fmt.Errorf("the confirmation request: %w", err)
		}
		up := strings.ToUpper(reply)
		approve := strings.Contains(up, "APPROVE") && !strings.Contains(up, "REFUSE")
		if err := p.r.report.Report(ctx, calls, approve, false, nil); err != nil {
			return err
		}
		msg := adkapi.ConfirmationAnswer(calls, approve, false)
		turn.UserElapsed += time.Since(start)
		agentStart := time.Now()
		events, err = p.r.server.Run(ctx, adkapi.RunRequest{AppName: p.r.app, UserID: p.c.Input.UserID, SessionID: session, NewMessage: msg})
		turn.Elapsed += time.Since(agentStart)
		if err != nil {
			return fmt.Errorf("answering the confirmation request: %w", err)
		}
		turn.Events = append(turn.Events, events...)
		p.heard(msg, events)
	}
}

// confirmationAsk reads an adk_request_confirmation call as the tool call
// it asks about: the tool's name and arguments, without the ids that
// differ every run (so prompts and transcripts replay byte for byte).
func confirmationAsk(fc *genai.FunctionCall) (name string, args map[string]any, ok bool) {
	name, args, _, ok = adkapi.ConfirmedCall(fc)
	return name, args, ok
}
