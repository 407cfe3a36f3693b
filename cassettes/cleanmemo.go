// The bodies a redactor already found clean: a replayed test sends the same
// request bytes again and again, and each scan of a 4 KB body for every form
// of every secret cost more than the rest of the replay handler.

package cassettes

import (
	"bytes"
	"hash/maphash"
	"sync"
)

const (
	// memoMinLen: shorter bodies are scanned (a hash would cost as much).
	memoMinLen = 256
	// memoMaxBytes bounds the bodies kept; when full, the memo starts over.
	memoMaxBytes = 8 << 20
)

// cleanMemo remembers bodies in which no needle occurs. A body is kept the
// second time it is found clean (the first time only its hash is), so
// traffic that never repeats (recording) costs a hash, not a copy. It holds
// for one set of needles: rebuild resets it.
type cleanMemo struct {
	mu    sync.Mutex
	seed  maphash.Seed
	once  map[uint64]bool   // hashes of bodies found clean once
	clean map[uint64][]byte // bodies found clean twice, by hash
	size  int               // bytes held in clean and once
}

func (m *cleanMemo) reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.once, m.clean, m.size = nil, nil, 0
}

// hash is b's key in the memo; ok is false when b is too short to be kept.
func (m *cleanMemo) hash(b []byte) (h uint64, ok bool) {
	if len(b) < memoMinLen {
		return 0, false
	}
	m.mu.Lock()
	if m.clean == nil {
		m.seed = maphash.MakeSeed()
		m.once, m.clean = map[uint64]bool{}, map[uint64][]byte{}
	}
	seed := m.seed
	m.mu.Unlock()
	return maphash.Bytes(seed, b), true
}

// isClean reports whether b, hashing to h, is a body found clean before.
func (m *cleanMemo) isClean(h uint64, b []byte) bool {
	m.mu.Lock()
	kept, ok := m.clean[h]
	m.mu.Unlock()
	return ok && bytes.Equal(kept, b)
}

// noteClean records that b, hashing to h, holds no needle.
func (m *cleanMemo) noteClean(h uint64, b []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.clean == nil { // reset since hash
		return
	}
	if !m.once[h] {
		if m.size+8 > memoMaxBytes {
			m.once, m.clean, m.size = map[uint64]bool{}, map[uint64][]byte{}, 0
		}
		m.once[h] = true
		m.size += 8
		return
	}
	if _, ok := m.clean[h]; ok {
		return // a collision with another clean body: keep the first
	}
	if m.size+len(b) > memoMaxBytes {
		m.once, m.clean, m.size = map[uint64]bool{h: true}, map[uint64][]byte{}, 8
	}
	m.clean[h] = bytes.Clone(b)
	m.size += len(b)
}
