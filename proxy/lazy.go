// Lazy replay: a cassette is read when a request first names it, so a run
// pays only for the cassettes it uses and a broken cassette fails only the
// requests for it (Config.CheckAll reads them all up front instead).

package proxy

import (
	"errors"
	"fmt"
	"slices"

	"github.com/adkproxy/adkproxy/cassettes"
)

// replayTape is tapeFor in replay mode.
func (s *Server) replayTape(name, path string) (*tape, error) {
	s.mu.Lock()
	t := s.tapes[name]
	s.mu.Unlock()
	if t != nil || s.cfg.CheckAll {
		return t, nil
	}
	v, err, _ := s.opening.Do(name, func() (any, error) { return s.openReplay(name, path) })
	t, _ = v.(*tape)
	return t, err
}

// openReplay reads cassette name and serves it from now on; a nil tape
// means there is no such cassette. Concurrent first requests for one name
// share one call (replayTape).
func (s *Server) openReplay(name, path string) (*tape, error) {
	c, err := s.findCassette(name, path)
	if c == nil {
		if err != nil {
			s.mu.Lock()
			if s.fatal == nil {
				s.fatal = err
			}
			s.mu.Unlock()
		}
		return nil, err
	}
	s.logWarnings(c)
	t := newTape(name, c.File, s.m, c.Exchanges)
	t.role = s.cfg.roleFor(true)
	s.mu.Lock()
	defer s.mu.Unlock()
	if cur := s.tapes[name]; cur != nil {
		return cur, nil // Watch put a fresher version in meanwhile
	}
	s.tapes[name] = t
	return t, nil
}

// findCassette loads the cassette called name: from the file its name
// gives (where adkproxy writes it), else from whichever file in the folder
// declares that name (a file moved or renamed by hand). nil, nil: there is
// none.
func (s *Server) findCassette(name, path string) (*cassettes.Cassette, error) {
	c, err := cassettes.Load(path)
	switch {
	case err == nil && storedName(s.cfg.Dir, path, c) == name:
		return c, nil
	case err != nil && !errors.Is(err, cassettes.ErrNotFound):
		return nil, fmt.Errorf("cannot read cassette %q: %w", name, err)
	}
	files := s.folderNames()[name]
	switch {
	case len(files) == 0:
		return nil, nil
	case len(files) > 1:
		return nil, &cassettes.FormatError{File: files[1], Err: cassettes.ErrCorrupt,
			Msg: fmt.Sprintf("cassette name %q is also used by %s; rename one", name, files[0])}
	}
	c, err = cassettes.Load(files[0])
	if errors.Is(err, cassettes.ErrNotFound) {
		return nil, nil // removed since the folder was listed
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read cassette %q: %w", name, err)
	}
	return c, nil
}

// storedName is the name a loaded cassette serves under (LoadDir's rule).
func storedName(dir, path string, c *cassettes.Cassette) string {
	if c.Name != "" {
		return c.Name
	}
	return cassettes.NameFromPath(dir, path)
}

// folderNames maps each cassette name in the folder to the files that
// declare it, read from the top of each file. It is read afresh each time:
// only a request for a cassette that is not where its name puts it, and
// listings for messages, need it.
func (s *Server) folderNames() map[string][]string {
	names := map[string][]string{}
	files, err := cassettes.Files(s.cfg.Dir)
	if err != nil {
		s.log.Warn("cannot list the cassette folder", "dir", s.cfg.Dir, "error", err.Error())
		return names
	}
	for _, f := range files {
		if name, ok, _ := cassettes.StoredName(s.cfg.Dir, f); ok {
			names[name] = append(names[name], f)
		}
	}
	for _, fs := range names {
		slices.Sort(fs)
	}
	return names
}
