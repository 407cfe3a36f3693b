// Which request headers carry credentials to learn, remembered by name:
// every request asks about each of its headers.

package cassettes

import (
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
)

// learnNames remembers learnsFrom's answers by header name as sent, up to
// maxCredentialNamesHeld names (a peer making up names cannot push past
// it). KeepHeader changes the answers, so it forgets them; callers of
// forget hold the redactor's write lock.
type learnNames struct {
	names sync.Map // name -> bool
	held  atomic.Int64
}

func (l *learnNames) forget() {
	l.names.Clear()
	l.held.Store(0)
}

// learnsFrom reports whether the values of header name are credentials to
// learn: a header dropped as a secret (dropsHeader), not one merely never
// stored. Working it out canonicalises the name twice and matches it
// against the credential rules; a replayed request asks it for each of
// its headers, so the answer is remembered.
func (r *Redactor) learnsFrom(name string) bool {
	if known, ok := r.headers.names.Load(name); ok {
		return known.(bool)
	}
	canonical := http.CanonicalHeaderKey(name)
	// Worked out and stored under the read lock: KeepHeader, which
	// changes the answer, forgets them under the write lock.
	r.mu.RLock()
	defer r.mu.RUnlock()
	is := !slices.Contains(droppedHeaders, canonical) && r.dropsHeaderLocked(canonical)
	if r.headers.held.Add(1) <= maxCredentialNamesHeld {
		r.headers.names.Store(name, is)
	}
	return is
}
