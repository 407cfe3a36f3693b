// The modes: what each makes a cassette do with requests, how a Config's
// modes are checked, and when a run under them has failed.

package proxy

import (
	"errors"
	"fmt"
	"strings"
)

// Mode is what the proxy does with each request. The zero value is
// ModeReplay.
type Mode string

const (
	// ModeReplay (the zero value) answers only from cassettes and never
	// contacts the upstream. A request that differs from the recording
	// at its place gets a 400 error naming each differing field and fails
	// the run (see Server.Failure), unless Config.Lenient; one with
	// nothing recorded always does.
	ModeReplay Mode = "replay"
	// ModeRecord forwards every request upstream and records it; a
	// cassette used in the run is replaced by what this run recorded.
	ModeRecord Mode = "record"
	// ModeRecordOnce replays a cassette that exists, strictly, and leaves
	// it unchanged; a cassette that does not exist is recorded.
	ModeRecordOnce Mode = "record-once"
	// ModeRecordNewEpisodes answers requests that have a recording from
	// it, and forwards the others and adds them to the cassette.
	ModeRecordNewEpisodes Mode = "record-new-episodes"
	// ModeRecordRefresh replays each session of a cassette while its
	// requests match the recordings and re-records it from the first that
	// does not: that request and every later one of the session are
	// forwarded and recorded, and the session's recordings no request used
	// are dropped. Sessions whose requests all matched are kept as they
	// were; a new session is recorded.
	ModeRecordRefresh Mode = "record-refresh"
	// ModePassthrough forwards every request and writes nothing.
	ModePassthrough Mode = "passthrough"
)

// modes lists every Mode, in the order error messages name them.
var modes = []Mode{ModeReplay, ModeRecord, ModeRecordOnce, ModeRecordNewEpisodes, ModeRecordRefresh, ModePassthrough}

// ErrUnknownMode is wrapped by New's error for a Config.Mode that is none
// of the Mode constants.
var ErrUnknownMode = errors.New("unknown mode")

// ErrRunFailed is wrapped by Server.Failure when the run failed by its
// mode's rules.
var ErrRunFailed = errors.New("run failed")

// orList joins names as "a, b or c".
func orList(names []string) string {
	last := len(names) - 1
	if last == 0 {
		return names[0]
	}
	return strings.Join(names[:last], ", ") + " or " + names[last]
}

// checkModes refuses a mode that does not exist and settings that
// contradict the mode: nothing a Config can say is silently ignored.
func (c *Config) checkModes() error {
	known := false
	names := make([]string, len(modes))
	for i, m := range modes {
		known = known || c.Mode == m
		names[i] = string(m)
	}
	if !known {
		return fmt.Errorf("proxy: Config.Mode %q: %w (want %s)", c.Mode, ErrUnknownMode, orList(names))
	}
	if c.Lenient && c.Mode != ModeReplay {
		return fmt.Errorf("proxy: Config.Lenient is for ModeReplay; Mode %s does not serve mismatched recordings", c.Mode)
	}
	if c.Mode == ModeRecord || c.Mode == ModePassthrough {
		// These modes never answer from a recording.
		for _, f := range []struct {
			name string
			set  bool
		}{{"ConformanceKeys", c.ConformanceKeys}, {"AllowRepeats", c.AllowRepeats}, {"ReplayTiming", c.ReplayTiming}, {"Match", c.Match != nil}} {
			if f.set {
				return fmt.Errorf("proxy: Config.%s applies to recordings being replayed; Mode %s replays none", f.name, c.Mode)
			}
		}
	}
	if c.Match != nil && c.ConformanceKeys {
		return errors.New("proxy: Config.Match and Config.ConformanceKeys both say how to match: set one")
	}
	if c.Dir == "" && c.Mode != ModeReplay && c.Mode != ModePassthrough {
		return fmt.Errorf("proxy: Config.Dir is empty: Mode %s writes cassettes and needs their folder (only ModeReplay defaults to %s)", c.Mode, defaultDir)
	}
	return nil
}

// role is what a cassette's tape does with requests, fixed when it is
// opened; the modes are defined by it.
type role struct {
	replaying bool // answers from its recordings
	recording bool // forwards what has no recording
	persist   bool // keeps and writes what it forwards
	replace   bool // what it writes replaces the cassette (else it is added)
	// strict: a request that differs from its recording, or has none, and
	// a recording no request used, fail the run.
	strict bool
	// refresh: a session is re-recorded from its first request that does
	// not match (refresh.go).
	refresh bool
}

// roleFor is the role of a cassette under the configured mode; exists
// says whether the cassette was found on disk (record modes that read it).
func (c *Config) roleFor(exists bool) role {
	switch c.Mode {
	case ModeReplay:
		return role{replaying: true, strict: !c.Lenient}
	case ModeRecordOnce:
		if exists {
			return role{replaying: true, strict: true}
		}
		return role{recording: true, persist: true, replace: true}
	case ModeRecordNewEpisodes:
		return role{replaying: true, recording: true, persist: true}
	case ModeRecordRefresh:
		return role{replaying: true, recording: true, persist: true, refresh: true}
	case ModePassthrough:
		return role{recording: true}
	}
	return role{recording: true, persist: true, replace: true} // ModeRecord
}

// readsExisting: the record mode starts from the cassette on disk.
func (c *Config) readsExisting() bool {
	return c.Mode == ModeRecordOnce || c.Mode == ModeRecordNewEpisodes || c.Mode == ModeRecordRefresh
}

// reportMode is the mode as reports and the health check name it: record
// or replay (report.schema.json).
func (c *Config) reportMode() string {
	if c.Mode == ModeReplay {
		return string(ModeReplay)
	}
	return string(ModeRecord)
}

// Failure says whether the run failed by its mode's rules. Under a mode
// that replays strictly (ModeReplay without Lenient, and ModeRecordOnce on
// a cassette that exists) any request that differs from its recording or
// has none fails the run, and so does, once Close has counted them, any
// recording no request used. Lenient replay and the other record modes
// never fail a run here. In every mode an answer over MaxBody, passed on
// but not recorded, fails the run, and so does an exchange BeforeSave
// failed on. A request refused because it could not be recorded (its
// cassette or journal is a link, or the journal could not take it) fails
// it too, with an error that also matches cassettes.ErrWrite. It returns
// nil, or an error wrapping ErrRunFailed with the counts.
func (s *Server) Failure() error {
	if err := s.oversized.failure(s.cfg.Hints.TooLarge); err != nil {
		return err
	}
	if err := s.refused.failure(); err != nil {
		return err
	}
	if err := s.unwritten.failure(); err != nil {
		return err
	}
	if n := s.closedWorldMisses.Load(); n > 0 {
		return fmt.Errorf("%w (closed world): %d tool request(s) neither recorded nor faked", ErrRunFailed, n)
	}
	if !s.cfg.roleFor(true).strict {
		return nil
	}
	st := s.Stats()
	if st.Mismatched+st.Unmatched+st.Unused == 0 {
		return nil
	}
	how := "strict replay"
	if s.cfg.Mode != ModeReplay {
		how = "mode " + string(s.cfg.Mode)
	}
	return fmt.Errorf("%w (%s): %d mismatched, %d unmatched, %d unused", ErrRunFailed, how, st.Mismatched, st.Unmatched, st.Unused)
}
