// The recording journal: a synced, append-only file beside a cassette that
// keeps each finished exchange safe until the YAML is saved, and reading
// one back after a crash.

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
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
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
// incomplete one never replaces a saved cassette (see foldJournal).
const journalMagic = "adkproxy-journal 2"

// journalMagicV1 journals have no completeness field; they are complete.
const journalMagicV1 = "adkproxy-journal 1"

const completeField = "complete="

// journalSuffix ends journal file names; the leading dot hides them.
const journalSuffix = ".journal"

// JournalPath is the journal of the cassette at path: ".<name>.yaml.journal".
func JournalPath(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+journalSuffix)
}

// cassettePathOf inverts JournalPath, or returns "" for other names.
func cassettePathOf(journal string) string {
	base := filepath.Base(journal)
	if !strings.HasPrefix(base, ".") || !strings.HasSuffix(base, Extension+journalSuffix) {
		return ""
	}
	return filepath.Join(filepath.Dir(journal), strings.TrimSuffix(base[1:], journalSuffix))
}

// Journal appends exchanges durably. Safe for concurrent use: exchanges
// appended at the same time share one write and one fsync (see commit).
type Journal struct {
	mu         sync.Mutex  // held for every use of the file
	f          *os.File    // nil while released (see Release)
	info       os.FileInfo // the file it started, which reopen insists on
	path       string
	scan       *Redactor
	flagAt     int64 // offset of the completeness digit
	incomplete bool
	end        int64 // where the next record goes: the records' end
	ready      int64 // the file's size: zeros from end to here (journal_prewrite.go)

	queue groupQueue // records waiting for the committer (journal_group.go)
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
	if err := setAsideIfIncomplete(jp); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrWrite, err)
	}
	f, err := createFresh(jp)
	if errors.Is(err, ErrSymlink) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrWrite, err)
	}
	quoted, _ := json.Marshal(name)
	prefix := fmt.Sprintf("%s %s %s", journalMagic, mode, completeField)
	header, err := fmt.Fprintf(f, "%s1 %s %s\n", prefix, base, quoted)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%w: %v", ErrWrite, err)
	}
	j := &Journal{f: f, path: jp, scan: r, flagAt: int64(len(prefix)), end: int64(header)}
	j.prewrite() // synced with the header: the first records are data-only
	if err := f.Sync(); err != nil {
		f.Close()
		return nil, fmt.Errorf("%w: %v", ErrWrite, err)
	}
	syncDir(filepath.Dir(jp))
	if j.info, err = f.Stat(); err != nil {
		f.Close()
		return nil, fmt.Errorf("%w: %v", ErrWrite, err)
	}
	return j, nil
}

// Append writes one exchange and syncs it to disk before returning;
// exchanges appended concurrently share the write and the fsync. On an
// error the exchange is not in the journal (what was written of it is
// undone): a caller that keeps it anyway calls MarkIncomplete.
func (j *Journal) Append(x *Exchange) error {
	if bodyBytes(x) >= streamedRecord {
		return j.appendStreamed(x)
	}
	buf := payloads.Get().(*bytes.Buffer)
	defer putPayload(buf)
	buf.Reset()
	prefix := keptLivePrefix(x) // journal_live.go
	buf.WriteString(prefix)
	// Encode writes what Marshal would, and a newline, into a buffer
	// reused across exchanges (commit copies the payload).
	if err := json.NewEncoder(buf).Encode(x); err != nil {
		return fmt.Errorf("%w: journal: %v", ErrWrite, err)
	}
	buf.Truncate(buf.Len() - 1) // the newline
	if prefix != "" {
		buf.WriteByte('}')
	}
	payload := buf.Bytes()
	if j.scan != nil {
		if err := j.scan.Scan(payload); err != nil {
			j.MarkIncomplete()
			return fmt.Errorf("journal %s: %w", j.path, err)
		}
	}
	return j.commit(payload)
}

// payloads keeps the buffers exchanges are encoded into; one grown past
// maxPooledBuf is left to the collector.
var payloads = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func putPayload(b *bytes.Buffer) {
	if b.Cap() <= maxPooledBuf {
		payloads.Put(b)
	}
}

// MarkIncomplete records in the journal that it does not hold the whole
// recording (an exchange missed it, or saving the cassette failed), so a
// later Load never lets it replace the saved cassette.
func (j *Journal) MarkIncomplete() {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.markIncompleteLocked()
}

func (j *Journal) markIncompleteLocked() {
	if j.incomplete {
		return
	}
	j.incomplete = true
	f := j.f
	if f == nil { // released: open it again, insisting on the same file
		var err error
		if f, err = os.OpenFile(j.path, os.O_WRONLY|oNoFollow, 0); err != nil {
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

// RemoveJournal deletes the leftover journal of the cassette at path, once
// what Load folded in from it is saved. A journal marked incomplete may
// hold exchanges Load left out, so it is set aside instead (see
// setAsideIfIncomplete).
func RemoveJournal(path string) error {
	jp := JournalPath(path)
	if err := setAsideIfIncomplete(jp); err != nil {
		return err
	}
	if err := os.Remove(jp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	syncDir(filepath.Dir(jp))
	return nil
}

// setAsideIfIncomplete renames a journal marked incomplete to
// "<journal>.incomplete-<UTC time>", which nothing reads or deletes:
// adkproxy never deletes exchanges it did not save. Other journals (and
// links, which are never touched) are left where they are.
func setAsideIfIncomplete(jp string) error {
	if info, err := os.Lstat(jp); err != nil || !info.Mode().IsRegular() {
		return nil
	}
	f, err := os.Open(jp)
	if err != nil {
		return nil
	}
	head := make([]byte, 64) // the flag comes before the hash
	n, _ := io.ReadFull(f, head)
	f.Close()
	if !bytes.HasPrefix(head[:n], []byte(journalMagic+" ")) || !bytes.Contains(head[:n], []byte(" "+completeField+"0 ")) {
		return nil
	}
	return os.Rename(jp, jp+".incomplete-"+time.Now().UTC().Format("20060102T150405.000000000Z"))
}

// Close closes the journal and keeps the file.
func (j *Journal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.release()
}

// Release closes the journal's file between appends; the next Append
// opens it again. Appends release it themselves once none is waiting, so a
// recording into many cassettes does not hold a descriptor for each.
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
	// Not O_APPEND: records go at j.end, before the prewritten tail, and
	// the completeness flag is overwritten in place.
	f, err := os.OpenFile(j.path, os.O_WRONLY|oNoFollow, 0)
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
	name       string
	replace    bool
	incomplete bool // see MarkIncomplete
	stale      bool // the YAML was saved after the journal began
	exchanges  []*Exchange
	torn       int // bytes of an unfinished last record, ignored
}

// HasJournal reports whether a journal (or a link in its place) exists
// beside the cassette at path.
func HasJournal(path string) bool {
	_, err := os.Lstat(JournalPath(path))
	return err == nil
}

// readJournal reads the journal of the cassette at path, if any.
func readJournal(path string) (*journalState, error) {
	data, err := readNoFollow(JournalPath(path))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	br := bufio.NewReader(bytes.NewReader(data))
	header, err := br.ReadString('\n')
	fields := strings.SplitN(strings.TrimSuffix(header, "\n"), " ", 6)
	incomplete := false
	if len(fields) == 6 && fields[0]+" "+fields[1] == journalMagic && strings.HasPrefix(fields[3], completeField) {
		incomplete = fields[3] != completeField+"1"
		fields = append(fields[:3], fields[4:]...)
	} else if len(fields) >= 5 && fields[0]+" "+fields[1] == journalMagicV1 {
		fields = append(fields[:4], strings.Join(fields[4:], " "))
	} else {
		fields = nil
	}
	var name string
	if err != nil || len(fields) != 5 || json.Unmarshal([]byte(fields[4]), &name) != nil {
		// A journal cut before its header was synced holds no exchange.
		return &journalState{stale: true}, nil
	}
	base, err := fileHash(path)
	if err != nil {
		return nil, err
	}
	st := &journalState{name: name, replace: fields[2] == "replace", incomplete: incomplete, stale: fields[3] != base}
	st.exchanges, st.torn = readRecords(data[len(header):])
	return st, nil
}

// readRecords reads the records after a journal's header: the exchanges
// they hold, Live connections put together from their records (see
// liveRecord), and how many bytes at the end are not a whole record (the
// write a crash interrupted), which are ignored. Zeros at the end are the
// prewritten tail (journal_prewrite.go), not part of any record: a record
// ends in a newline.
func readRecords(rest []byte) (xs []*Exchange, torn int) {
	var lives liveFold
	rest = bytes.TrimRight(rest, "\x00")
	for len(rest) > 0 {
		payload, n, ok := nextRecord(rest)
		if ok && isLiveRecord(payload) {
			xs, ok = lives.add(xs, payload)
		} else if ok {
			var x Exchange
			if ok = json.Unmarshal(payload, &x) == nil; ok {
				xs = append(xs, withFrames(&x))
			}
		}
		if !ok {
			torn = len(rest)
			break
		}
		rest = rest[n:]
	}
	return lives.compact(xs), torn
}

// foldJournal adds a leftover journal's exchanges to c, the cassette as
// last saved (empty when it never was). A complete journal (a crash)
// extends or replaces it as its mode says. An incomplete one (a failed
// append or save) only adds: in extend mode its exchanges are appended, and
// in replace mode they stand in for a cassette that was never saved, but
// never replace a saved one. What is left out stays in the journal file
// and is named in c.Warnings.
func foldJournal(c *Cassette, j *journalState, journal string, saved bool) {
	switch {
	case !j.replace:
		c.Exchanges = append(c.Exchanges, j.exchanges...)
	case !j.incomplete || !saved:
		c.Exchanges = j.exchanges
	default:
		c.Warnings = append(c.Warnings, fmt.Sprintf(
			"%d exchange(s) in %s were not folded in: the recording that was to replace the cassette failed to save, so the cassette is as last saved. The journal is kept (the next recording of the cassette renames it to *.incomplete-<time>); re-record the cassette, or delete the journal",
			len(j.exchanges), journal))
		return
	}
	if j.incomplete {
		c.Warnings = append(c.Warnings, fmt.Sprintf(
			"%s is from a recording that failed to save: its %d exchange(s) were folded in, but some of that recording is missing. Re-record the cassette",
			journal, len(j.exchanges)))
	}
	if j.torn > 0 && j.incomplete {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%s ends in %d byte(s) of an unfinished record, ignored", journal, j.torn))
	}
	if c.Name == "" {
		c.Name = j.name
	}
}

// nextRecord finds the payload of "<len> <crc32>\n<payload>\n" at the
// start of b, checksum checked.
func nextRecord(b []byte) ([]byte, int, bool) {
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
	return payload, nl + 1 + size + 1, true
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
