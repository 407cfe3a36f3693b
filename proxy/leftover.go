// The journal a killed recording left beside a cassette, dealt with before
// this run starts one of its own: folded in and removed, kept under
// another name, or refused (internal/base/journalfile's Settle).

package proxy

import (
	"errors"
	"fmt"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/journalfile"
)

// settleLeftover saves the cassette with the leftover journal folded in
// (fold, nil when this mode does not read the cassette), then removes the
// journal only if it was read back whole; any other is kept under another
// name, which the log names. A journal that cannot be read (over the size
// cap, a FIFO) refuses the cassette as an unreadable cassette is (exit
// 65), naming the file and what to do. Callers hold s.mu.
func (s *Server) settleLeftover(name, path string, fold func() error) error {
	if fold != nil {
		if err := fold(); err != nil {
			return fmt.Errorf("cannot fold the leftover journal of cassette %q: %v", name, err)
		}
	}
	kept, err := journalfile.Settle(path, fold != nil)
	var unreadable *journalfile.UnreadableError
	switch {
	case errors.As(err, &unreadable):
		return s.refuseUnreadable(name, unreadable)
	case err != nil:
		s.unwritten.add(err)
		return fmt.Errorf("cannot record cassette %q: %v", name, err)
	case kept != "":
		s.log.Warn("leftover journal kept under another name: it was not read back whole into the cassette (not a journal, bytes after its last whole record, marked incomplete, or this mode does not read the cassette); nothing reads or deletes it",
			"cassette", name, "journal", journalfile.Path(path), "kept", kept)
	}
	return nil
}

// refuseUnreadable refuses cassette name for its leftover journal that
// cannot be read: the run fails as for an unreadable cassette (exit 65).
// Callers hold s.mu.
func (s *Server) refuseUnreadable(name string, unreadable *journalfile.UnreadableError) error {
	err := &cassettes.FormatError{File: unreadable.File, Msg: unreadable.Reason, Err: cassettes.ErrCorrupt}
	if s.fatal == nil {
		s.fatal = err
	}
	s.log.Error("cassette refused", "cassette", name, "error", err.Error())
	return fmt.Errorf("cannot record cassette %q: %v", name, err)
}
