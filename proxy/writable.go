// Refusing, before anything is forwarded, a cassette that could not be written safely.

package proxy

import (
	"errors"
	"fmt"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/journalfile"
)

// checkWritable refuses, before anything is forwarded, a cassette that
// could not be written safely: another name already uses its file (the
// name to file mapping is many to one for names that look hashed, like
// "a_b-1234abcd"), or its file, journal or a folder between them and the
// cassettes folder is a symbolic link. Callers hold s.mu.
func (s *Server) checkWritable(name, path string) error {
	if s.cfg.Mode == ModePassthrough {
		return nil // writes nothing
	}
	for _, p := range []string{path, journalfile.Path(path)} {
		if err := cassettes.CheckNoSymlinks(s.cfg.Dir, p); err != nil {
			s.log.Error("cassette refused", "cassette", name, "error", err.Error())
			return err
		}
	}
	return s.checkSameFile(name, path)
}

// checkSameFile refuses a name whose file holds, or is being recorded
// for, another cassette name.
func (s *Server) checkSameFile(name, path string) error {
	clash := func(other string) error {
		return fmt.Errorf("%w: cassette %s would be written to %s, which holds cassette %s. Rename one of the cassettes (test names)",
			errNameClash, cassettes.ShortName(name), path, cassettes.ShortName(other))
	}
	for _, t := range s.tapes {
		if t.path == path && t.name != name {
			return clash(t.name)
		}
	}
	stored, ok, err := cassettes.StoredName(s.cfg.Dir, path)
	var unreadable *journalfile.UnreadableError
	if errors.As(err, &unreadable) { // a leftover journal, and no YAML
		return s.refuseUnreadable(name, unreadable) // leftover.go
	}
	if err != nil {
		return fmt.Errorf("cannot read cassette %s: %w", cassettes.ShortName(name), err)
	}
	if ok && stored != name {
		return clash(stored)
	}
	return nil
}
