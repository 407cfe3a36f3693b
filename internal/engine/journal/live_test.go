package journal

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/journalfile"
)

func liveHead() *cassettes.Exchange {
	return &cassettes.Exchange{
		Request:  cassettes.Request{Method: "GET", Path: "/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent"},
		Response: cassettes.Response{Status: http.StatusSwitchingProtocols, Header: http.Header{"Upgrade": {"websocket"}}, End: cassettes.EndComplete},
	}
}

func liveFrame(i int) cassettes.Frame {
	return cassettes.Frame{FromClient: i%2 == 0, Kind: cassettes.FrameText, Data: fmt.Appendf(nil, `{"n":%d}`, i), At: time.Duration(i) * time.Millisecond}
}

func liveFrames(from, to int) []cassettes.Frame {
	var out []cassettes.Frame
	for i := from; i < to; i++ {
		out = append(out, liveFrame(i))
	}
	return out
}

// frameNumbers lists the "n" of each frame, to compare connections.
func frameNumbers(x *cassettes.Exchange) string {
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
	j, err := Open(path, "c", true, nil)
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

	c, err := cassettes.Load(path)
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
	j, _ = Open(path, "c", true, nil)
	j.Append(journalExchange(1))
	j.AppendLiveFrames("a", liveHead(), 0, liveFrames(0, 3))
	kept := liveHead()
	kept.Live = &cassettes.Live{Frames: append(liveFrames(0, 1), liveFrames(2, 6)...), ID: "a"}
	j.AppendLiveFrames("b", liveHead(), 0, liveFrames(100, 101))
	must(j.Append(kept))
	must(j.AppendLiveFrames("a", nil, 3, liveFrames(3, 4))) // late: after its last record, ignored
	j.Close()
	c, err = cassettes.Load(path)
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
	if err := cassettes.Save(path, c, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := journalfile.Settle(path, true); err != nil {
		t.Fatal(err)
	}
	back, err := cassettes.Load(path)
	if err != nil || len(back.Exchanges) != 3 || frameNumbers(back.Exchanges[2]) != frameNumbers(c.Exchanges[2]) {
		t.Fatalf("saved and loaded: %v, %d exchanges", err, len(back.Exchanges))
	}
}

// Frames records that cannot be placed in order (a gap, or no start) are
// passed over; the frames before them stay.
func TestLiveFramesRecordsOutOfOrderArePassedOver(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	j, _ := Open(path, "c", true, nil)
	j.AppendLiveFrames("a", liveHead(), 0, liveFrames(0, 2))
	j.AppendLiveFrames("a", nil, 5, liveFrames(5, 6)) // a gap
	j.AppendLiveFrames("z", nil, 0, liveFrames(0, 6)) // no start
	j.AppendLiveFrames("a", nil, 1, liveFrames(1, 3)) // overlaps: rewrites from 1
	j.Close()
	c, err := cassettes.Load(path)
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
	j, _ := Open(path, "c", true, nil)
	var ends []int       // end of the journal's records after each one
	size := func() int { // where the records end: the prewritten zeros follow
		data, err := os.ReadFile(journalfile.Path(path))
		if err != nil {
			t.Fatal(err)
		}
		return len(bytes.TrimRight(data, "\x00"))
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
	data := journalRecords(t, journalfile.Path(path))
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
			os.WriteFile(journalfile.Path(path), torn, 0o644)
			checkCut(t, path, cut, whole, wantFrames)
		}
	}
}

// checkCut loads the journal cut at cut, holding whole records: the frames
// of those records, and the exchange once its record is whole.
func checkCut(t *testing.T, path string, cut, whole int, wantFrames []string) {
	t.Helper()
	c, err := cassettes.Load(path)
	if err != nil {
		t.Fatalf("cut at %d: %v", cut, err)
	}
	var live *cassettes.Exchange
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

// A connection kept with more than streamedRecord bytes of frames has its
// last record streamed; it supersedes the partial records all the same.
func TestLargeLiveConnectionSupersedesItsFramesRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	j, _ := Open(path, "c", true, nil)
	big := cassettes.Frame{Kind: cassettes.FrameBinary, Data: bytes.Repeat([]byte("a"), streamedRecord+1)}
	if err := j.AppendLiveFrames("a", liveHead(), 0, liveFrames(0, 2)); err != nil {
		t.Fatal(err)
	}
	kept := liveHead()
	kept.Live = &cassettes.Live{Frames: append(liveFrames(0, 2), big), ID: "a"}
	if err := j.Append(kept); err != nil {
		t.Fatal(err)
	}
	j.Close()
	c, err := cassettes.Load(path)
	if err != nil || len(c.Exchanges) != 1 || len(c.Exchanges[0].Live.Frames) != 3 || !bytes.Equal(c.Exchanges[0].Live.Frames[2].Data, big.Data) {
		t.Fatalf("loaded %v: want the kept connection once, with its large frame", err)
	}
}

// TestLiveJournalRoundTrip: a Live connection appended whole, in one small
// record and in one large (streamed) record, reads back as it was.
func TestLiveJournalRoundTrip(t *testing.T) {
	big := bytes.Repeat([]byte("a"), streamedRecord)
	for _, extra := range [][]byte{nil, []byte(`{"realtimeInput":{"audio":{"data":"` + string(big) + `"}}}`)} {
		x := liveHead()
		x.Live = &cassettes.Live{Frames: append(liveFrames(0, 4),
			cassettes.Frame{Kind: cassettes.FrameBinary, Data: []byte{0x00, 0xff, 0x10}, At: 40 * time.Millisecond},
			cassettes.Frame{Kind: cassettes.FrameClose, Code: 1000, Data: []byte("bye"), At: 50 * time.Millisecond})}
		if extra != nil {
			x.Live.Frames = append(x.Live.Frames, cassettes.Frame{FromClient: true, Kind: cassettes.FrameText, Data: extra})
		}
		path := filepath.Join(t.TempDir(), "live.yaml")
		j, err := Open(path, "live", true, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := j.Append(x); err != nil {
			t.Fatal(err)
		}
		j.Close()
		c, err := cassettes.Load(path)
		if err != nil {
			t.Fatalf("Load with the journal: %v", err)
		}
		if len(c.Exchanges) != 1 || !reflect.DeepEqual(c.Exchanges[0].Live.Frames, x.Live.Frames) {
			t.Fatalf("the journal gave back %d exchanges, the connection changed: %+v", len(c.Exchanges), c.Exchanges)
		}
	}
}
