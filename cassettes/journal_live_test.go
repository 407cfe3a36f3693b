package cassettes

import (
	"bytes"
	"fmt"
	"hash/crc32"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func liveHead() *Exchange {
	return &Exchange{
		Request:  Request{Method: "GET", Path: "/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent"},
		Response: Response{Status: http.StatusSwitchingProtocols, Header: http.Header{"Upgrade": {"websocket"}}, End: EndComplete},
	}
}

func liveFrame(i int) Frame {
	return Frame{FromClient: i%2 == 0, Kind: FrameText, Data: fmt.Appendf(nil, `{"n":%d}`, i), At: time.Duration(i) * time.Millisecond}
}

func liveFrames(from, to int) []Frame {
	var out []Frame
	for i := from; i < to; i++ {
		out = append(out, liveFrame(i))
	}
	return out
}

// frameNumbers lists the "n" of each frame, to compare connections.
func frameNumbers(x *Exchange) string {
	var b bytes.Buffer
	for _, f := range x.Live.Frames {
		b.Write(f.Data)
	}
	return b.String()
}

// A Live connection journalled as it passes loads with every frame
// written, in its place among the exchanges; its last record supersedes
// the frames records; another connection still open stays as it was.
func TestLiveFramesJournalledAsTheyPass(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	j, err := OpenJournal(path, "c", true, nil)
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(j.Append(journalExchange(1)))
	must(j.AppendLiveFrames("a", liveHead(), 0, liveFrames(0, 3)))
	must(j.AppendLiveFrames("b", liveHead(), 0, liveFrames(100, 101)))
	must(j.AppendLiveFrames("a", nil, 3, liveFrames(3, 5)))
	must(j.Append(journalExchange(2)))
	j.Close()

	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Exchanges) != 4 || !c.Exchanges[1].IsLive() || !c.Exchanges[2].IsLive() || c.Exchanges[3].IsLive() {
		t.Fatalf("loaded %d exchanges, want HTTP, connection a, connection b, HTTP", len(c.Exchanges))
	}
	a, b := c.Exchanges[1], c.Exchanges[2]
	if got, want := frameNumbers(a), `{"n":0}{"n":1}{"n":2}{"n":3}{"n":4}`; got != want {
		t.Errorf("connection a has frames %s, want %s", got, want)
	}
	if a.Request.Path != liveHead().Request.Path || a.Response.Status != http.StatusSwitchingProtocols || a.Live.Frames[4].At != 4*time.Millisecond {
		t.Errorf("connection a loaded as %+v", a)
	}
	if got := frameNumbers(b); got != `{"n":100}` {
		t.Errorf("connection b has frames %s", got)
	}

	// The connection ends: kept whole (here, scrubbed of frame 1), it
	// supersedes what was journalled, and moves to where it ended.
	j, _ = OpenJournal(path, "c", true, nil)
	j.Append(journalExchange(1))
	j.AppendLiveFrames("a", liveHead(), 0, liveFrames(0, 3))
	kept := liveHead()
	kept.Live = &Live{Frames: append(liveFrames(0, 1), liveFrames(2, 6)...), ID: "a"}
	j.AppendLiveFrames("b", liveHead(), 0, liveFrames(100, 101))
	must(j.Append(kept))
	must(j.AppendLiveFrames("a", nil, 3, liveFrames(3, 4))) // late: after its last record, ignored
	j.Close()
	c, err = Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Exchanges) != 3 || frameNumbers(c.Exchanges[1]) != `{"n":100}` {
		t.Fatalf("after the last record: %d exchanges, want HTTP, connection b, connection a", len(c.Exchanges))
	}
	if got, want := frameNumbers(c.Exchanges[2]), `{"n":0}{"n":2}{"n":3}{"n":4}{"n":5}`; got != want {
		t.Errorf("connection a as kept has frames %s, want %s", got, want)
	}
	// Saved, the cassette holds each connection once and reads back.
	if err := Save(path, c, nil); err != nil {
		t.Fatal(err)
	}
	must(RemoveJournal(path))
	back, err := Load(path)
	if err != nil || len(back.Exchanges) != 3 || frameNumbers(back.Exchanges[2]) != frameNumbers(c.Exchanges[2]) {
		t.Fatalf("saved and loaded: %v, %d exchanges", err, len(back.Exchanges))
	}
}

// Frames records that cannot be placed in order (a gap, or no start) are
// passed over; the frames before them stay.
func TestLiveFramesRecordsOutOfOrderArePassedOver(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	j, _ := OpenJournal(path, "c", true, nil)
	j.AppendLiveFrames("a", liveHead(), 0, liveFrames(0, 2))
	j.AppendLiveFrames("a", nil, 5, liveFrames(5, 6)) // a gap
	j.AppendLiveFrames("z", nil, 0, liveFrames(0, 6)) // no start
	j.AppendLiveFrames("a", nil, 1, liveFrames(1, 3)) // overlaps: rewrites from 1
	j.Close()
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Exchanges) != 1 || frameNumbers(c.Exchanges[0]) != `{"n":0}{"n":1}{"n":2}` {
		t.Fatalf("loaded %d exchanges, frames %s", len(c.Exchanges), frameNumbers(c.Exchanges[0]))
	}
}

// A journal cut anywhere (the kill interrupted a write) loads every
// record before the cut: a connection's frames are a prefix of those
// written, never out of order, and an exchange after it is there once
// its record is whole.
func TestLiveJournalCutAnywhereLoadsWhatCameBefore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	j, _ := OpenJournal(path, "c", true, nil)
	var ends []int // end of the journal's records after each one
	size := func() int {
		j.mu.Lock()
		defer j.mu.Unlock()
		return int(j.end)
	}
	header := size()
	j.AppendLiveFrames("a", liveHead(), 0, liveFrames(0, 2))
	ends = append(ends, size())
	j.AppendLiveFrames("a", nil, 2, liveFrames(2, 3))
	ends = append(ends, size())
	j.Append(journalExchange(1))
	ends = append(ends, size())
	j.AppendLiveFrames("a", nil, 3, liveFrames(3, 5))
	ends = append(ends, size())
	j.Close()
	data := journalRecords(t, JournalPath(path))
	if len(data) != ends[len(ends)-1] {
		t.Fatalf("the records end at %d, the journal's data at %d", ends[len(ends)-1], len(data))
	}
	wantFrames := []string{"", `{"n":0}{"n":1}`, `{"n":0}{"n":1}{"n":2}`, `{"n":0}{"n":1}{"n":2}`, `{"n":0}{"n":1}{"n":2}{"n":3}{"n":4}`}
	for cut := header; cut <= len(data); cut++ {
		whole := 0
		for whole < len(ends) && ends[whole] <= cut {
			whole++
		}
		for _, torn := range cutJournal(data, cut) {
			os.WriteFile(JournalPath(path), torn, 0o644)
			checkCut(t, path, cut, whole, wantFrames)
		}
	}
}

// checkCut loads the journal cut at cut, holding whole records: the frames
// of those records, and the exchange once its record is whole.
func checkCut(t *testing.T, path string, cut, whole int, wantFrames []string) {
	t.Helper()
	c, err := Load(path)
	if err != nil {
		t.Fatalf("cut at %d: %v", cut, err)
	}
	var live *Exchange
	http := 0
	for _, x := range c.Exchanges {
		if x.IsLive() {
			live = x
		} else {
			http++
		}
	}
	got := ""
	if live != nil {
		got = frameNumbers(live)
	}
	if got != wantFrames[whole] || (http == 1) != (whole >= 3) {
		t.Fatalf("cut at %d (%d whole records): frames %s and %d exchanges, want %s", cut, whole, got, http, wantFrames[whole])
	}
}

// FuzzJournalRecords reads any bytes after a journal's header without
// panicking. What it reads comes from the whole records at the start:
// reading only those gives the same exchanges and nothing torn, and every
// connection read has its frames list.
func FuzzJournalRecords(f *testing.F) {
	var seed []byte
	add := func(payload string) {
		seed = appendRecord(seed, []byte(payload), crc32.ChecksumIEEE([]byte(payload)))
	}
	add(`{"LiveID":"a","Start":{"Request":{"Method":"GET","Path":"/ws"},"Response":{"Status":101}},"Frames":[{"FromClient":true,"Kind":"text","Data":"e30=","At":1}]}`)
	add(`{"LiveID":"a","From":1,"Frames":[{"FromClient":false,"Kind":"binary","Data":"e30=","At":2}]}`)
	add(`{"Request":{"Method":"POST","Path":"/v1beta/models/m:generateContent"},"Response":{"Status":200}}`)
	add(`{"LiveID":"b","Start":{"Request":{"Method":"GET","Path":"/ws"},"Response":{"Status":101}}}`)
	add(`{"LiveID":"a","Done":true,"Kept":{"Request":{"Method":"GET","Path":"/ws"},"Response":{"Status":101},"Live":{"Frames":[]}}}`)
	add(`{"LiveID":"b","From":3,"Frames":null}`)
	add(`{"LiveID":"a","Start":{"Live":null},"Frames":[]}`)
	f.Add(seed)
	f.Add(seed[:len(seed)/2])
	zeros := make([]byte, 64) // a prewritten tail, after whole records and after a cut one
	f.Add(append(append([]byte{}, seed...), zeros...))
	f.Add(append(append([]byte{}, seed[:len(seed)/2]...), zeros...))
	f.Add([]byte("12 00000000\n{\"LiveID\":1}\n"))
	f.Add([]byte(`{"LiveID":"a","Start":{},"Frames":[{}]}` + "\n" + `{"LiveID":"a","From":1,"Frames":[{"Data":"e30="}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkRecords(t, data)
		// The same bytes as the payloads of checksummed records, one a
		// line, so that the fuzzer reaches the records' decoding.
		var framed []byte
		for _, line := range bytes.Split(data, []byte("\n")) {
			framed = appendRecord(framed, line, crc32.ChecksumIEEE(line))
		}
		checkRecords(t, framed)
	})
}

func checkRecords(t *testing.T, data []byte) {
	{
		xs, torn := readRecords(data)
		if torn < 0 || torn > len(bytes.TrimRight(data, "\x00")) {
			t.Fatalf("torn %d of %d bytes", torn, len(data))
		}
		for _, x := range xs {
			if x == nil || x.Live != nil && x.Live.Frames == nil {
				t.Fatalf("read %+v", x)
			}
		}
		whole := len(bytes.TrimRight(data, "\x00")) - torn // the prewritten tail's zeros are not torn
		again, tornAgain := readRecords(data[:whole])
		if tornAgain != 0 || len(again) != len(xs) {
			t.Fatalf("the whole records alone read as %d exchanges (%d torn), with the rest %d", len(again), tornAgain, len(xs))
		}
	}
}

// A connection kept with more than streamedRecord bytes of frames has its
// last record streamed; it supersedes the partial records all the same.
func TestLargeLiveConnectionSupersedesItsFramesRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	j, _ := OpenJournal(path, "c", true, nil)
	big := Frame{Kind: FrameBinary, Data: bytes.Repeat([]byte("a"), streamedRecord+1)}
	if err := j.AppendLiveFrames("a", liveHead(), 0, liveFrames(0, 2)); err != nil {
		t.Fatal(err)
	}
	kept := liveHead()
	kept.Live = &Live{Frames: append(liveFrames(0, 2), big), ID: "a"}
	if err := j.Append(kept); err != nil {
		t.Fatal(err)
	}
	j.Close()
	c, err := Load(path)
	if err != nil || len(c.Exchanges) != 1 || len(c.Exchanges[0].Live.Frames) != 3 || !bytes.Equal(c.Exchanges[0].Live.Frames[2].Data, big.Data) {
		t.Fatalf("loaded %v: want the kept connection once, with its large frame", err)
	}
}
