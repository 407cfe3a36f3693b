// The Server: each request routed to its cassette and to record or replay,
// cassettes opened on first use and written back by Flush and Close.

package proxy

import (
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/journalfile"
	"github.com/adkproxy/adkproxy/internal/base/samplename"
	"github.com/adkproxy/adkproxy/internal/base/setaside"
	"github.com/adkproxy/adkproxy/internal/wire"
	"github.com/adkproxy/adkproxy/matcher"
	"golang.org/x/sync/singleflight"
)

// Server is adkproxy's HTTP handler. Create it with New, serve it with any
// http.Server, and call Close once serving has stopped to write cassettes.
type Server struct {
	cfg Config
	log *slog.Logger
	m   *matcher.Matcher

	mu    sync.Mutex
	tapes map[string]*tape
	// fatal is the first cassette that could not be read while serving
	// (record modes open cassettes lazily); the CLI exits 65 for it.
	fatal error

	report reportLog
	// closedWorldMisses counts tool requests a closed-world replay
	// refused (Config.ClosedWorld): each fails the run in any mode.
	closedWorldMisses atomic.Int64
	oversized         oversizedLog // answers over MaxBody, passed on unrecorded
	refused           refusedSaves // exchanges BeforeSave failed on (hooks.go)
	unwritten         unwritten    // requests refused because they could not be recorded (unwritten.go)
	gate              bodyGate     // large request bodies in replay (gate.go)
	journals          openJournals // recording tapes' journals kept open (journals.go)
	paths             sync.Map     // cassette name -> its file, for names already checked
	lives             liveSet      // open Live API connections (live.go)
	uploads           uploads      // resumable uploads under way (upload.go)

	defaultCassette defaultCassette   // changed through the control API
	faults          faultInjector     // faults injected in replay (faults.go)
	confirmations   confirmationQueue // reported tool confirmations (confirmation.go)

	// opening makes one load per cassette name however many first
	// requests wait for it (lazy replay, lazy.go).
	opening singleflight.Group
	// mcpStreams are the HTTP+SSE MCP streams being replayed (mcp_stream.go).
	mcpStreams mcpStreams
}

// New prepares a server. In replay mode the cassette folder must exist;
// its cassettes are read when a request first names them, or all of them
// now with Config.CheckAll.
func New(cfg Config) (*Server, error) {
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, log: cfg.Logger, m: cfg.Matcher, tapes: map[string]*tape{}, gate: gateFor(cfg.Mode, cfg.MaxBody), journals: openJournals{max: maxOpenJournals}}
	s.report.mode = cfg.reportMode()
	armed, err := parseFaults(cfg.Faults)
	if err != nil {
		return nil, err
	}
	s.faults.arm(armed)
	if cfg.Mode != ModeReplay {
		return s, nil
	}
	if !cfg.CheckAll {
		// Listing reads no cassette but refuses one that is not a
		// regular file, as ls does, even if no request names it.
		_, err := cassettes.Files(cfg.Dir)
		return s, err
	}
	loaded, err := cassettes.LoadDir(cfg.Dir)
	if err != nil {
		return nil, err
	}
	for name, t := range tapesOf(loaded, s.m) {
		s.logWarnings(loaded[name])
		t.role = cfg.roleFor(true)
		s.tapes[name] = t
	}
	return s, nil
}

// tapesOf indexes loaded cassettes on every core: placing their calls in
// sessions and invocations reads every request body, and a suite's
// hundreds of small cassettes, one after another, left a core idle.
func tapesOf(loaded map[string]*cassettes.Cassette, m *matcher.Matcher) map[string]*tape {
	names := slices.Sorted(maps.Keys(loaded))
	tapes := make([]*tape, len(names))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(names)) {
		wg.Go(func() {
			for i := range next {
				c := loaded[names[i]]
				tapes[i] = newTape(names[i], c.File, m, c.Exchanges)
			}
		})
	}
	for i := range names {
		next <- i
	}
	close(next)
	wg.Wait()
	out := make(map[string]*tape, len(names))
	for i, name := range names {
		out[name] = tapes[i]
	}
	return out
}

// Err returns the first cassette that could not be read while serving.
func (s *Server) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fatal
}

// Cassettes lists the names of the cassettes the server holds: in replay,
// every cassette in the folder (read from the top of each file, not
// loaded), in record modes those opened so far.
func (s *Server) Cassettes() []string {
	s.mu.Lock()
	names := maps.Clone(s.tapes)
	s.mu.Unlock()
	if s.cfg.Mode == ModeReplay && !s.cfg.CheckAll {
		for name := range s.folderNames() {
			names[name] = nil
		}
	}
	return slices.Sorted(maps.Keys(names))
}

func (s *Server) allTapes() []*tape {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*tape, 0, len(s.tapes))
	for _, t := range s.tapes {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// Flush writes every cassette that changed since the last flush. It is
// safe to call while serving.
func (s *Server) Flush() error {
	_, err := s.flush(false)
	return err
}

// flush writes every changed cassette; with failed (the run's command
// failed) a recording that would replace a cassette on disk goes to the
// set-aside file beside it instead (failedrun.go).
func (s *Server) flush(failed bool) ([]SetAside, error) {
	var errs []error
	var aside []SetAside
	for _, t := range s.allTapes() {
		c := t.snapshot()
		if c == nil {
			continue
		}
		c.Provenance = s.provenanceOf(t.provenance, c.Exchanges)
		path := t.path
		if failed && t.replacesFile() {
			path = setaside.Path(t.path)
		}
		if err := cassettes.Save(path, c, s.cfg.Redactor); err != nil {
			t.mu.Lock()
			t.dirty = true // keep it in memory (and the journal on disk) for a later attempt
			t.mu.Unlock()
			t.saveFailed()
			errs = append(errs, err)
			continue
		}
		// Set aside, the journal goes too: a replace-mode journal left
		// behind would make the next load replace the cassette after all.
		if err := t.saved(); err != nil {
			s.log.Warn("journal not removed; it is stale and will be ignored", "cassette", t.name, "error", err.Error())
		}
		if path != t.path {
			aside = append(aside, SetAside{Cassette: t.name, Kept: t.path, File: path, Exchanges: len(c.Exchanges)})
			s.log.Warn("the command failed: cassette kept as it was, this run's recording set aside", "cassette", t.name, "kept", t.path, "file", path, "interactions", len(c.Exchanges))
			continue
		}
		s.log.Info("cassette written", "cassette", t.name, "file", t.path, "interactions", len(c.Exchanges))
	}
	return aside, errors.Join(errs...)
}

// Close writes all cassettes and notes the recordings no request used.
// Call it after the HTTP server has stopped.
func (s *Server) Close() error {
	_, err := s.close(false)
	return err
}

func (s *Server) close(failed bool) ([]SetAside, error) {
	s.lives.end() // a Live connection is kept when it ends
	s.warnUnfiledConfirmations()
	refused := s.report.refusals()
	for _, t := range s.allTapes() {
		for _, e := range t.unused(s.cfg.CheckAll) {
			o := outcomeFor(matcher.OutcomeUnused, t.name, &e.x.Request, e.x.Place)
			o.Message = unusedMessage(t.name, e, refused)
			s.report.add(o)
			s.log.Warn("recording never requested", "cassette", t.name, "detail", o.Message)
		}
	}
	return s.flush(failed)
}

// pathFor is the file of the cassette name, once the name is checked; a
// name's file is worked out once, not on every request.
func (s *Server) pathFor(name string) (string, error) {
	if p, ok := s.paths.Load(name); ok {
		return p.(string), nil
	}
	p, err := cassettes.PathFor(s.cfg.Dir, name)
	if err != nil {
		return "", err
	}
	s.paths.Store(name, p)
	return p, nil
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if isControl(r) {
		s.serveControl(w, r)
		return
	}
	if isLive(r) {
		s.serveLive(w, r) // live.go
		return
	}
	if fromForeignPage(r) {
		s.refuseForeignPage(w, r) // control_guard.go
		return
	}
	name, path, body, leave, ok := s.admit(w, r)
	if !ok {
		return
	}
	defer leave()
	req := s.capture(r, body)
	if s.passes(r, body) {
		s.forward(w, r, s.passthroughTape(name), body, req)
		return
	}
	t, ok := s.openTape(w, name, path)
	if !ok {
		return
	}
	if t == nil {
		s.paths.Delete(name) // remember no name that has no cassette
		s.miss(w, matcher.OutcomeUnmatched, name, &req, nil, nil, hinted(fmt.Sprintf("cassette %s: there is no such cassette in %s (it has: %s)",
			cassettes.ShortName(name), s.cfg.Dir, listOrNone(s.Cassettes())), "; ", s.cfg.Hints.Record))
		return
	}
	if req, ok = s.uploadChunk(w, r, t, req); !ok {
		return
	}
	if t.replaying && s.faults.active() && s.modelFault(w, r, t, &req) {
		return
	}
	if t.replaying && s.cfg.ConformanceKeys && s.replayKeyed(w, r, t, &req) {
		return
	}
	if t.replaying && s.cfg.Match != nil {
		if e, usedUp := s.takeMatching(t, &req); e != nil {
			t.answered(e)
			s.replayed(w, r, name, e, body)
			return
		} else if !t.recording {
			s.verifyMatching(w, t, &req, usedUp)
			return
		}
	} else if t.replaying {
		if e, usedUp := t.take(t.fingerprint(&req), s.cfg.AllowRepeats); e != nil && !t.refreshing(e) {
			t.answered(e)
			if s.confirmationDiffers(w, r, t, e) {
				return
			}
			s.replayed(w, r, name, e, body)
			return
		} else if !t.recording {
			s.verify(w, r, t, &req, usedUp)
			return
		}
	}
	s.forward(w, r, t, body, req)
}

// admit reads what every request needs: its cassette's name and file and
// its body, within the body deadline and, in replay, the large-body budget
// (leave gives the budget back once the request is answered). ok is false
// when it has already answered with an error.
func (s *Server) admit(w http.ResponseWriter, r *http.Request) (name, path string, body []byte, leave func(), ok bool) {
	name = s.cassetteOf(r)
	path, err := s.pathFor(name)
	if err != nil {
		s.report.failed()
		writeError(w, http.StatusBadRequest, statusInvalidArgument,
			fmt.Sprintf("bad cassette name in %s header: %v", HeaderCassette, err))
		return "", "", nil, nil, false
	}
	leave, ok = s.gate.enter(r, s.cfg.MaxBody)
	if !ok {
		return "", "", nil, nil, false // the client went away while waiting
	}
	armed := s.armReadDeadline(w)
	// A declared length within the limit is enforced by net/http: only a
	// body of unknown length needs cutting off at the limit.
	src := r.Body
	if r.ContentLength < 0 {
		src = http.MaxBytesReader(w, r.Body, s.cfg.MaxBody)
	}
	body, err = readBody(src, r.ContentLength, s.cfg.MaxBody)
	if err != nil {
		leave()
		w.Header().Set("Connection", "close") // rather than wait for the rest of the body
		s.report.failed()
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) || errors.Is(err, errDeclaredTooLarge) {
			writeError(w, http.StatusRequestEntityTooLarge, statusInvalidArgument,
				hinted(fmt.Sprintf("request body is larger than %d bytes", s.cfg.MaxBody), "; ", s.cfg.Hints.TooLarge))
			return "", "", nil, nil, false
		}
		writeError(w, http.StatusBadRequest, statusInvalidArgument, "could not read the request body: "+err.Error())
		return "", "", nil, nil, false
	}
	if armed {
		liftReadDeadline(w)
	}
	return name, path, body, leave, true
}

// openTape is tapeFor for a request; ok is false when it has already
// answered with an error. A nil tape (replay) means no such cassette.
func (s *Server) openTape(w http.ResponseWriter, name, path string) (t *tape, ok bool) {
	t, err := s.tapeFor(name, path)
	if err != nil {
		s.report.failed()
		if errors.Is(err, cassettes.ErrSymlink) {
			s.unwritten.add(err)
		}
		if errors.Is(err, errNameClash) || errors.Is(err, cassettes.ErrSymlink) {
			writeError(w, http.StatusBadRequest, statusInvalidArgument, err.Error())
			return nil, false
		}
		writeError(w, http.StatusInternalServerError, statusInternal, err.Error())
		return nil, false
	}
	return t, true
}

// tapeFor returns the cassette a request goes to, opening it on first
// use. In replay a nil tape means no such cassette.
func (s *Server) tapeFor(name, path string) (*tape, error) {
	if s.cfg.Mode == ModeReplay {
		return s.replayTape(name, path)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := s.tapes[name]; t != nil {
		return t, nil
	}
	if err := s.checkCase(name, path); err != nil {
		return nil, err
	}
	if err := s.checkWritable(name, path); err != nil {
		return nil, err
	}
	var existing []*cassettes.Exchange
	var provenance *cassettes.Provenance
	found := false
	if s.cfg.readsExisting() {
		c, err := cassettes.Load(path)
		switch {
		case err == nil:
			existing, found, provenance = c.Exchanges, true, c.Provenance
			s.logWarnings(c)
		case !errors.Is(err, cassettes.ErrNotFound):
			if s.fatal == nil {
				s.fatal = err
			}
			return nil, fmt.Errorf("cannot read cassette %q: %v", name, err)
		}
	}
	if s.cfg.Mode != ModePassthrough && journalfile.Has(path) {
		var fold func() error
		if found {
			// Fold what a killed recording left in the journal into the
			// YAML now, before this run starts a journal of its own.
			fold = func() error {
				return cassettes.Save(path, &cassettes.Cassette{Name: name, Provenance: provenance, Exchanges: existing, Trajectories: wire.StepOf}, s.cfg.Redactor)
			}
		}
		if err := s.settleLeftover(name, path, fold); err != nil { // leftover.go
			return nil, err
		}
	}
	t := newTape(name, path, s.m, existing)
	t.provenance = provenance
	if len(existing) > 0 {
		t.continueRecording()
	}
	t.redactor = s.cfg.Redactor
	t.journals = &s.journals
	t.role = s.cfg.roleFor(found)
	s.tapes[name] = t
	return t, nil
}

// errNameClash: a cassette name whose file differs from another's only in
// case.
var errNameClash = errors.New("cassette names clash")

// checkCase refuses a cassette whose file differs only in case from one
// already open or on disk: on macOS and Windows the two are one file, so a
// recording would overwrite the other, and a repository holding both
// cannot be checked out there. Callers hold s.mu.
func (s *Server) checkCase(name, path string) error {
	clash := func(other string) error {
		return fmt.Errorf("%w: cassette %q would be written to %s, which differs only in case from %s; on macOS and Windows they are one file. Rename one of the cassettes (test names)",
			errNameClash, name, path, other)
	}
	for _, t := range s.tapes {
		if t.path != path && strings.EqualFold(t.path, path) {
			return clash(t.path)
		}
	}
	rel, err := filepath.Rel(s.cfg.Dir, path)
	if err != nil {
		return nil
	}
	dir := s.cfg.Dir
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		entries, _ := os.ReadDir(dir) // a folder not made yet holds nothing
		for _, e := range entries {
			if e.Name() != part && strings.EqualFold(e.Name(), part) {
				return clash(filepath.Join(dir, e.Name()))
			}
		}
		dir = filepath.Join(dir, part)
	}
	return nil
}

// cassetteOf is the cassette a request goes to: the one it names, or
// that name's sample (Config.Sample).
func (s *Server) cassetteOf(r *http.Request) string {
	return samplename.Name(cassetteName(r, s.DefaultCassette()), s.cfg.Sample)
}

// cassetteName picks the cassette for a request: the adkproxy header, else
// the Test-Name header that other test proxies use, else the default.
func cassetteName(r *http.Request, fallback string) string {
	for _, h := range []string{HeaderCassette, HeaderTestName} {
		if v := strings.TrimSpace(r.Header.Get(h)); v != "" {
			return v
		}
	}
	return fallback
}

// capture turns an incoming request into its stored, secret-free form; the
// same form is used for matching, so --redact values still match on replay.
// Headers are left for storeHeaders: matching never reads them.
func (s *Server) capture(r *http.Request, body []byte) cassettes.Request {
	red := s.cfg.Redactor
	red.Learn(r.Header, r.URL.RawQuery)
	if cassettes.HasCredential(r.Header, r.URL.RawQuery) {
		s.report.sawKey()
	}
	return cassettes.Request{
		Method: r.Method,
		Path:   red.String(r.URL.EscapedPath()),
		Query:  red.Query(r.URL.RawQuery),
		Body:   red.Bytes(body),
	}
}

// storeHeaders adds the request headers worth keeping, scrubbed, to a
// request about to be recorded.
func (s *Server) storeHeaders(req *cassettes.Request, r *http.Request) {
	req.Header = s.cfg.Redactor.Header(withoutHeaders(r.Header, unstoredRequestHeaders...))
}
