// Modes: the three mode types, parsing them, what each makes a cassette do
// with requests, and when a run under it has failed.
package proxy

import (
	"errors"
	"fmt"
	"strings"
)

// Mode is what the proxy does with each request.
type Mode string

const (
	// ModeRecord forwards requests upstream and writes what happened into
	// the cassette; RecordMode says what happens to a cassette that exists.
	ModeRecord Mode = "record"
	// ModeReplay answers only from cassettes and never contacts the
	// upstream; a request that was not recorded gets a 400 error.
	ModeReplay Mode = "replay"
)

// RecordMode says what record does with a cassette that already exists and
// with requests it has no recording for.
type RecordMode string

const (
	// RecordOverwrite (default): every request is forwarded and recorded;
	// a cassette used in the run is replaced by what this run recorded.
	RecordOverwrite RecordMode = "overwrite"
	// RecordOnce: a cassette that exists is replayed strictly (a request
	// without a recording is an error and fails the run, as in strict
	// replay) and left unchanged; one that does not is recorded.
	RecordOnce RecordMode = "once"
	// RecordNewEpisodes: requests with a recording are replayed from it;
	// requests without one are forwarded and added to the cassette.
	RecordNewEpisodes RecordMode = "new-episodes"
	// RecordPassthrough: every request is forwarded and nothing is written.
	RecordPassthrough RecordMode = "passthrough"
)

// ReplayMode says what replay does when a request differs from the
// recording at its place in the conversation.
type ReplayMode string

const (
	// ReplayStrict (default): the request gets a 400 error naming each
	// differing field, and the run fails (see Server.Failure).
	ReplayStrict ReplayMode = "strict"
	// ReplayLenient: the recorded response at that place is served anyway
	// and the difference is reported as a warning; the run passes.
	ReplayLenient ReplayMode = "lenient"
)

// ErrUnknownMode is wrapped by the errors of ParseMode, ParseRecordMode,
// ParseReplayMode and New for a mode name that is not one of the above.
var ErrUnknownMode = errors.New("unknown mode")

// ErrRunFailed is wrapped by Server.Failure when the run failed by its
// mode's rules.
var ErrRunFailed = errors.New("run failed")

// ParseMode checks a mode name: record or replay.
func ParseMode(s string) (Mode, error) {
	return parse(s, "mode", ModeRecord, ModeReplay)
}

// ParseRecordMode checks a record mode name: overwrite, once, new-episodes
// or passthrough.
func ParseRecordMode(s string) (RecordMode, error) {
	return parse(s, "record mode", RecordOverwrite, RecordOnce, RecordNewEpisodes, RecordPassthrough)
}

// ParseReplayMode checks a replay mode name: strict or lenient.
func ParseReplayMode(s string) (ReplayMode, error) {
	return parse(s, "replay mode", ReplayStrict, ReplayLenient)
}

func parse[M ~string](s, what string, known ...M) (M, error) {
	for _, m := range known {
		if string(m) == s {
			return m, nil
		}
	}
	names := make([]string, len(known))
	for i, m := range known {
		names[i] = string(m)
	}
	return "", fmt.Errorf("%s %q: %w (want %s)", what, s, ErrUnknownMode, orList(names))
}

// orList joins names as "a, b or c".
func orList(names []string) string {
	last := len(names) - 1
	if last == 0 {
		return names[0]
	}
	return strings.Join(names[:last], ", ") + " or " + names[last]
}

// validate checks the configured modes; the zero values are already the
// defaults.
func (c *Config) validate() error {
	if _, err := ParseMode(string(c.Mode)); err != nil {
		return err
	}
	if _, err := ParseRecordMode(string(c.RecordMode)); err != nil {
		return err
	}
	if _, err := ParseReplayMode(string(c.ReplayMode)); err != nil {
		return err
	}
	_, err := ParseMatchMode(string(c.Match))
	return err
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
}

// roleFor is the role of a cassette under the configured modes; exists
// says whether the cassette was found on disk (record modes that read it).
func (c *Config) roleFor(exists bool) role {
	if c.Mode == ModeReplay {
		return role{replaying: true, strict: c.ReplayMode == ReplayStrict}
	}
	switch c.RecordMode {
	case RecordOnce:
		if exists {
			return role{replaying: true, strict: true}
		}
		return role{recording: true, persist: true, replace: true}
	case RecordNewEpisodes:
		return role{replaying: true, recording: true, persist: true}
	case RecordPassthrough:
		return role{recording: true}
	}
	return role{recording: true, persist: true, replace: true} // RecordOverwrite
}

// readsExisting: the record mode starts from the cassette on disk.
func (c *Config) readsExisting() bool {
	return c.RecordMode == RecordOnce || c.RecordMode == RecordNewEpisodes
}

// Failure says whether the run failed by its mode's rules. Under a mode
// that replays strictly (strict replay, and record once on a cassette that
// exists) any request that differs from its recording or has none fails
// the run, and so does, once Close has counted them, any recording no
// request used. Lenient replay and the other record modes never fail a run
// here. In every mode an answer over MaxBody, passed on but not recorded,
// fails the run. It returns nil, or an error wrapping ErrRunFailed with the counts.
func (s *Server) Failure() error {
	if err := s.oversized.failure(s.cfg.Hints.TooLarge); err != nil {
		return err
	}
	if !s.cfg.roleFor(true).strict {
		return nil
	}
	st := s.Stats()
	if st.Mismatched+st.Unmatched+st.Unused == 0 {
		return nil
	}
	how := string(s.cfg.ReplayMode) + " replay"
	if s.cfg.Mode == ModeRecord {
		how = "record mode " + string(s.cfg.RecordMode)
	}
	return fmt.Errorf("%w (%s): %d mismatched, %d unmatched, %d unused", ErrRunFailed, how, st.Mismatched, st.Unmatched, st.Unused)
}
