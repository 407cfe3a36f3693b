// Scanning for secrets what is written in pieces, for a record too large
// to hold in memory (the recording journal's large exchanges).

package cassettes

import (
	"fmt"
	"io"
)

// ScanStream is Scan of everything write writes, without holding it: each
// piece is searched together with the end of the one before, so a secret
// split between two is still found. An error of write is returned as it
// is.
func (r *Redactor) ScanStream(write func(w io.Writer) error) error {
	s := r.newStreamScan()
	if err := write(s); err != nil {
		return err
	}
	return s.err
}

// streamScan is Redactor.Scan over data arriving in pieces: each piece is
// searched together with the end of the one before, so a secret split
// between two is still found.
type streamScan struct {
	needles []needle
	keep    int
	tail    []byte
	err     error
}

func (r *Redactor) newStreamScan() *streamScan {
	r.mu.RLock()
	defer r.mu.RUnlock()
	s := &streamScan{needles: append([]needle(nil), r.needles...)}
	for _, n := range s.needles {
		s.keep = max(s.keep, len(n.form)+len(Placeholder))
	}
	return s
}

func (s *streamScan) Write(p []byte) (int, error) {
	if s.err != nil || len(s.needles) == 0 {
		return len(p), nil
	}
	window := append(s.tail, p...)
	for _, n := range s.needles {
		if find(window, n.form, 0) >= 0 {
			s.err = fmt.Errorf("%w: %s appears in the exchange; nothing was written", ErrSecretLeak, n.label)
			return len(p), nil
		}
	}
	s.tail = append(s.tail[:0], window[max(0, len(window)-s.keep):]...)
	return len(p), nil
}
