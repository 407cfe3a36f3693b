// One cassette in memory while serving: its recordings indexed by
// fingerprint and by place, handed out in turn, and new ones journalled.

package proxy

import (
	"bytes"
	"hash/maphash"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/conversation"
	"github.com/adkproxy/adkproxy/internal/engine/journal"
	"github.com/adkproxy/adkproxy/internal/wire"
	"github.com/adkproxy/adkproxy/matcher"
)

// tape is one cassette in memory with its own lock, so requests for
// different cassettes never wait on each other.
type tape struct {
	name string
	path string
	m    *matcher.Matcher

	role // what it does with requests, fixed when it is opened (modes.go)

	redactor *cassettes.Redactor
	journals *openJournals // shared by the server's recording tapes
	// provenance is the loaded cassette's, kept and added to when the
	// tape is written again (provenance.go).
	provenance *cassettes.Provenance
	// refreshed are the sessions a refresh is re-recording (refresh.go).
	refreshed map[int]bool

	mu      sync.Mutex
	journal *journal.Journal // opened with the first recorded exchange
	entries []*entry
	dirty   bool
	touched bool
	org     *conversation.Organizer
	// Recordings of each fingerprint in recorded order, served first in,
	// first out so identical requests get their answers in turn. Filled
	// when a request first looks a recording up (see queued), never
	// replaced, so it can be passed around before it is filled.
	queues map[matcher.Fingerprint][]*entry
	// unprinted are the loaded recordings whose fingerprint waits for the
	// first look-up: a command or a --check that only reads the cassette
	// never needs them, and a replay fingerprints only the cassettes its
	// requests name.
	unprinted []*entry
	filled    bool // queues holds every model recording
	// asSent finds a recording by its request exactly as sent (see
	// fingerprint); one recording per hash is enough.
	asSent map[uint64]*entry
	// Model calls by place: by slot (agent+history key and step), and by
	// user text.
	positions map[string][]*entry
	byUser    map[string][]*entry
	// tools holds tool exchanges by matcher.ToolKey, apart from model
	// calls (tooltape.go).
	tools     map[matcher.Fingerprint][]*entry
	toolsSent map[uint64]*entry
	// listings are the MCP tools/list exchanges recorded since the last
	// model call, filed with the model call that follows them
	// (mcp_listing.go).
	listings []*cassettes.Exchange
	// keyed is the state of conformance matching (keyed.go), made on
	// first use.
	keyed *keyedTape
	// Server-made names by their place (matcher.Names): recorded numbers
	// them over the cassette, run over the answers this run has had.
	recorded, run *matcher.Names
	// lives holds Live API connections by liveKey (live.go).
	lives map[matcher.Fingerprint][]*entry
	// liveOpen are the Live connections being recorded into the tape's
	// journal as they pass (live_journal.go).
	liveOpen map[*liveJournal]struct{}
}

type entry struct {
	x    *cassettes.Exchange
	fp   matcher.Fingerprint
	call *conversation.Call // nil for requests that are not model calls
	used bool
	// contested: a request at this place was reported as differing, so
	// the recording is not also reported as unused.
	contested bool
	// names: its response holds server-made names, learnt by the run
	// when it is served; most answers hold none and are not scanned.
	names bool
	// head is the answer's header block once it has been served
	// (answerhead.go).
	head atomic.Pointer[answerHead]
}

func newTape(name, path string, m *matcher.Matcher, exchanges []*cassettes.Exchange) *tape {
	conversation.Organize(m, exchanges)
	t := &tape{name: name, path: path, m: m, org: conversation.NewOrganizer(),
		queues: map[matcher.Fingerprint][]*entry{}, asSent: map[uint64]*entry{},
		recorded: &matcher.Names{}, run: &matcher.Names{}}
	// One scan of the answers numbers the recorded names and tells which
	// answers the run must learn from when they are served.
	held := make([]bool, len(exchanges))
	for i, x := range exchanges {
		held[i] = t.recorded.Learn(x.Request.Path, &x.Response)
	}
	t.entries = make([]*entry, 0, len(exchanges))
	for i, x := range exchanges {
		e := t.add(x, matcher.Fingerprint{})
		e.names = held[i]
		if !x.IsTool() && !x.IsLive() {
			t.unprinted = append(t.unprinted, e)
		}
	}
	return t
}

// queued fingerprints the loaded recordings and queues every model
// recording by fingerprint in recorded order, once, before the first
// look-up; callers hold the lock. Recordings kept since loading already
// have their fingerprint (index) and wait here for their turn in the order.
func (t *tape) queued() {
	if t.filled {
		return
	}
	fingerprintAll(t.m, t.recorded, t.unprinted)
	t.unprinted, t.filled = nil, true
	for _, e := range t.entries {
		if !e.x.IsTool() && !e.x.IsLive() {
			t.queues[e.fp] = append(t.queues[e.fp], e)
		}
	}
}

// fingerprintAll fingerprints the requests of es on every core, for large
// cassettes.
func fingerprintAll(m *matcher.Matcher, names *matcher.Names, es []*entry) {
	workers := min(runtime.GOMAXPROCS(0), len(es)/256+1)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(es); i += workers {
				es[i].fp = m.Fingerprint(names.Rewrite(&es[i].x.Request))
			}
		})
	}
	wg.Wait()
}

// continueRecording lets new calls group with the recorded ones (record
// modes that keep a cassette's recordings). Replay never needs it.
func (t *tape) continueRecording() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.analyze()
	for _, e := range t.entries {
		if e.call != nil && e.x.Place != nil {
			t.org.Restore(e.call, e.x)
		}
	}
}

// index adds a recorded exchange to the lookups; callers hold the lock.
// Only its fingerprint is computed now: the call analysis that places it
// in the conversation waits until a miss needs it (see analyze). The
// forward's read of the request, when it read the same bytes, gives the
// fingerprint without reading the body again.
func (t *tape) index(x *cassettes.Exchange, analysed *analysis) *entry {
	req := t.run.Rewrite(&x.Request)
	var fp matcher.Fingerprint
	if a := analysed; a != nil && a.read != nil && req == &x.Request && a.path == req.Path && bytes.Equal(a.body, req.Body) {
		fp = matcher.Fingerprint(a.read.Fingerprint(req))
	} else {
		fp = t.m.Fingerprint(req)
	}
	e := t.add(x, fp)
	e.names = t.run.Learn(x.Request.Path, &x.Response)
	return e
}

func (t *tape) add(x *cassettes.Exchange, fp matcher.Fingerprint) *entry {
	e := &entry{x: x, fp: fp}
	t.entries = append(t.entries, e)
	if x.IsTool() {
		t.addTool(e)
		return e
	}
	if x.IsLive() {
		t.addLive(e)
		return e
	}
	if t.filled {
		t.queues[e.fp] = append(t.queues[e.fp], e)
	}
	if h := sentHash(&x.Request); t.asSent[h] == nil {
		t.asSent[h] = e
	}
	if t.positions != nil {
		t.place(e)
	}
	return e
}

// analyze builds the by-place lookups on first use; callers hold the lock.
func (t *tape) analyze() {
	if t.positions != nil {
		return
	}
	t.positions, t.byUser = map[string][]*entry{}, map[string][]*entry{}
	for _, e := range t.entries {
		t.place(e)
	}
}

func (t *tape) place(e *entry) {
	if e.x.IsTool() {
		return
	}
	e.call, _ = conversation.Analyze(t.m, e.x.Request.Path, e.x.Request.Body)
	if e.call == nil {
		return
	}
	t.positions[e.call.Slot()] = append(t.positions[e.call.Slot()], e)
	if e.call.UserTurn >= 0 {
		t.byUser[e.call.UserText] = append(t.byUser[e.call.UserText], e)
	}
}

// fingerprint returns req's fingerprint. A request whose method, path,
// query and body bytes equal a recording's has that recording's
// fingerprint, so it is looked up by a fast hash of those bytes; only a
// request that differs from every recording is canonicalised. Agents
// replaying their recorded conversation send identical bytes, so this is
// the common case, and what matches is the same either way.
func (t *tape) fingerprint(req *cassettes.Request) matcher.Fingerprint {
	h := sentHash(req)
	t.mu.Lock()
	t.queued()
	e := t.asSent[h]
	t.mu.Unlock()
	if e != nil && sameAsSent(&e.x.Request, req) {
		return e.fp
	}
	return t.m.Fingerprint(t.run.Rewrite(req))
}

// answered notes a recorded answer served to this run: the names in it
// are this run's from now on.
func (t *tape) answered(e *entry) {
	if e.names {
		t.run.Learn(e.x.Request.Path, &e.x.Response)
	}
	t.org.Interacted(e.x)
}

var sentSeed = maphash.MakeSeed()

func sentHash(req *cassettes.Request) uint64 {
	var h maphash.Hash
	h.SetSeed(sentSeed)
	h.WriteString(req.Method)
	h.WriteByte(0)
	h.WriteString(req.Path)
	h.WriteByte(0)
	h.WriteString(req.Query)
	h.WriteByte(0)
	h.Write(req.Body)
	return h.Sum64()
}

func sameAsSent(a, b *cassettes.Request) bool {
	return a.Method == b.Method && a.Path == b.Path && a.Query == b.Query && bytes.Equal(a.Body, b.Body)
}

// take returns the next unused recording for fp and marks it used. Once all
// are used it returns the last one when repeats are allowed; usedUp then
// reports how many recordings there were.
func (t *tape) take(fp matcher.Fingerprint, allowRepeats bool) (e *entry, usedUp int) {
	return t.takeFrom(t.queues, fp, allowRepeats)
}

func (t *tape) takeFrom(queues map[matcher.Fingerprint][]*entry, fp matcher.Fingerprint, allowRepeats bool) (e *entry, usedUp int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.touched = true
	q := queues[fp]
	for _, e := range q {
		if !e.used {
			e.used = true
			return e, 0
		}
	}
	if len(q) > 0 && allowRepeats {
		return q[len(q)-1], 0
	}
	return nil, len(q)
}

// position finds the recording a model call should have matched: the same
// agent with the same history at the same step, or else, when the history
// itself changed (instruction, tools, earlier turns), the same step of an
// invocation with the same user text. Unused recordings come first.
func (t *tape) position(c *conversation.Call) *entry {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.analyze()
	return t.positionLocked(c)
}

// positionLocked is position for callers that hold the lock and have
// called analyze.
func (t *tape) positionLocked(c *conversation.Call) *entry {
	if e := firstUnused(t.positions[c.Slot()], nil); e != nil {
		return e
	}
	if c.UserTurn < 0 {
		return nil
	}
	sameStep := func(e *entry) bool { return e.call.Step == c.Step }
	sameAgent := func(e *entry) bool {
		return sameStep(e) && c.AgentName != "" && e.x.Place != nil && e.x.Place.Agent == c.AgentName
	}
	if e := firstUnused(t.byUser[c.UserText], sameAgent); e != nil {
		return e
	}
	return firstUnused(t.byUser[c.UserText], sameStep)
}

// tagged finds the unused model call recorded at step of the invocation
// a client named tag (X-Adkproxy-Invocation), for a request whose history
// changed so much that position finds nothing: an in-process client (a
// simulated user, a judge) names each call, and its place is that name.
func (t *tape) tagged(tag string, step int) *entry {
	if tag == "" {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return firstUnused(t.entries, func(e *entry) bool {
		return e.call != nil && e.x.Place != nil && e.x.Place.Tag == tag && e.call.Step == step
	})
}

func firstUnused(list []*entry, ok func(*entry) bool) *entry {
	for _, e := range list {
		if !e.used && (ok == nil || ok(e)) {
			return e
		}
	}
	return nil
}

func (t *tape) markUsed(e *entry) {
	t.mu.Lock()
	e.used = true
	t.mu.Unlock()
}

func (t *tape) markContested(e *entry) {
	t.mu.Lock()
	e.contested = true
	t.mu.Unlock()
}

// record appends a forwarded exchange. It counts as used: a later identical
// request in the same run is forwarded again, as it would be replayed in
// turn. A persisting tape first appends it to its journal, synced to disk.
// Under new-episodes it replaces the unused recording at its place, which
// it returns (supersede.go).
func (t *tape) record(x *cassettes.Exchange, analysed *analysis) (superseded *entry, err error) {
	t.mu.Lock()
	t.touched = true
	if !t.persist {
		t.mu.Unlock()
		return nil, nil
	}
	j, err := t.journalLocked()
	if t.replaying && !x.IsTool() && !x.IsLive() { // new-episodes: the new recording takes the old one's place
		superseded = t.supersede(modelCall(analysed, t.m, x.Request.Path, x.Request.Body))
	}
	e := t.index(x, analysed)
	e.used = true
	t.dirty = true
	t.refreshFrom(x, superseded)
	t.mu.Unlock()
	if err == nil {
		err = j.Append(x) // outside the lock: syncing is the slow part
	}
	if err != nil {
		return nil, t.notJournalled(e, superseded, err)
	}
	// Only the most recently used journals stay open: descriptors must not
	// grow with the number of cassettes recorded in one run.
	if err := t.journals.used(j); err != nil {
		return superseded, &journalError{err: err, kept: true}
	}
	return superseded, nil
}

// journalError is record's error: the journal could not be written. kept
// says whether the exchange is still kept (in memory, saved at exit).
type journalError struct {
	err  error
	kept bool
}

func (e *journalError) Error() string { return e.err.Error() }
func (e *journalError) Unwrap() error { return e.err }

// notJournalled handles an exchange that could not be journalled. A Live
// connection has been seen whole by its client already: it is kept in
// memory for the save at exit, and the journal marked incomplete. Any
// other exchange is taken out again (superseded put back), so nothing
// keeps what its client will be told failed (record.go's keep).
func (t *tape) notJournalled(e, superseded *entry, err error) error {
	if e.x.IsLive() {
		t.saveFailed()
		return &journalError{err: err, kept: true}
	}
	t.mu.Lock()
	t.remove(e)
	if superseded != nil {
		t.putBack(superseded)
	}
	t.mu.Unlock()
	return &journalError{err: err}
}

// journalLocked is the tape's journal, opened with its first record;
// callers hold the lock.
func (t *tape) journalLocked() (*journal.Journal, error) {
	if t.journal != nil {
		return t.journal, nil
	}
	j, err := journal.Open(t.path, t.name, t.replace, t.redactor)
	if err != nil {
		return nil, err
	}
	t.journal = j
	return j, nil
}

// saved drops the journal once the cassette it protects is on disk.
func (t *tape) saved() error {
	t.mu.Lock()
	j := t.journal
	t.journal = nil
	// The cassette on disk is now this run's: a later journal extends it
	// (one that replaced it would lose what was saved, after a crash).
	t.replace = false
	t.mu.Unlock()
	if j == nil {
		return nil
	}
	t.journals.forget(j)
	err := j.Remove()
	t.rejournalLive() // live_journal.go: open connections were in the journal removed
	return err
}

// requests lists the recorded requests, for explaining a miss.
func (t *tape) requests() []*cassettes.Request {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]*cassettes.Request, 0, len(t.entries))
	for _, e := range t.entries {
		if !e.x.IsTool() {
			out = append(out, &e.x.Request)
		}
	}
	return out
}

// unused lists the recordings no request used, when the tape answered any
// (or evenUntouched: replay with Config.CheckAll).
func (t *tape) unused(evenUntouched bool) []*entry {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.touched && !evenUntouched || !t.replaying || t.recording {
		return nil
	}
	var out []*entry
	for _, e := range t.entries {
		if !e.used && !e.contested {
			out = append(out, e)
		}
	}
	return out
}

// snapshot returns the cassette to save, or nil when nothing changed.
// Model calls are ordered by place so the file reads as a conversation.
func (t *tape) snapshot() *cassettes.Cassette {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.dirty {
		return nil
	}
	t.dirty = false
	xs := make([]*cassettes.Exchange, 0, len(t.entries))
	for _, e := range t.entries {
		if !t.stale(e) {
			xs = append(xs, e.x)
		}
	}
	sort.SliceStable(xs, func(i, j int) bool {
		a, b := xs[i].Place, xs[j].Place
		if a == nil || b == nil {
			return a != nil && b == nil
		}
		if a.Session != b.Session {
			return a.Session < b.Session
		}
		return a.Invocation < b.Invocation
	})
	return &cassettes.Cassette{Name: t.name, Exchanges: xs, Trajectories: wire.StepOf}
}
