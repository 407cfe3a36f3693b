package conversation

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
)

// TestIndexFindsWhatAScanFinds places random calls (few agents, user
// texts and histories, so that sessions look alike; steps that fail and
// are retried; delegated tasks) and checks every placement against a scan
// of all sessions in file order, the organizer's rules read literally.
func TestIndexFindsWhatAScanFinds(t *testing.T) {
	for seed := range uint64(50) {
		rng := rand.New(rand.NewPCG(seed, 7))
		o := NewOrganizer()
		var unfinished []Token
		for i := range 400 {
			c := randomCall(rng)
			wantInv, wantName := scanFind(o, c)
			o.mu.Lock()
			gotInv, gotName := o.find(c, "", c.Slot())
			o.mu.Unlock()
			if gotInv != wantInv || gotName != wantName {
				t.Fatalf("seed %d call %d: index found %s %q; a scan finds %s %q", seed, i, where(gotInv), gotName, where(wantInv), wantName)
			}
			if gotInv == nil && len(c.EarlierUserTexts) > 0 && c.UserTurn >= 0 {
				o.mu.Lock()
				got, want := o.index.following(c.EarlierUserTexts), scanFollowing(o, c.EarlierUserTexts)
				o.mu.Unlock()
				if got != want {
					t.Fatalf("seed %d call %d: a new turn after %q: index found session %v, a scan %v", seed, i, c.EarlierUserTexts, got, want)
				}
			}
			if gotInv != nil && gotName != "" {
				// find consumed the pending call; give it back, Place consumes it again.
				o.index.addPending(gotInv, []FunctionCall{{Name: gotName, Args: c.TaskArgs}})
			}
			_, token := o.Place(c, "")
			if rng.IntN(4) == 0 {
				args := fmt.Sprintf(`{"task":"t%d"}`, rng.IntN(3))
				o.Calls(token, []FunctionCall{{Name: "helper", Args: args}})
			}
			// Steps finish out of order, some failing, as parallel
			// requests do.
			unfinished = append(unfinished, token)
			for len(unfinished) > 0 && rng.IntN(2) == 0 {
				k := rng.IntN(len(unfinished))
				status := 200
				if rng.IntN(3) == 0 {
					status = 429
				}
				o.Finish(unfinished[k], &cassettes.Response{Status: status, End: cassettes.EndComplete})
				unfinished = slices.Delete(unfinished, k, k+1)
			}
		}
	}
}

func randomCall(rng *rand.Rand) *Call {
	users := []string{"hi", "again", "bye"}
	c := &Call{AgentKey: fmt.Sprintf("agent%d", rng.IntN(3)), Step: rng.IntN(3), UserTurn: 0}
	c.UserText = users[rng.IntN(len(users))]
	for range rng.IntN(3) {
		c.EarlierUserTexts = append(c.EarlierUserTexts, users[rng.IntN(len(users))])
	}
	c.Key = c.AgentKey + "|" + strings.Join(append([]string{c.UserText}, c.EarlierUserTexts...), "|")
	if rng.IntN(4) == 0 {
		c.TaskArgs = fmt.Sprintf(`{"task":"t%d"}`, rng.IntN(3))
	}
	if rng.IntN(10) == 0 {
		c.UserTurn = -1
	}
	return c
}

// scanFind is Organizer.find as a scan of every session (rules 1 to 3),
// without consuming a pending call.
func scanFind(o *Organizer, c *Call) (*orgInvocation, string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	slot := c.Slot()
	for _, s := range o.sessions {
		for _, inv := range s.invocations {
			if holds(inv, c.Key) && inv.taken[slot] == 0 {
				return inv, ""
			}
		}
	}
	if c.TaskArgs != "" {
		for _, s := range o.sessions {
			for _, inv := range s.invocations {
				for _, p := range inv.pending {
					if p.Args == c.TaskArgs {
						return inv, p.Name
					}
				}
			}
		}
	}
	if c.UserTurn < 0 {
		return nil, ""
	}
	for _, s := range o.sessions {
		last := s.last()
		if last.user == c.UserText && slices.Equal(last.earlier, c.EarlierUserTexts) && last.agents[c.AgentKey] == 0 {
			return last, ""
		}
	}
	return nil, ""
}

func holds(inv *orgInvocation, key string) bool {
	for slot, n := range inv.taken {
		if n > 0 && strings.HasPrefix(slot, key+"/") {
			return true
		}
	}
	return false
}

// scanFollowing is rule 4's session, by a scan.
func scanFollowing(o *Organizer, earlier []string) *orgSession {
	for _, s := range o.sessions {
		if len(s.invocations) != len(earlier) {
			continue
		}
		same := true
		for i, inv := range s.invocations {
			same = same && inv.user == earlier[i]
		}
		if same {
			return s
		}
	}
	return nil
}

func where(inv *orgInvocation) string {
	if inv == nil {
		return "nothing"
	}
	return fmt.Sprintf("session %d invocation %d", inv.session.id, inv.id)
}
