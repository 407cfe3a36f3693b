// What a tape does when its journal outlives a failed save, and logging what a load left out.

package proxy

import "github.com/adkproxy/adkproxy/cassettes"

// saveFailed marks the tape's journal incomplete: it outlives a save that
// failed, and must not then replace the cassette as last saved.
func (t *tape) saveFailed() {
	t.mu.Lock()
	j := t.journal
	t.mu.Unlock()
	if j != nil {
		j.MarkIncomplete()
	}
}

// logWarnings passes on what loading a cassette left out.
func (s *Server) logWarnings(c *cassettes.Cassette) {
	for _, w := range c.Warnings {
		s.log.Warn("cassette loaded without part of its journal", "cassette", c.Name, "detail", w)
	}
}
