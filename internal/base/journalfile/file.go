// Package journalfile is the recording journal's file: a synced,
// append-only file beside a cassette that keeps each finished exchange safe
// until the YAML is saved. It knows the file's name, header, records and
// durability, not what a record holds: proxy's recorder writes exchanges
// into it (internal/engine/journal), and cassettes.Load reads a leftover
// one back after a crash.
package journalfile

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/adkproxy/adkproxy/internal/base/safefile"
)

// A journal makes recording crash-safe. Each completed exchange is appended
// to a hidden file beside the cassette and synced before the client sees
// the end of the response; the cassette YAML is written at shutdown, after
// which the journal is deleted. A SIGKILL therefore loses only exchanges
// still in flight, and Load folds a leftover journal back in.
//
// The first line says whether the journal replaces the cassette (record
// --mode overwrite) or extends it, and names the YAML it started from by
// its SHA-256 ("none" when there was none). Once the YAML has been saved
// its hash changes, so a journal that outlived its save (a crash between
// the two) is recognised as stale and ignored instead of duplicated.
//
// It also says whether the journal is complete: "complete=1" when it is
// made, overwritten in place with "complete=0" (one byte, so it works on
// a full disk) as soon as the run knows the journal is not the whole
// recording: an exchange the run keeps could not be appended (a secret
// refused, Live frames the proxy keeps in memory) or the save at exit
// failed. An append that fails on a full disk leaves the journal whole:
// its exchange is not kept, and its client is told. A complete
// journal is what a crash left, and Load folds it in as its mode says. An
// incomplete one never replaces a saved cassette (see cassettes'
// foldJournal).
const (
	Magic   = "adkproxy-journal 2"
	MagicV1 = "adkproxy-journal 1" // no completeness field; complete
)

const completeField = "complete="

// suffix ends journal file names; the leading dot hides them.
const suffix = ".journal"

// cassetteExtension ends a cassette's file name (cassettes.Extension).
const cassetteExtension = ".yaml"

// Path is the journal of the cassette at path: ".<name>.yaml.journal".
func Path(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+suffix)
}

// CassettePathOf inverts Path, or returns "" for other names.
func CassettePathOf(journal string) string {
	base := filepath.Base(journal)
	if !strings.HasPrefix(base, ".") || !strings.HasSuffix(base, cassetteExtension+suffix) {
		return ""
	}
	return filepath.Join(filepath.Dir(journal), strings.TrimSuffix(base[1:], suffix))
}

// Has reports whether a journal (or a link in its place) exists beside
// the cassette at path.
func Has(path string) bool {
	_, err := os.Lstat(Path(path))
	return err == nil
}

// File appends records durably. Safe for concurrent use: records appended
// at the same time share one write and one fsync (see Append).
type File struct {
	mu         sync.Mutex  // held for every use of the file
	f          *os.File    // nil while released (see Release)
	info       os.FileInfo // the file it started, which reopen insists on
	path       string
	flagAt     int64 // offset of the completeness digit
	incomplete bool
	end        int64 // where the next record goes: the records' end
	ready      int64 // the file's size: zeros from end to here (prewrite.go)

	queue groupQueue // records waiting for the committer (group.go)
}

// Open starts a new journal for the cassette at path, named name, which
// replaces the cassette when replace is set and extends it otherwise. A
// leftover journal is settled first (Settle): removed only when its
// records are already in the YAML or it holds none, else set aside; one
// that cannot be read is refused (ErrUnreadable). Callers that fold a
// leftover journal in call Settle themselves once the cassette is saved.
func Open(path, name string, replace bool) (*File, error) {
	base, err := fileHash(path)
	if err != nil {
		return nil, fmt.Errorf("%w: journal for %s: %v", safefile.ErrWrite, path, err)
	}
	mode := "extend"
	if replace {
		mode = "replace"
	}
	jp := Path(path)
	if err := os.MkdirAll(filepath.Dir(jp), 0o755); err != nil {
		return nil, fmt.Errorf("%w: %v", safefile.ErrWrite, err)
	}
	if _, err := Settle(path, false); err != nil {
		return nil, err
	}
	f, err := safefile.CreateFresh(jp)
	if errors.Is(err, safefile.ErrSymlink) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", safefile.ErrWrite, err)
	}
	quoted, _ := json.Marshal(name)
	prefix := fmt.Sprintf("%s %s %s", Magic, mode, completeField)
	header, err := fmt.Fprintf(f, "%s1 %s %s\n", prefix, base, quoted)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%w: %v", safefile.ErrWrite, err)
	}
	j := &File{f: f, path: jp, flagAt: int64(len(prefix)), end: int64(header)}
	j.prewrite() // synced with the header: the first records are data-only
	if err := f.Sync(); err != nil {
		f.Close()
		return nil, fmt.Errorf("%w: %v", safefile.ErrWrite, err)
	}
	safefile.SyncDir(filepath.Dir(jp))
	if j.info, err = f.Stat(); err != nil {
		f.Close()
		return nil, fmt.Errorf("%w: %v", safefile.ErrWrite, err)
	}
	return j, nil
}

// Path is the journal file's path.
func (j *File) Path() string { return j.path }

// MarkIncomplete records in the journal that it does not hold the whole
// recording (an exchange missed it, or saving the cassette failed), so a
// later Load never lets it replace the saved cassette.
func (j *File) MarkIncomplete() {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.incomplete {
		return
	}
	j.incomplete = true
	f := j.f
	if f == nil { // released: open it again, insisting on the same file
		var err error
		if f, err = os.OpenFile(j.path, os.O_WRONLY|safefile.NoFollow, 0); err != nil {
			return
		}
		defer f.Close()
		if info, err := f.Stat(); err != nil || !os.SameFile(info, j.info) {
			return
		}
	}
	if _, err := f.WriteAt([]byte("0"), j.flagAt); err == nil {
		f.Sync()
	}
}

// Remove closes and deletes the journal, once its cassette is saved.
func (j *File) Remove() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.release()
	if err := os.Remove(j.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	safefile.SyncDir(filepath.Dir(j.path))
	return nil
}

// Close closes the journal and keeps the file.
func (j *File) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.release()
}

// Release closes the journal's file between appends; the next Append
// opens it again. Appends release it themselves once none is waiting, so a
// recording into many cassettes does not hold a descriptor for each.
func (j *File) Release() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.release()
}

func (j *File) release() error {
	if j.f == nil {
		return nil
	}
	err := j.f.Close()
	j.f = nil
	return err
}

// reopen opens a released journal for appending, refusing a path that no
// longer names the file the journal started (replaced, or made a link).
func (j *File) reopen() error {
	if j.f != nil {
		return nil
	}
	// Not O_APPEND: records go at j.end, before the prewritten tail, and
	// the completeness flag is overwritten in place.
	f, err := os.OpenFile(j.path, os.O_WRONLY|safefile.NoFollow, 0)
	if err != nil {
		return fmt.Errorf("%w: journal %s: %v", safefile.ErrWrite, j.path, err)
	}
	if info, err := f.Stat(); err != nil || !os.SameFile(info, j.info) {
		f.Close()
		return fmt.Errorf("%w: journal %s was replaced while recording", safefile.ErrWrite, j.path)
	}
	j.f = f
	return nil
}

// fileHash is the SHA-256 of a file, or "none" when it does not exist.
func fileHash(path string) (string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "none", nil
	}
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}
