// The organizer's index of open invocations: where rules 1 to 4 find
// their candidate in O(1) on average instead of scanning every session.

package conversation

import (
	"container/heap"
	"encoding/binary"
	"hash/maphash"
)

// openIndex answers the Organizer's four questions (see Organizer) from
// candidate queues kept in file order (session, then invocation), so the
// earliest candidate wins, as a scan would find it: identical parallel
// sessions stay first come, first served. A queue is lazy: an entry that
// stopped being a candidate is dropped when it reaches the front, and an
// entry is pushed again whenever it becomes a candidate again. Callers
// hold the Organizer's lock.
type openIndex struct {
	// Rule 1: per slot, invocations holding the slot's key with the slot
	// free; holders lists every invocation that came to hold a key, to
	// start the queue of a slot seen for the first time.
	free    map[string]*firstOf[*orgInvocation]
	slots   map[string][]string // key -> slots with a queue
	holders map[string][]*orgInvocation
	// Rule 2: invocations with a pending function call, by its arguments.
	pending map[string]*firstOf[*orgInvocation]
	// Rule 3: per (user text and earlier turns, agent), sessions whose
	// latest invocation has that text and no step by that agent; lastIs
	// lists the sessions whose latest invocation came to have the text.
	joinable map[agentTurn]*firstOf[*orgSession]
	agents   map[textsKey][]string // turn key -> agents with a queue
	lastIs   map[textsKey][]*orgSession
	// Rule 4: sessions by the user texts of all their invocations.
	bySeq map[textsKey]*firstOf[*orgSession]
}

func newOpenIndex() openIndex {
	return openIndex{free: map[string]*firstOf[*orgInvocation]{}, slots: map[string][]string{},
		holders: map[string][]*orgInvocation{}, pending: map[string]*firstOf[*orgInvocation]{},
		joinable: map[agentTurn]*firstOf[*orgSession]{}, agents: map[textsKey][]string{},
		lastIs: map[textsKey][]*orgSession{}, bySeq: map[textsKey]*firstOf[*orgSession]{}}
}

// --- rule 1: the agent's next step --------------------------------------

// continuing is the earliest invocation holding key with slot free.
func (x *openIndex) continuing(key, slot string) *orgInvocation {
	if x.free[slot] == nil && len(x.holders[key]) == 0 {
		// No invocation ever held key (a new conversation's first call):
		// there is nothing to queue, and a queue started later begins
		// from the holders then.
		return nil
	}
	q := x.slotQueue(key, slot)
	inv, _ := q.first(func(inv *orgInvocation) bool {
		return inv.keys[key] > 0 && inv.taken[slot] == 0 && !inv.handedOver[key]
	})
	return inv
}

// latestHolder is the invocation that most recently came to hold key and
// has not handed it over, or nil.
func (x *openIndex) latestHolder(key string) *orgInvocation {
	holders := x.holders[key]
	for i := len(holders) - 1; i >= 0; i-- {
		if inv := holders[i]; inv.keys[key] > 0 && !inv.handedOver[key] {
			return inv
		}
	}
	return nil
}

func (x *openIndex) slotQueue(key, slot string) *firstOf[*orgInvocation] {
	q := x.free[slot]
	if q == nil {
		q = newFirstOf(invocationBefore)
		for _, inv := range x.holders[key] {
			q.push(inv)
		}
		x.free[slot] = q
		x.slots[key] = append(x.slots[key], slot)
	}
	return q
}

// take notes that inv took slot (of key) for agent.
func (x *openIndex) take(inv *orgInvocation, key, slot, agent string) {
	inv.taken[slot]++
	inv.agents[agent]++
	if inv.keys[key]++; inv.keys[key] == 1 {
		x.holders[key] = append(x.holders[key], inv)
		for _, s := range x.slots[key] {
			if inv.taken[s] == 0 {
				x.free[s].push(inv)
			}
		}
	}
}

// untake undoes take: a failed step frees its slot for the retry.
func (x *openIndex) untake(inv *orgInvocation, key, slot, agent string) {
	inv.taken[slot]--
	inv.agents[agent]--
	inv.keys[key]--
	if inv.taken[slot] == 0 && inv.keys[key] > 0 {
		x.slotQueue(key, slot).push(inv)
	}
	if inv.agents[agent] == 0 && inv == inv.session.last() {
		if q := x.joinable[agentTurn{inv.turn, agent}]; q != nil {
			q.push(inv.session)
		}
	}
}

// --- rule 2: a delegated task --------------------------------------------

// addPending notes function calls inv's steps made.
func (x *openIndex) addPending(inv *orgInvocation, calls []FunctionCall) {
	inv.pending = append(inv.pending, calls...)
	for _, c := range calls {
		q := x.pending[c.Args]
		if q == nil {
			q = newFirstOf(invocationBefore)
			x.pending[c.Args] = q
		}
		q.push(inv)
	}
}

// consume removes the earliest pending call with args (and, unless name
// is "", that name), returning its invocation and name.
func (x *openIndex) consume(args, name string) (*orgInvocation, string) {
	q := x.pending[args]
	if q == nil {
		return nil, ""
	}
	inv, ok := q.first(func(inv *orgInvocation) bool { return inv.pendingIndex(args, "") >= 0 })
	if !ok {
		return nil, ""
	}
	if name != "" && inv.pendingIndex(args, name) < 0 {
		return nil, "" // the earliest call with these arguments is another tool's
	}
	return inv, inv.removePending(args, name)
}

// pendingIndex is the index of inv's first pending call with args (and
// name, unless it is ""), or -1.
func (inv *orgInvocation) pendingIndex(args, name string) int {
	for i, p := range inv.pending {
		if p.Args == args && (name == "" || p.Name == name) {
			return i
		}
	}
	return -1
}

// removePending drops inv's first pending call with args (and name, unless
// it is ""), returning its name ("" if there was none).
func (inv *orgInvocation) removePending(args, name string) string {
	i := inv.pendingIndex(args, name)
	if i < 0 {
		return ""
	}
	found := inv.pending[i].Name
	inv.pending = append(inv.pending[:i:i], inv.pending[i+1:]...)
	return found
}

// --- rules 3 and 4: the user's turn ----------------------------------------

// joining is the earliest session whose latest invocation is the turn
// (user, earlier) with no step by agent.
func (x *openIndex) joining(user string, earlier []string, agent string) *orgSession {
	turn := turnKey(user, earlier)
	key := agentTurn{turn, agent}
	q := x.joinable[key]
	if q == nil && len(x.lastIs[turn]) == 0 {
		return nil // no session came to this turn (a new conversation): nothing to queue yet
	}
	if q == nil {
		q = newFirstOf(sessionBefore)
		for _, s := range x.lastIs[turn] {
			q.push(s)
		}
		x.joinable[key] = q
		x.agents[turn] = append(x.agents[turn], agent)
	}
	s, _ := q.first(func(s *orgSession) bool {
		last := s.last()
		return last.turn == turn && last.agents[agent] == 0
	})
	return s
}

// following is the earliest session whose invocations' user texts are
// earlier, which a new turn after them continues.
func (x *openIndex) following(earlier []string) *orgSession {
	seq := seqKey(earlier)
	q := x.bySeq[seq]
	if q == nil {
		return nil
	}
	s, _ := q.first(func(s *orgSession) bool { return s.seq == seq })
	return s
}

// turnChanged re-indexes s after an invocation was added to it
// (appended) or its latest one learned its user text (Restore).
func (x *openIndex) turnChanged(s *orgSession, appended bool) {
	// An invocation without user text (a user answering a long-running
	// tool) is no user turn in the history later calls carry.
	if appended {
		if u := s.last().user; u != "" {
			s.seq = s.seq.then(u)
		}
	} else {
		var texts []string
		for _, inv := range s.invocations {
			if inv.user != "" {
				texts = append(texts, inv.user)
			}
		}
		s.seq = seqKey(texts)
	}
	q := x.bySeq[s.seq]
	if q == nil {
		q = newFirstOf(sessionBefore)
		x.bySeq[s.seq] = q
	}
	q.push(s)
	last := s.last()
	turn := last.turn
	x.lastIs[turn] = append(x.lastIs[turn], s)
	for _, agent := range x.agents[turn] {
		if last.agents[agent] == 0 {
			x.joinable[agentTurn{turn, agent}].push(s)
		}
	}
}

func (s *orgSession) last() *orgInvocation { return s.invocations[len(s.invocations)-1] }

// textsKey identifies a list of texts (a turn's user text and earlier
// ones; a session's user texts) by a 128-bit hash of them in order. The
// index keys its maps by it rather than by the texts themselves: a first
// turn is often kilobytes, and a new session's call would copy it into
// several keys and hash it again in every map it enters.
type textsKey struct{ a, b uint64 }

// textsSeeds are the key's two hashes' seeds: the keys live only in this
// process's memory, so each process picks its own.
var textsSeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

// then is the key of k's texts followed by text.
func (k textsKey) then(text string) textsKey {
	var prev [16]byte
	binary.LittleEndian.PutUint64(prev[:8], k.a)
	binary.LittleEndian.PutUint64(prev[8:], k.b)
	var h maphash.Hash
	sum := func(seed maphash.Seed) uint64 {
		h.SetSeed(seed)
		h.Write(prev[:])
		h.WriteString(text)
		return h.Sum64()
	}
	return textsKey{sum(textsSeeds[0]), sum(textsSeeds[1])}
}

// seqKey is the key of a list of texts.
func seqKey(texts []string) textsKey {
	var k textsKey
	for _, t := range texts {
		k = k.then(t)
	}
	return k
}

// turnKey is the key of a turn: its earlier user texts, then its own.
func turnKey(user string, earlier []string) textsKey {
	return seqKey(earlier).then(user)
}

// agentTurn keys rule 3's queues: a turn (turnKey) and an agent.
type agentTurn struct {
	turn  textsKey
	agent string
}

// --- queues in file order ---------------------------------------------------

func invocationBefore(a, b *orgInvocation) bool {
	if a.session.id != b.session.id {
		return a.session.id < b.session.id
	}
	return a.id < b.id
}

func sessionBefore(a, b *orgSession) bool { return a.id < b.id }

// firstOf is a min-heap in file order with lazy deletion (see openIndex).
type firstOf[T any] struct {
	items  []T
	before func(a, b T) bool
}

func newFirstOf[T any](before func(a, b T) bool) *firstOf[T] {
	return &firstOf[T]{before: before}
}

func (q *firstOf[T]) push(v T) { heap.Push((*heapOf[T])(q), v) }

// first is the earliest entry still valid, dropping those before it that
// are not.
func (q *firstOf[T]) first(valid func(T) bool) (T, bool) {
	for len(q.items) > 0 {
		if valid(q.items[0]) {
			return q.items[0], true
		}
		heap.Pop((*heapOf[T])(q))
	}
	var zero T
	return zero, false
}

// heapOf is firstOf as a container/heap.Interface.
type heapOf[T any] firstOf[T]

func (h *heapOf[T]) Len() int           { return len(h.items) }
func (h *heapOf[T]) Less(i, j int) bool { return h.before(h.items[i], h.items[j]) }
func (h *heapOf[T]) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *heapOf[T]) Push(v any)         { h.items = append(h.items, v.(T)) }
func (h *heapOf[T]) Pop() any {
	v := h.items[len(h.items)-1]
	var zero T
	h.items[len(h.items)-1] = zero
	h.items = h.items[:len(h.items)-1]
	return v
}
