package cassettes

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
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
const journalMagic = "adkproxy-journal 1"

// JournalSuffix ends journal file names; the leading dot hides them.
const JournalSuffix = ".journal"

// JournalPath is the journal of the cassette at path: ".<name>.yaml.journal".
func JournalPath(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+JournalSuffix)
}

// cassettePathOf inverts JournalPath, or returns "" for other names.
func cassettePathOf(journal string) string {
	base := filepath.Base(journal)
	if !strings.HasPrefix(base, ".") || !strings.HasSuffix(base, Extension+JournalSuffix) {
		return ""
	}
	return filepath.Join(filepath.Dir(journal), strings.TrimSuffix(base[1:], JournalSuffix))
}

// Journal appends exchanges durably. Safe for concurrent use.
type Journal struct {
	mu   sync.Mutex
	f    *os.File // nil while released (see Release)
	info os.FileInfo
	path string
	scan *Redactor
}

// OpenJournal starts a new journal for the cassette at path, replacing any
// leftover one (callers fold a leftover journal in first, see Load).
// Records are scanned for secrets with r before they are written.
func OpenJournal(path, name string, replace bool, r *Redactor) (*Journal, error) {
	base, err := fileHash(path)
	if err != nil {
		return nil, fmt.Errorf("%w: journal for %s: %v", ErrWrite, path, err)
	}
	mode := "extend"
	if replace {
		mode = "replace"
	}
	jp := JournalPath(path)
	if err := os.MkdirAll(filepath.Dir(jp), 0o755); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrWrite, err)
	}
	f, err := os.OpenFile(jp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrWrite, err)
	}
	quoted, _ := json.Marshal(name)
	if _, err := fmt.Fprintf(f, "%s %s %s %s\n", journalMagic, mode, base, quoted); err != nil {
		f.Close()
		return nil, fmt.Errorf("%w: %v", ErrWrite, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return nil, fmt.Errorf("%w: %v", ErrWrite, err)
	}
	syncDir(filepath.Dir(jp))
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%w: %v", ErrWrite, err)
	}
	return &Journal{f: f, info: info, path: jp, scan: r}, nil
}

// Append writes one exchange and syncs it to disk before returning.
func (j *Journal) Append(x *Exchange) error {
	if bodyBytes(x) >= streamedRecord {
		return j.appendStreamed(x)
	}
	payload, err := json.Marshal(x)
	if err != nil {
		return fmt.Errorf("%w: journal: %v", ErrWrite, err)
	}
	if j.scan != nil {
		if err := j.scan.Scan(payload); err != nil {
			return fmt.Errorf("journal %s: %w", j.path, err)
		}
	}
	record := fmt.Appendf(nil, "%d %08x\n", len(payload), crc32.ChecksumIEEE(payload))
	record = append(append(record, payload...), '\n')
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.reopen(); err != nil {
		return err
	}
	if _, err := j.f.Write(record); err != nil {
		return fmt.Errorf("%w: journal %s: %v", ErrWrite, j.path, err)
	}
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("%w: journal %s: %v", ErrWrite, j.path, err)
	}
	return nil
}

// Remove closes and deletes the journal, once its cassette is saved.
func (j *Journal) Remove() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.release()
	if err := os.Remove(j.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	syncDir(filepath.Dir(j.path))
	return nil
}

// Close closes the journal and keeps the file.
func (j *Journal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.release()
}

// Release closes the journal's file between appends, so a recording into
// many cassettes does not hold a descriptor for each; the next Append
// opens it again.
func (j *Journal) Release() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.release()
}

func (j *Journal) release() error {
	if j.f == nil {
		return nil
	}
	err := j.f.Close()
	j.f = nil
	return err
}

// reopen opens a released journal for appending, refusing a path that no
// longer names the file the journal started (replaced, or made a link).
func (j *Journal) reopen() error {
	if j.f != nil {
		return nil
	}
	f, err := os.OpenFile(j.path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return fmt.Errorf("%w: journal %s: %v", ErrWrite, j.path, err)
	}
	if info, err := f.Stat(); err != nil || !os.SameFile(info, j.info) {
		f.Close()
		return fmt.Errorf("%w: journal %s was replaced while recording", ErrWrite, j.path)
	}
	j.f = f
	return nil
}

// journalState is what a leftover journal says about its cassette.
type journalState struct {
	name      string
	replace   bool
	stale     bool // the YAML was saved after the journal began
	exchanges []*Exchange
	torn      int // bytes of an unfinished last record, ignored
}

// HasJournal reports whether a journal exists beside the cassette at path.
func HasJournal(path string) bool {
	_, err := os.Stat(JournalPath(path))
	return err == nil
}

// readJournal reads the journal of the cassette at path, if any.
func readJournal(path string) (*journalState, error) {
	data, err := os.ReadFile(JournalPath(path))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	br := bufio.NewReader(bytes.NewReader(data))
	header, err := br.ReadString('\n')
	fields := strings.SplitN(strings.TrimSuffix(header, "\n"), " ", 5)
	var name string
	if err != nil || len(fields) != 5 || fields[0]+" "+fields[1] != journalMagic || json.Unmarshal([]byte(fields[4]), &name) != nil {
		// A journal cut before its header was synced holds no exchange.
		return &journalState{stale: true}, nil
	}
	base, err := fileHash(path)
	if err != nil {
		return nil, err
	}
	st := &journalState{name: name, replace: fields[2] == "replace", stale: fields[3] != base}
	rest := data[len(header):]
	for len(rest) > 0 {
		x, n, ok := nextRecord(rest)
		if !ok {
			st.torn = len(rest) // the write the crash interrupted
			break
		}
		st.exchanges = append(st.exchanges, x)
		rest = rest[n:]
	}
	return st, nil
}

// nextRecord decodes "<len> <crc32>\n<payload>\n" at the start of b.
func nextRecord(b []byte) (*Exchange, int, bool) {
	nl := bytes.IndexByte(b, '\n')
	if nl < 0 {
		return nil, 0, false
	}
	head := strings.Fields(string(b[:nl]))
	if len(head) != 2 {
		return nil, 0, false
	}
	size, err := strconv.Atoi(head[0])
	if err != nil || size < 0 || nl+1+size+1 > len(b) || b[nl+1+size] != '\n' {
		return nil, 0, false
	}
	sum, err := strconv.ParseUint(head[1], 16, 32)
	if err != nil {
		return nil, 0, false
	}
	payload := b[nl+1 : nl+1+size]
	if crc32.ChecksumIEEE(payload) != uint32(sum) {
		return nil, 0, false
	}
	var x Exchange
	if json.Unmarshal(payload, &x) != nil {
		return nil, 0, false
	}
	return &x, nl + 1 + size + 1, true
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

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
