// What a recording does with a leftover journal before it starts one of
// its own: it deletes only a journal it read back whole (or one that holds
// nothing), keeps any other under another name, and refuses one it cannot
// read at all. Nothing a killed recording left is lost to the next one.

package journalfile

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/adkproxy/adkproxy/internal/base/safefile"
	"github.com/adkproxy/adkproxy/internal/base/userfile"
)

// ErrUnreadable: a leftover journal adkproxy cannot read (over the size
// cap, or not a regular file). It is never touched; recording refuses to
// start over it, as loading does. Settle's error is an *UnreadableError.
var ErrUnreadable = errors.New("leftover journal cannot be read")

// UnreadableError names a leftover journal that cannot be read and why.
type UnreadableError struct {
	File   string
	Reason string // why, and what to do
}

func (e *UnreadableError) Error() string        { return e.File + ": " + e.Reason }
func (e *UnreadableError) Is(target error) bool { return target == ErrUnreadable }

func unreadable(jp string, err error) error {
	return &UnreadableError{File: jp, Reason: err.Error() + "; " + unreadableHint}
}

// unreadableHint says what to do about an unreadable journal.
const unreadableHint = "it is a recording journal, which may hold a killed recording's exchanges, and adkproxy neither reads nor deletes it: move it out of the cassettes folder (keep it if the recording matters), then run again"

// unreadSuffix names a journal set aside because no load read it back
// whole: "<journal>.unread-<UTC time>". Nothing reads or deletes it.
const unreadSuffix = ".unread-"

// incompleteSuffix names a journal marked incomplete, set aside: it may
// hold exchanges a load left out (see File.MarkIncomplete).
const incompleteSuffix = ".incomplete-"

// Settle clears the way for a new journal of the cassette at path. folded
// says the caller has saved the cassette with the leftover journal folded
// in (cassettes.Load read it). A journal is removed only when every byte
// of it was read back: its header and every record whole and either
// folded or already in the YAML (stale), or it holds nothing (a journal
// cut before its header was synced: empty, zeros, part of a header).
// Any other (not a journal, bytes after its last whole record, marked
// incomplete, never folded in) is renamed, and Settle returns its new
// name. A journal that cannot be read is left as it is, with an error
// matching ErrUnreadable that names it; a link is left alone (writing
// through it is refused elsewhere).
func Settle(path string, folded bool) (keptAs string, err error) {
	jp := Path(path)
	info, err := os.Lstat(jp)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", nil
	case err != nil:
		return "", unreadable(jp, err)
	case info.Mode()&fs.ModeSymlink != 0:
		return "", nil
	}
	if err := userfile.Check(info, safefile.MaxSize); err != nil {
		return "", unreadable(jp, err) // a FIFO would block, a device never end
	}
	data, err := safefile.ReadNoFollow(jp)
	if err != nil {
		return "", unreadable(jp, err)
	}
	suffix, keep := unreadSuffix, false
	h, ok := parseHeader(data)
	switch {
	case !ok:
		keep = !holdsNothing(data)
	case h.incomplete:
		suffix, keep = incompleteSuffix, true
	case Each(data[h.size:], func([]byte) bool { return true }) > 0:
		keep = true // bytes after the last whole record: not read back
	case !folded && len(bytes.TrimRight(data[h.size:], "\x00")) > 0:
		base, err := fileHash(path)
		keep = err != nil || base == h.base // not in the YAML yet
	}
	if keep {
		kept := jp + suffix + time.Now().UTC().Format("20060102T150405.000000000Z")
		if err := os.Rename(jp, kept); err != nil {
			return "", fmt.Errorf("%w: cannot set the leftover journal %s aside: %v", safefile.ErrWrite, jp, err)
		}
		safefile.SyncDir(filepath.Dir(jp))
		return kept, nil
	}
	if err := os.Remove(jp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%w: %v", safefile.ErrWrite, err)
	}
	safefile.SyncDir(filepath.Dir(jp))
	return "", nil
}

// holdsNothing: the bytes of a journal cut before its header was synced,
// which can hold no record: zeros, or the start of a header line.
func holdsNothing(data []byte) bool {
	cut := bytes.TrimRight(data, "\x00")
	if bytes.IndexByte(cut, '\n') >= 0 {
		return false
	}
	return bytes.HasPrefix([]byte(Magic), cut) || bytes.HasPrefix(cut, []byte(Magic+" "))
}
