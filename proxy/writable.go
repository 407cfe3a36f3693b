package proxy

import (
	"github.com/adkproxy/adkproxy/cassettes"
)

// checkWritable refuses, before anything is forwarded, a cassette that
// could not be written safely: its file, journal or a folder between them
// and the cassettes folder is a symbolic link. Callers hold s.mu.
func (s *Server) checkWritable(name, path string) error {
	if s.cfg.RecordMode == RecordPassthrough {
		return nil // writes nothing
	}
	for _, p := range []string{path, cassettes.JournalPath(path)} {
		if err := cassettes.CheckNoSymlinks(s.cfg.Dir, p); err != nil {
			s.log.Error("cassette refused", "cassette", name, "error", err.Error())
			return err
		}
	}
	return nil
}
