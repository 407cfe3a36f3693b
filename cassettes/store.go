// Cassette files on disk: finding them in a folder, loading them (with a
// leftover journal folded in) and saving them atomically.

package cassettes

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/adkproxy/adkproxy/internal/base/journalfile"
	"github.com/adkproxy/adkproxy/internal/base/safefile"
	"github.com/adkproxy/adkproxy/internal/base/setaside"
)

// maxFileSize bounds what Load reads, so a mistaken path (or a hostile
// file) cannot exhaust memory.
const maxFileSize = safefile.MaxSize

// Load reads the cassette file at path, together with a journal a
// recording left beside it when it was killed (.NAME.yaml.journal): its
// exchanges are folded in as docs/cassette-format.md says (Journals).
// Exchanges with the same headers may share one header map: treat the maps
// as read-only (Clone one to change it). A file whose loading would not fit
// in the memory left (about twice its size) is refused.
func Load(path string) (*Cassette, error) {
	c, err := loadYAML(path)
	j, jerr := readJournal(path)
	if jerr != nil {
		msg := jerr.Error()
		var unreadable *journalfile.UnreadableError
		if errors.As(jerr, &unreadable) {
			msg = unreadable.Reason // what to do about a journal, not a cassette
		}
		return nil, &FormatError{File: journalfile.Path(path), Msg: msg, Err: ErrCorrupt}
	}
	if j == nil || j.stale {
		return c, err
	}
	saved := err == nil
	switch {
	case errors.Is(err, ErrNotFound):
		c = &Cassette{Name: j.name}
	case err != nil:
		return nil, err
	}
	foldJournal(c, j, journalfile.Path(path), saved)
	c.File = path
	return c, nil
}

func loadYAML(path string) (*Cassette, error) {
	f, err := openRegular(path, maxFileSize) // regular.go
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s does not exist", ErrNotFound, path)
	}
	if err != nil {
		return nil, &FormatError{File: path, Msg: err.Error(), Err: ErrCorrupt}
	}
	defer f.Close()
	if info, err := f.Stat(); err == nil {
		if err := checkFits(path, info.Size()); err != nil { // fits.go
			return nil, err
		}
	}
	c, err := readSplit(path, f, maxFileSize, minRun)
	if errors.Is(err, errNotSplit) {
		c, err = readWhole(path, f)
	}
	if err != nil {
		var fe *FormatError
		if !errors.As(err, &fe) {
			err = &FormatError{File: path, Msg: err.Error(), Err: ErrCorrupt}
		}
		return nil, err
	}
	c.File = path
	return c, nil
}

func errTooLarge(limit int64) error {
	return fmt.Errorf("larger than %d bytes; split the cassette", limit)
}

// readWhole reads f again from its start as one document.
func readWhole(path string, f *os.File) (*Cassette, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	// One buffer of the file's size: growing one would allocate (and
	// clear) about twice that.
	var buf bytes.Buffer
	if info, err := f.Stat(); err == nil && info.Size() > 0 && info.Size() <= maxFileSize {
		buf.Grow(int(info.Size()) + bytes.MinRead)
	}
	if _, err := buf.ReadFrom(io.LimitReader(f, maxFileSize+1)); err != nil {
		return nil, err
	}
	if buf.Len() > maxFileSize {
		return nil, errTooLarge(maxFileSize)
	}
	doc, _, err := decodeDocument(path, buf.Bytes())
	if err != nil {
		return nil, err
	}
	return &doc.Cassette, nil
}

// NameFromPath is the name of a cassette file that has no name field: its
// path below the cassette folder, with "/" separators and no extension.
func NameFromPath(dir, path string) string {
	rel, err := filepath.Rel(dir, path)
	if err != nil {
		rel = filepath.Base(path)
	}
	return strings.TrimSuffix(filepath.ToSlash(rel), Extension)
}

// CheckFolder returns nil when dir is a folder that can hold cassettes,
// else an error matching ErrNotFound (a *MissingFolderError when it does
// not exist).
func CheckFolder(dir string) error {
	info, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return &MissingFolderError{Dir: dir}
	}
	if err != nil {
		return fmt.Errorf("%w: cassette folder %s: %v", ErrNotFound, dir, err)
	}
	if !info.IsDir() {
		return fmt.Errorf("%w: %s is not a folder", ErrNotFound, dir)
	}
	return nil
}

// Files lists the cassette files LoadDir reads below dir, in walk order:
// every YAML file outside hidden folders except a failed run's set-aside
// files (internal/base/setaside), and the cassette a leftover journal stands for when
// its YAML was never written. A listed cassette that is not a regular file
// is an error naming it (ErrCorrupt).
func Files(dir string) ([]string, error) {
	if err := CheckFolder(dir); err != nil {
		return nil, err
	}
	var paths []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != dir && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir // FileName never makes hidden folders
			}
			return nil
		}
		if target := journalfile.CassettePathOf(path); target != "" {
			// A journal whose cassette was never written: a recording
			// killed before its first save. Its YAML sibling, if any,
			// is loaded (journal included) when the walk reaches it.
			if _, err := os.Stat(target); err == nil {
				return nil
			}
			paths = append(paths, target)
		} else if strings.HasSuffix(path, Extension) && !strings.HasPrefix(d.Name(), ".") && !setaside.Is(path) {
			if err := checkListed(path, d); err != nil {
				return err
			}
			paths = append(paths, path)
		}
		return nil
	})
	return paths, err
}

// checkListed refuses a listed cassette that is not a regular file (a
// link to /dev/zero, a FIFO) when the folder is listed, so that a run
// which never asks for it still says so. Only links and special entries
// cost a stat.
func checkListed(path string, d fs.DirEntry) error {
	if d.Type().IsRegular() {
		return nil
	}
	info, err := os.Stat(path)
	if err != nil {
		return nil // a dangling link is a missing cassette, reported when asked for
	}
	if !info.Mode().IsRegular() {
		return &FormatError{File: path, Msg: checkRegular(info, maxFileSize).Error(), Err: ErrCorrupt}
	}
	return nil
}

// LoadDir reads every cassette below dir, keyed by cassette name. A file
// without a name takes its path relative to dir, minus the extension.
// Hidden files and folders (temporary files of an unfinished Save, .git)
// are skipped.
func LoadDir(dir string) (map[string]*Cassette, error) {
	// Find the files first, then load them on every core: start-up with a
	// suite's hundreds of cassettes is mostly YAML parsing.
	paths, err := Files(dir)
	if err != nil {
		return nil, err
	}
	loaded := make([]*Cassette, len(paths))
	errs := make([]error, len(paths))
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(runtime.GOMAXPROCS(0), max(len(paths), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				loaded[i], errs[i] = Load(paths[i])
			}
		}()
	}
	for i := range paths {
		next <- i
	}
	close(next)
	wg.Wait()
	out := map[string]*Cassette{}
	files := map[string]string{}
	for i, path := range paths { // in walk order, so errors are reported deterministically
		c, err := loaded[i], errs[i]
		if errors.Is(err, ErrNotFound) {
			continue // a stale journal with nothing to recover
		}
		if err != nil {
			return nil, err
		}
		if c.Name == "" {
			c.Name = NameFromPath(dir, path)
		}
		if other, dup := files[c.Name]; dup {
			return nil, &FormatError{File: path, Err: ErrCorrupt,
				Msg: fmt.Sprintf("cassette name %q is also used by %s; rename one", c.Name, other)}
		}
		files[c.Name] = path
		out[c.Name] = c
	}
	return out, nil
}

// Save writes c to path atomically: the file is either the old version or
// the complete new one, never a mix. With a redactor, the rendered bytes are
// scanned first and nothing is written if a secret is found.
func Save(path string, c *Cassette, r *Redactor) error {
	data, err := Marshal(c)
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrWrite, path, err)
	}
	if r != nil {
		if err := r.Scan(data); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	if err := WriteFileAtomic(path, data); err != nil {
		return fmt.Errorf("%w: %v", ErrWrite, err)
	}
	return nil
}

// WriteFileAtomic replaces path with data through a synced temporary file
// in the same folder and a rename, then syncs the folder so the rename
// itself survives a crash.
func WriteFileAtomic(path string, data []byte) error { return safefile.WriteFileAtomic(path, data) }
