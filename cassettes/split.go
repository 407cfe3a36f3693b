// The fast way to load a large version 2 cassette: its sessions cut apart
// as the text is read and parsed on every core; anything unusual goes to
// the reference reader (decode.go) instead.

package cassettes

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"gopkg.in/yaml.v3"
)

// A large cassette is mostly its sessions, and parsing YAML is most of the
// time it takes to load one. Sessions are independent, so readSplit cuts
// the text between them as it reads and parses the pieces on every core,
// dropping each piece's text and node tree once its exchanges are out:
// start-up takes a fraction of the time, and memory holds the exchanges
// plus a few pieces instead of the whole file and its node tree. Anything
// unusual, and any error, sends the file through decodeDocument, the
// reference reader: it alone reports problems (with their lines), and
// tests check that both read every file alike.

// minRun is the least text parsed as one piece: large enough that a
// decoder's set-up is lost in the parsing, small enough to spread a file of
// a few megabytes over the cores and to keep few bytes in flight.
const minRun = 256 << 10

// errNotSplit: the file is not one readSplit vouches for.
var errNotSplit = errors.New("not a layout the session splitter reads")

// errNoSessions: the file has no plain top-level "sessions:" key, so the
// text the splitter kept aside is the whole file.
var errNoSessions = errors.New("no sessions to split")

// readSplit reads a version 2 cassette from src, cutting its top-level
// sessions into runs of at least minSize bytes. A file without such
// sessions (version 1, or only other exchanges) is read as one document
// from the text already read. It returns errNotSplit (or the read error)
// when the file must be read again as one document.
func readSplit(file string, src io.Reader, limit int64, minSize int) (*Cassette, error) {
	r := reader{file: file, owned: &ownedValues{}}
	type result struct {
		xs     []*Exchange
		failed bool
	}
	var (
		mu      sync.Mutex
		results []result
		wg      sync.WaitGroup
	)
	type job struct {
		i      int
		text   []byte
		blocks []block
	}
	jobs := make(chan job)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for j := range jobs {
				xs, failed := r.run(j.text, j.blocks)
				mu.Lock()
				results[j.i] = result{xs, failed}
				mu.Unlock()
			}
		})
	}
	send := func(text []byte, blocks []block) {
		mu.Lock()
		i := len(results)
		results = append(results, result{})
		mu.Unlock()
		jobs <- job{i, text, blocks}
	}
	rest, err := splitSessions(src, limit, minSize, r.owned, send)
	close(jobs)
	if errors.Is(err, errNoSessions) {
		wg.Wait()
		doc, _, err := decodeDocument(file, rest)
		if err != nil {
			return nil, err
		}
		return &doc.Cassette, nil
	}
	if err != nil {
		wg.Wait()
		return nil, err
	}
	// The rest (the header and the other exchanges) is read while the
	// last runs are.
	top, version, err := decodeDocument(file, rest)
	wg.Wait()
	if err != nil || version != 2 || top.hadSessions {
		return nil, errNotSplit
	}
	n := len(top.Exchanges)
	for _, res := range results {
		if res.failed {
			return nil, errNotSplit
		}
		n += len(res.xs)
	}
	xs := make([]*Exchange, 0, n)
	for _, res := range results {
		xs = append(xs, res.xs...)
	}
	top.Exchanges = append(xs, top.Exchanges...) // sessions first, as in the file
	return &top.Cassette, nil
}

// run reads one piece of the sessions list, putting back the values of the
// block literals taken out of it; failed means the piece is not what the
// split took it for, or is broken.
func (r reader) run(text []byte, blocks []block) (xs []*Exchange, failed bool) {
	r.sets = &headerSets{}
	doc, ok := plainTree(text)
	if !ok {
		if doc, ok = yamlTree(text); !ok {
			return nil, true
		}
	}
	if r.check(doc) != nil || fill(doc, blocks) != len(blocks) {
		return nil, true
	}
	xs, err := r.sessions(doc.Content[0])
	return xs, err != nil
}

// yamlTree is yaml.v3's node tree of a piece that is one sequence.
func yamlTree(text []byte) (*yaml.Node, bool) {
	dec := yaml.NewDecoder(bytes.NewReader(text))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.SequenceNode {
		return nil, false
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, false
	}
	return &doc, true
}

// literalMark stands in for a block literal's lines in the text yaml.v3
// reads: the mark, a random number (so no cassette can hold it by chance)
// and the value's index.
var literalMark = fmt.Sprintf("adkproxy-literal-%016x-", rand.Uint64())

// block is the value of a block literal or long scalar taken out of a
// piece; a dropped one was only checked (it is in a step's trajectory,
// which loading does not read).
type block struct {
	value   string
	dropped bool
}

// fill puts the values of blocks back in place of their marks, and counts
// them; each mark is filled once, and a dropped value only inside a step's
// trajectory (else it is not counted, and the piece is read again).
func fill(n *yaml.Node, blocks []block) int {
	if len(blocks) == 0 {
		return 0
	}
	filled := 0
	used := make([]bool, len(blocks))
	var walk func(n *yaml.Node, inTrajectory bool)
	walk = func(n *yaml.Node, inTrajectory bool) {
		if n.Kind == yaml.ScalarNode && n.Style&yaml.LiteralStyle != 0 {
			if rest, ok := strings.CutPrefix(strings.TrimSuffix(n.Value, "\n"), literalMark); ok {
				if i, err := strconv.Atoi(rest); err == nil && i >= 0 && i < len(blocks) && !used[i] && (inTrajectory || !blocks[i].dropped) {
					n.Value, used[i] = blocks[i].value, true
					filled++
				}
			}
		}
		step := n.Kind == yaml.MappingNode && mappingValue(n, "request") != nil
		for i, c := range n.Content {
			walk(c, inTrajectory || step && i%2 == 1 && n.Content[i-1].Value == "trajectory")
		}
	}
	walk(n, false)
	return filled
}

// lineReaders are the splitter's read buffers, shared by the files of a
// folder (a new one per file was 32 MB to clear for a suite of 500).
var lineReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 64<<10) }}

// splitSessions reads src line by line and hands each run of whole items
// of its top-level "sessions:" block sequence to send, at least minSize
// bytes a run but for the last; rest is the file without that key and its
// value. Only the indentation at the start of each line is read: every line
// of an item but its first is indented deeper than the item's dash (block
// scalars and continued scalars included), so a line at the dash's
// indentation starts an item and a line at column 0 ends the sequence.
// Without such a key it returns the whole file as rest and errNoSessions;
// layouts it does not vouch for (tabs, document markers, an empty or odd
// sequence) give errNotSplit.
func splitSessions(src io.Reader, limit int64, minSize int, owned *ownedValues, send func(run []byte, blocks []block)) (rest []byte, err error) {
	const (
		before = iota
		inside
		after
	)
	state := before
	dash := -1 // indentation of the sequence's dashes
	var (
		run    []byte
		blocks []block  // values of the literals and long scalars taken out of run
		lit    *literal // the block literal being read
		// The lines of one literal at a time: copied out when it ends, so
		// its buffer serves the next (bodies are most of the bytes, and
		// growing a buffer for each was a third of the splitting).
		scratch []byte
	)
	endLiteral := func() {
		if v, ok := lit.value(); ok {
			run = fmt.Appendf(run, "%*s%s%d\n", lit.indent, "", literalMark, len(blocks))
			blocks = append(blocks, block{value: v})
			if lit.inPlace {
				owned.add(v)
			}
		} else {
			run = appendDoubling(run, lit.raw)
		}
		scratch = lit.raw[:0] // nil when the value took the buffer (valueInPlace)
		lit = nil
	}
	var read int64
	in := lineReaders.Get().(*bufio.Reader)
	in.Reset(src)
	defer func() {
		in.Reset(nil)
		lineReaders.Put(in)
	}()
	var long []byte     // a line longer than the reader's buffer
	inLong := false     // such a line is going straight into lit (startLong)
	var sc *longScalar  // or it is a long scalar (longscalar.go)
	trajectoryAt := -1  // the indentation of the trajectory key the lines are in, or -1
	stepKeys := -1      // the indentation of the keys of the last step begun
	size := sizeOf(src) // -1 when not known
	for {
		line, err := in.ReadSlice('\n')
		if read += int64(len(line)); read > limit {
			return nil, errTooLarge(limit)
		}
		room := int64(-1)
		if size >= read {
			room = size - read
		}
		if lit != nil {
			lit.room = room
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			switch {
			case inLong:
				lit.continueLong(line)
			case sc != nil:
				sc.room = room
				sc.add(line)
			case lit != nil && long == nil && lit.startLong(line):
				inLong = true
			case lit == nil && long == nil && state == inside && dash >= 0:
				if sc = takeLongScalar(line, dash, &trajectoryAt); sc == nil {
					long = appendDoubling(long, line)
				}
			default:
				long = appendDoubling(long, line)
			}
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		if sc != nil {
			sc.room = room
			if sc.end(line); sc.bad {
				return nil, errNotSplit
			}
			run = fmt.Appendf(run, "%*s%s: |-\n%*s%s%d\n", sc.indent, "", sc.key, sc.indent+2, "", literalMark, len(blocks))
			v := unsafe.String(unsafe.SliceData(sc.value), len(sc.value))
			blocks = append(blocks, block{value: v, dropped: !sc.keep})
			owned.add(v) // the value's buffer is its own
			sc = nil
			if err != nil {
				break
			}
			continue
		}
		if inLong {
			inLong = false
			lit.endLong(line)
			if err != nil {
				break
			}
			continue
		}
		if long != nil {
			line, long = append(long, line...), nil
		}
		if len(line) == 0 {
			break
		}
		if lit != nil {
			if lit.add(line) {
				if err != nil {
					break
				}
				continue
			}
			endLiteral()
		}
		indent := 0
		for indent < len(line) && line[indent] == ' ' {
			indent++
		}
		body := bytes.TrimRight(line[indent:], " \r\n")
		toRun := state == inside
		switch {
		case len(body) == 0 || body[0] == '#':
			// blank or comment: belongs to whatever it is in
		case body[0] == '\t' || (indent == 0 && (bytes.HasPrefix(body, []byte("---")) || bytes.HasPrefix(body, []byte("...")) || body[0] == '%')):
			return nil, errNotSplit
		case state == before:
			if indent == 0 && string(body) == "sessions:" {
				state = inside
				line = nil
			}
		case state == inside:
			isItem := body[0] == '-' && (len(body) == 1 || body[1] == ' ')
			switch {
			case dash < 0:
				if !isItem {
					return nil, errNotSplit
				}
				dash = indent
			case indent > dash:
			case indent == dash && isItem:
				if len(run) >= minSize {
					send(run, blocks)
					run, blocks = nil, nil
				}
			case indent == 0:
				state, toRun = after, false
			default:
				return nil, errNotSplit
			}
		}
		if toRun {
			followTrajectory(body, indent, &trajectoryAt, &stepKeys)
			run = appendDoubling(run, line)
			if l, ok := literalHeader(body, indent); ok {
				l.raw = scratch[:0]
				lit = l
			}
		} else {
			rest = appendDoubling(rest, line)
		}
		if err != nil { // io.EOF after a last line without a newline
			break
		}
	}
	if lit != nil {
		endLiteral()
	}
	if state == before {
		return rest, errNoSessions
	}
	if dash < 0 {
		return nil, errNotSplit
	}
	send(run, blocks)
	return rest, nil
}

// sizeOf is the size of what src reads, when it says (a file, a byte
// slice's reader), or -1.
func sizeOf(src io.Reader) int64 {
	switch s := src.(type) {
	case interface{ Stat() (os.FileInfo, error) }:
		if info, err := s.Stat(); err == nil && info.Mode().IsRegular() {
			return info.Size()
		}
	case interface{ Size() int64 }:
		return s.Size()
	}
	return -1
}

// followTrajectory keeps trajectoryAt (the indentation of the trajectory
// key of the step the lines are in, or -1) as the splitter reads the line
// body at indent: a step's keys are two deeper than its "- step:" item.
func followTrajectory(body []byte, indent int, trajectoryAt, stepKeys *int) {
	if len(body) == 0 || body[0] == '#' {
		return
	}
	if *trajectoryAt >= 0 && indent <= *trajectoryAt {
		*trajectoryAt = -1
	}
	if bytes.HasPrefix(body, []byte("- step: ")) {
		*stepKeys = indent + 2
	}
	if indent == *stepKeys && string(body) == "trajectory:" {
		*trajectoryAt = indent
	}
}

// takeLongScalar starts reading the long line whose first part is part as
// a long scalar, when it is a key of an item of the sessions (deeper than
// their dashes at dash); its value is only checked inside a trajectory.
// nil: the line is gathered as any other.
func takeLongScalar(part []byte, dash int, trajectoryAt *int) *longScalar {
	indent := 0
	for indent < len(part) && part[indent] == ' ' {
		indent++
	}
	if indent <= dash {
		return nil
	}
	if *trajectoryAt >= 0 && indent <= *trajectoryAt {
		*trajectoryAt = -1
	}
	sc, ok := startLongScalar(part, *trajectoryAt < 0)
	if !ok {
		return nil
	}
	return sc
}
