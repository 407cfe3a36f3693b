// Reading a leftover journal back: its header, and its records up to the
// first that is not whole.

package journalfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"hash/crc32"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/adkproxy/adkproxy/internal/base/safefile"
	"github.com/adkproxy/adkproxy/internal/base/userfile"
)

// Leftover is what a journal left beside a cassette says: its header,
// and the bytes of its records.
type Leftover struct {
	Name       string
	Replace    bool
	Incomplete bool // see File.MarkIncomplete
	// Stale: the YAML was saved after the journal began (its records are
	// in it), or the journal was cut before its header was synced (it
	// holds none).
	Stale   bool
	Records []byte
}

// Read reads the journal of the cassette at path; nil when there is none.
func Read(path string) (*Leftover, error) {
	jp := Path(path)
	if info, err := os.Lstat(jp); err == nil && info.Mode()&fs.ModeSymlink == 0 {
		if err := userfile.Check(info, safefile.MaxSize); err != nil {
			return nil, unreadable(jp, err) // as a recording finds it (Settle)
		}
	}
	data, err := safefile.ReadNoFollow(jp)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	h, ok := parseHeader(data)
	if !ok {
		// A journal cut before its header was synced holds no exchange.
		// (Anything else that is not a journal holds none adkproxy can
		// read: a recording keeps it under another name, see Settle.)
		return &Leftover{Stale: true}, nil
	}
	base, err := fileHash(path)
	if err != nil {
		return nil, err
	}
	return &Leftover{Name: h.name, Replace: h.replace, Incomplete: h.incomplete, Stale: h.base != base,
		Records: data[h.size:]}, nil
}

// header is what a journal's first line says.
type header struct {
	name       string
	replace    bool
	incomplete bool
	base       string // the SHA-256 of the YAML it started from, or "none"
	size       int    // the line's length, its newline included
}

// parseHeader reads the first line of a journal's bytes.
func parseHeader(data []byte) (header, bool) {
	line, _, found := bytes.Cut(data, []byte("\n"))
	if !found {
		return header{}, false
	}
	fields := strings.SplitN(string(line), " ", 6)
	incomplete := false
	if len(fields) == 6 && fields[0]+" "+fields[1] == Magic && strings.HasPrefix(fields[3], completeField) {
		incomplete = fields[3] != completeField+"1"
		fields = append(fields[:3], fields[4:]...)
	} else if len(fields) >= 5 && fields[0]+" "+fields[1] == MagicV1 {
		fields = append(fields[:4], strings.Join(fields[4:], " "))
	} else {
		fields = nil
	}
	var name string
	if len(fields) != 5 || (fields[2] != "replace" && fields[2] != "extend") || json.Unmarshal([]byte(fields[4]), &name) != nil {
		return header{}, false
	}
	return header{name: name, replace: fields[2] == "replace", incomplete: incomplete, base: fields[3], size: len(line) + 1}, true
}

// Each calls take with the payload of each record in records, in order,
// and returns how many bytes at the end are not a whole record (the write
// a crash interrupted) or a record take refused: they are ignored. Zeros
// at the end are the prewritten tail (prewrite.go), not part of any
// record: a record ends in a newline.
func Each(records []byte, take func(payload []byte) bool) (torn int) {
	rest := bytes.TrimRight(records, "\x00")
	for len(rest) > 0 {
		payload, n, ok := nextRecord(rest)
		if !ok || !take(payload) {
			return len(rest)
		}
		rest = rest[n:]
	}
	return 0
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
