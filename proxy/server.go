package proxy

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/adkproxy/adkproxy/cassettes"
)

// Server is adkproxy's HTTP handler. Create it with New, serve it with any
// http.Server, and call Close once serving has stopped to write cassettes.
type Server struct {
	cfg Config
	log *slog.Logger

	mu    sync.Mutex
	tapes map[string]*tape

	stats  counters
	missMu sync.Mutex
	misses []Miss
}

// Stats counts what the proxy did with requests.
type Stats struct {
	Recorded  int64 // exchanges recorded
	Replayed  int64 // requests answered from a cassette
	Unmatched int64 // replay requests with no recording
	Failed    int64 // requests refused (bad input, upstream unreachable)
}

type counters struct{ recorded, replayed, unmatched, failed atomic.Int64 }

// Miss describes a replayed request that had no recording.
type Miss struct {
	Cassette string
	Method   string
	Path     string
	Message  string
}

// maxKeptMisses bounds memory when a broken run misses on every request;
// the count in Stats stays exact.
const maxKeptMisses = 1000

// New prepares a server. In replay mode it loads every cassette in the
// folder up front, so a corrupt file is reported before any test runs.
func New(cfg Config) (*Server, error) {
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, log: cfg.Logger, tapes: map[string]*tape{}}
	switch cfg.Mode {
	case ModeRecord:
	case ModeReplay:
		loaded, err := cassettes.LoadDir(cfg.Dir)
		if err != nil {
			return nil, err
		}
		for name, c := range loaded {
			path, _ := s.pathFor(name)
			s.tapes[name] = newTape(name, path, c.Exchanges)
		}
	default:
		return nil, fmt.Errorf("unknown mode %q", cfg.Mode)
	}
	return s, nil
}

// Stats returns the counts so far.
func (s *Server) Stats() Stats {
	return Stats{Recorded: s.stats.recorded.Load(), Replayed: s.stats.replayed.Load(),
		Unmatched: s.stats.unmatched.Load(), Failed: s.stats.failed.Load()}
}

// Misses returns the unmatched requests seen so far (the first 1000).
func (s *Server) Misses() []Miss {
	s.missMu.Lock()
	defer s.missMu.Unlock()
	return append([]Miss(nil), s.misses...)
}

// Cassettes lists the names of the cassettes the server holds.
func (s *Server) Cassettes() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	names := make([]string, 0, len(s.tapes))
	for n := range s.tapes {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Flush writes every cassette that changed since the last flush. It is
// safe to call while serving.
func (s *Server) Flush() error {
	s.mu.Lock()
	tapes := make([]*tape, 0, len(s.tapes))
	for _, t := range s.tapes {
		tapes = append(tapes, t)
	}
	s.mu.Unlock()
	var errs []error
	for _, t := range tapes {
		c := t.snapshot()
		if c == nil {
			continue
		}
		if err := cassettes.Save(t.path, c, s.cfg.Redactor); err != nil {
			t.mu.Lock()
			t.dirty = true // keep it in memory for a later attempt
			t.mu.Unlock()
			errs = append(errs, err)
			continue
		}
		s.log.Info("cassette written", "cassette", t.name, "file", t.path, "interactions", len(c.Exchanges))
	}
	return errors.Join(errs...)
}

// Close writes all cassettes. Call it after the HTTP server has stopped.
func (s *Server) Close() error { return s.Flush() }

func (s *Server) pathFor(name string) (string, error) {
	rel, err := cassettes.FileName(name)
	if err != nil {
		return "", err
	}
	return filepath.Join(s.cfg.Dir, rel), nil
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name := cassetteName(r, s.cfg.DefaultCassette)
	path, err := s.pathFor(name)
	if err != nil {
		s.stats.failed.Add(1)
		writeError(w, http.StatusBadRequest, statusInvalidArgument,
			fmt.Sprintf("bad cassette name in %s header: %v", HeaderCassette, err))
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBody))
	if err != nil {
		s.stats.failed.Add(1)
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeError(w, http.StatusRequestEntityTooLarge, statusInvalidArgument,
				fmt.Sprintf("request body is larger than %d bytes (raise --max-body)", s.cfg.MaxBody))
			return
		}
		writeError(w, http.StatusBadRequest, statusInvalidArgument, "could not read the request body: "+err.Error())
		return
	}
	req := s.capture(r, body)
	if s.cfg.Mode == ModeRecord {
		s.record(w, r, s.recordingTape(name, path), body, req)
		return
	}
	s.replay(w, r, name, req)
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
func (s *Server) capture(r *http.Request, body []byte) cassettes.Request {
	red := s.cfg.Redactor
	red.Learn(r.Header, r.URL.RawQuery)
	return cassettes.Request{
		Method: r.Method,
		Path:   red.String(r.URL.EscapedPath()),
		Query:  red.Query(r.URL.RawQuery),
		Header: red.Header(withoutHeaders(r.Header, unstoredRequestHeaders...)),
		Body:   red.Bytes(body),
	}
}

// recordingTape returns the tape a recording run writes into. Recording
// replaces a cassette: the first request of the run starts it empty.
func (s *Server) recordingTape(name, path string) *tape {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tapes[name]
	if t == nil {
		t = newTape(name, path, nil)
		s.tapes[name] = t
	}
	return t
}

func (s *Server) replayTape(name string) *tape {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tapes[name]
}

func (s *Server) addMiss(m Miss) {
	s.stats.unmatched.Add(1)
	s.missMu.Lock()
	if len(s.misses) < maxKeptMisses {
		s.misses = append(s.misses, m)
	}
	s.missMu.Unlock()
}
