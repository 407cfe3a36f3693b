// How model calls are placed in sessions and invocations, live as they
// arrive or afterwards for a version 1 file.

package conversation

import (
	"slices"
	"sync"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/matcher"
)

// Organizer groups a cassette's model calls into sessions and invocations
// as they arrive, using only what is on the wire:
//
//  1. A call whose per-agent key (agent + history up to the user turn) is
//     already in an invocation continues that invocation: the agent's
//     next step after a tool result.
//     A call that answers a tool (AnswersTool) in a step its agent's
//     invocations have all taken already is a user answering a
//     long-running tool in a later turn: ADK runs that answer as an
//     invocation of its own, with no user text, and leaves the pending
//     step out of the history, so the call looks like an earlier step. It
//     opens that invocation in the session of the latest invocation
//     holding its key, which hands the key over to it.
//  2. A call whose only user message is JSON equal to the arguments of a
//     pending function call is a delegated task (ADK's task and
//     single-turn agents): it joins the invocation that made the call and
//     takes the call's name as its agent name. So does a call of agent N
//     whose only user message is the text T of a pending call N(request=T):
//     an agent used as a tool (ADK's AgentTool).
//  3. A call with the same user text and the same earlier user turns as a
//     session's latest invocation, from an agent that has no step in it
//     yet, joins it: a sub-agent reached by transfer sees the user's turn
//     too. (The same agent with another history is another conversation
//     that happens to say the same words.)
//  4. Otherwise the call starts a new invocation, in the session whose
//     invocations' user texts equal the call's earlier user turns, or in a
//     new session.
//
// A call's step is its number in its invocation, from 0 in the order the
// invocation's calls were placed, across agents. A step counts as taken
// only once its response succeeded (see Finish), so a retry after a 429
// or a broken body joins the same invocation and keeps the step's number. Identical
// parallel sessions fill the earliest free slot, first come first served.
// Safe for concurrent use.
type Organizer struct {
	mu       sync.Mutex
	sessions []*orgSession
	tagged   map[string]*orgInvocation
	names    map[string]string // AgentKey -> agent name
	unnamed  map[string]int    // model -> the highest number of an agent named after it (names.go)
	tools    toolFiling
	index    openIndex // where rules 1 to 4 look (index.go)
	chains   chains    // Interactions API chains (interactions.go)
}

type orgSession struct {
	id          int
	invocations []*orgInvocation
	seq         textsKey // its invocations' user texts, as seqKey
}

type orgInvocation struct {
	session *orgSession
	id      int
	tag     string
	user    string
	earlier []string
	turn    textsKey       // user and earlier, as turnKey (index.go)
	taken   map[string]int // Call.Slot -> steps holding it
	agents  map[string]int // AgentKey -> steps it holds here
	keys    map[string]int // Call.Key -> steps it holds here
	// handedOver are the keys a later invocation resumed (rule 1): this
	// one takes no more steps of them.
	handedOver map[string]bool
	pending    []FunctionCall
	// nextStep numbers the invocation's steps as people read them: from 0,
	// one after another across its agents, in the order they were placed.
	nextStep int
	// retried are the numbers of failed steps by Call.Slot: their retry
	// takes the same number. Made at the first failure (retry).
	retried map[string]int
}

// stepNumber gives a call placed at slot its step number: a failed step's
// number to its retry, else the next one.
func (inv *orgInvocation) stepNumber(slot string) int {
	if n, ok := inv.retried[slot]; ok {
		delete(inv.retried, slot)
		return n
	}
	inv.nextStep++
	return inv.nextStep - 1
}

// retry notes that the step numbered step at slot failed: its retry
// takes the number.
func (inv *orgInvocation) retry(slot string, step int) {
	if inv.retried == nil {
		inv.retried = map[string]int{}
	}
	inv.retried[slot] = step
}

// restoreStep counts a step read back from a cassette, failed or not.
func (inv *orgInvocation) restoreStep(slot string, step int, failed bool) {
	inv.nextStep = max(inv.nextStep, step+1)
	if failed {
		inv.retry(slot, step)
	} else {
		delete(inv.retried, slot)
	}
}

// Token identifies a placed call, to report its outcome.
type Token struct {
	inv   *orgInvocation
	slot  string
	agent string
	call  *Call
	place cassettes.Place
}

// NewOrganizer returns an empty organizer.
func NewOrganizer() *Organizer {
	return &Organizer{tagged: map[string]*orgInvocation{}, names: map[string]string{}, unnamed: map[string]int{}, index: newOpenIndex()}
}

// Place assigns a call to its invocation. tag is the client's
// X-Adkproxy-Invocation header, or "".
func (o *Organizer) Place(c *Call, tag string) (cassettes.Place, Token) {
	o.mu.Lock()
	defer o.mu.Unlock()
	slot := c.Slot()
	inv, taskName := o.find(c, tag, slot)
	if inv == nil {
		inv = o.start(c, tag)
	}
	o.index.take(inv, c.Key, slot, c.AgentKey)
	if c.AgentName != "" {
		o.names[c.AgentKey] = c.AgentName
	} else if taskName != "" && o.names[c.AgentKey] == "" {
		o.names[c.AgentKey] = taskName
	}
	place := cassettes.Place{Session: inv.session.id, Invocation: inv.id, Tag: inv.tag, User: inv.user,
		Step: inv.stepNumber(slot), Agent: o.nameOf(c)}
	o.tools.placed(inv, c, place)
	return place, Token{inv: inv, slot: slot, agent: c.AgentKey, call: c, place: place}
}

// Restore registers a call that was placed in an earlier run (a cassette
// being extended), so new calls group with it. Calls must come in file
// order; x is the call's exchange, with its place.
func (o *Organizer) Restore(c *Call, x *cassettes.Exchange) {
	o.mu.Lock()
	defer o.mu.Unlock()
	p, calls := *x.Place, exchangeCalls(&x.Response)
	for len(o.sessions) < p.Session {
		o.sessions = append(o.sessions, &orgSession{id: len(o.sessions) + 1})
	}
	s := o.sessions[p.Session-1]
	for len(s.invocations) < p.Invocation {
		s.invocations = append(s.invocations, newInvocation(s, "", nil, ""))
		o.index.turnChanged(s, true)
	}
	inv := s.invocations[p.Invocation-1]
	if inv.user == "" {
		inv.user, inv.earlier, inv.tag = p.User, c.EarlierUserTexts, p.Tag
		inv.turn = turnKey(inv.user, inv.earlier)
		if p.Tag != "" {
			o.tagged[p.Tag] = inv
		}
		o.index.turnChanged(s, false)
	}
	if p.User == "" && c.AnswersTool && c.UserTurn >= 0 { // a resumed tool took the key over (rule 1)
		if held := o.index.latestHolder(c.Key); held != nil && held != inv {
			if held.handedOver == nil {
				held.handedOver = map[string]bool{}
			}
			held.handedOver[c.Key] = true
		}
	}
	if !failed(&x.Response) { // as Finish left it when the call was recorded
		o.index.take(inv, c.Key, c.Slot(), c.AgentKey)
	}
	inv.restoreStep(c.Slot(), p.Step, failed(&x.Response))
	if c.TaskArgs != "" { // a delegated task consumed its caller's call
		inv.removePending(c.TaskArgs, "")
	} else if len(inv.pending) > 0 {
		if args := c.AgentToolArgs(); args != "" && inv.pendingIndex(args, p.Agent) >= 0 {
			inv.removePending(args, p.Agent)
		}
	}
	o.index.addPending(inv, calls)
	o.tools.placed(inv, c, p)
	if len(calls) > 0 {
		o.tools.called(inv, c, p)
	}
	if p.Agent != "" && o.names[c.AgentKey] == "" {
		o.names[c.AgentKey] = p.Agent
		o.restoredName(c.Model, p.Agent)
	}
}

// Organize places the model calls of exchanges that have no place yet
// (version 1 files), continuing from those that have one, exactly as the
// proxy would have placed them live. m decides which fields are ignored.
func Organize(m *matcher.Matcher, exchanges []*cassettes.Exchange) {
	if !anyUnplaced(exchanges) {
		return // a version 2 cassette: nothing to do, and nothing to parse
	}
	org := NewOrganizer()
	for _, x := range exchanges {
		if x.IsTool() {
			continue // filed when recorded (FileTool), never placed afterwards
		}
		c, ok := Analyze(m, x.Request.Path, x.Request.Body)
		if !ok {
			continue
		}
		if x.Place != nil {
			org.Restore(c, x)
			continue
		}
		place, token := org.Place(c, "")
		x.Place = &place
		org.Calls(token, exchangeCalls(&x.Response))
		org.Finish(token, &x.Response)
	}
}

func (o *Organizer) find(c *Call, tag, slot string) (*orgInvocation, string) {
	if tag != "" {
		return o.tagged[tag], ""
	}
	if inv := o.index.continuing(c.Key, slot); inv != nil { // rule 1
		return inv, ""
	}
	if c.AnswersTool && c.UserTurn >= 0 {
		if held := o.index.latestHolder(c.Key); held != nil { // rule 1, a resumed tool
			return o.resume(held, c, tag), ""
		}
	}
	if c.TaskArgs != "" { // rule 2
		if inv, name := o.index.consume(c.TaskArgs, ""); inv != nil {
			return inv, name
		}
	}
	if c.AgentName != "" && len(o.index.pending) > 0 { // rule 2, an agent used as a tool
		if args := c.AgentToolArgs(); args != "" {
			if inv, name := o.index.consume(args, c.AgentName); inv != nil {
				return inv, name
			}
		}
	}
	if c.UserTurn < 0 {
		return nil, ""
	}
	if s := o.index.joining(c.UserText, c.EarlierUserTexts, c.AgentKey); s != nil { // rule 3
		return s.last(), ""
	}
	return nil, ""
}

// start opens a new invocation (rule 4).
func (o *Organizer) start(c *Call, tag string) *orgInvocation {
	var session *orgSession
	if len(c.EarlierUserTexts) > 0 {
		session = o.index.following(c.EarlierUserTexts)
	}
	if session == nil {
		session = &orgSession{id: len(o.sessions) + 1}
		o.sessions = append(o.sessions, session)
	}
	inv := newInvocation(session, c.UserText, c.EarlierUserTexts, tag)
	session.invocations = append(session.invocations, inv)
	o.index.turnChanged(session, true)
	if tag != "" {
		o.tagged[tag] = inv
	}
	return inv
}

// resume opens the invocation of a user's answer to a long-running tool
// after held, in its session, with no user text, and hands held's key
// over to it.
func (o *Organizer) resume(held *orgInvocation, c *Call, tag string) *orgInvocation {
	s := held.session
	inv := newInvocation(s, "", append(slices.Clone(c.EarlierUserTexts), c.UserText), tag)
	s.invocations = append(s.invocations, inv)
	o.index.turnChanged(s, true)
	if held.handedOver == nil {
		held.handedOver = map[string]bool{}
	}
	held.handedOver[c.Key] = true
	if tag != "" {
		o.tagged[tag] = inv
	}
	return inv
}

func newInvocation(s *orgSession, user string, earlier []string, tag string) *orgInvocation {
	return &orgInvocation{session: s, id: len(s.invocations) + 1, tag: tag, user: user, earlier: earlier, turn: turnKey(user, earlier),
		taken: map[string]int{}, agents: map[string]int{}, keys: map[string]int{}}
}

// Calls records the function calls a placed step's response made, so a
// delegated agent receiving their arguments can be placed (rule 2). Call it
// as soon as the calls are seen, before the client can act on them.
func (o *Organizer) Calls(t Token, calls []FunctionCall) {
	if len(calls) == 0 || t.inv == nil {
		return
	}
	o.mu.Lock()
	o.index.addPending(t.inv, calls)
	o.tools.called(t.inv, t.call, t.place)
	o.mu.Unlock()
}

// Finish reports how a placed step's response ended. A failed one (an
// HTTP error, or a body cut short by a broken connection) frees its slot,
// so a retry of the same request lands in the same invocation.
func (o *Organizer) Finish(t Token, r *cassettes.Response) {
	if failed(r) {
		o.Abandon(t)
	}
}

// Abandon frees a placed step's slot because its exchange will not be kept
// (its answer was too large to record, say), so a retry of the same
// request lands in the same invocation.
func (o *Organizer) Abandon(t Token) {
	if t.inv == nil {
		return
	}
	o.mu.Lock()
	if t.inv.taken[t.slot] > 0 {
		o.index.untake(t.inv, t.call.Key, t.slot, t.agent)
	}
	t.inv.retry(t.slot, t.place.Step)
	o.mu.Unlock()
}

// Supersede frees the step that a recording placed at p held (c is its
// call), because a new episode is about to replace it: the call that does
// takes its invocation and its step number.
func (o *Organizer) Supersede(c *Call, p cassettes.Place) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if p.Session < 1 || p.Session > len(o.sessions) {
		return
	}
	s := o.sessions[p.Session-1]
	if p.Invocation < 1 || p.Invocation > len(s.invocations) {
		return
	}
	inv, slot := s.invocations[p.Invocation-1], c.Slot()
	if inv.taken[slot] > 0 {
		o.index.untake(inv, c.Key, slot, c.AgentKey)
		inv.retry(slot, p.Step)
	}
}

// failed reports whether a step's response did not complete: such a step
// is not taken, and its retry takes its place.
func failed(r *cassettes.Response) bool {
	return r.Status != 200 || r.End == cassettes.EndReset
}

func anyUnplaced(exchanges []*cassettes.Exchange) bool {
	for _, x := range exchanges {
		if x.Place == nil && !x.IsTool() && IsModelCall(x.Request.Path) {
			return true
		}
	}
	return false
}
