// Reading a leftover journal back: its header, and its records up to the
// first that is not whole.

package journalfile

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"hash/crc32"
	"io/fs"
	"strconv"
	"strings"

	"github.com/adkproxy/adkproxy/internal/base/safefile"
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
	data, err := safefile.ReadNoFollow(Path(path))
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
	if len(fields) == 6 && fields[0]+" "+fields[1] == Magic && strings.HasPrefix(fields[3], completeField) {
		incomplete = fields[3] != completeField+"1"
		fields = append(fields[:3], fields[4:]...)
	} else if len(fields) >= 5 && fields[0]+" "+fields[1] == MagicV1 {
		fields = append(fields[:4], strings.Join(fields[4:], " "))
	} else {
		fields = nil
	}
	var name string
	if err != nil || len(fields) != 5 || json.Unmarshal([]byte(fields[4]), &name) != nil {
		// A journal cut before its header was synced holds no exchange.
		return &Leftover{Stale: true}, nil
	}
	base, err := fileHash(path)
	if err != nil {
		return nil, err
	}
	return &Leftover{Name: name, Replace: fields[2] == "replace", Incomplete: incomplete, Stale: fields[3] != base,
		Records: data[len(header):]}, nil
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
