package proxy_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/journalfile"
	"github.com/adkproxy/adkproxy/internal/base/sidefile"
	"github.com/adkproxy/adkproxy/internal/base/syncstat"
	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/proxy"
)

// openLive is the Live connection a load of the cassette at path finds
// (the journal of a recording still running, as a crash would leave it).
func openLive(t *testing.T, path string) []*cassettes.Exchange {
	t.Helper()
	c, err := cassettes.Load(path)
	if err != nil {
		t.Fatalf("load while recording: %v", err)
	}
	var out []*cassettes.Exchange
	for _, x := range c.Exchanges {
		if x.IsLive() {
			out = append(out, x)
		}
	}
	return out
}

func turnsEnded(x *cassettes.Exchange) int {
	n := 0
	for _, f := range x.Live.Frames {
		if !f.FromClient && strings.Contains(string(f.Data), `"turnComplete":true`) {
			n++
		}
	}
	return n
}

// TestLiveSessionJournalledAsItPasses: while a 50-turn Live session is
// recorded, the journal on disk holds every turn whose end the client has
// read, scrubbed of the key (which the client also says in a turn); the
// connection's last record supersedes the frames records, and the save at
// exit leaves no journal. It logs the journal's size along the way.
func TestLiveSessionJournalledAsItPasses(t *testing.T) {
	dir := testutil.OutDir(t)
	up := testutil.StartCounting(t, &fakegemini.Handler{}, nil)
	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL)})
	path := filepath.Join(dir, "default.yaml")
	journal := journalfile.Path(path)
	size := func(p string) int64 {
		info, err := os.Stat(p)
		if err != nil {
			return 0
		}
		return info.Size()
	}
	c := dialLive(t, rec.URL, jsLivePath+"?key="+testutil.SecretQueryKey, nil)
	syncs := syncstat.JournalSyncs()
	c.send(setupFrame)
	c.turn("setupComplete")
	const turns = 50
	for i := 1; i <= turns; i++ {
		text := fmt.Sprintf("turn %d", i)
		if i == 7 {
			text += " my key is " + testutil.SecretQueryKey
		}
		c.send(`{"clientContent":{"turns":[{"role":"user","parts":[{"text":"` + text + `"}]}],"turnComplete":true}}`)
		c.turn("turnComplete")
		lives := openLive(t, path)
		if len(lives) != 1 || turnsEnded(lives[0]) < i {
			t.Fatalf("after the client read the end of turn %d, the journal holds %d connections, not it with that turn", i, len(lives))
		}
	}
	c.turn("usageMetadata")
	open := size(journal)
	syncs = syncstat.JournalSyncs() - syncs
	if n := testutil.CountInDir(t, dir, testutil.SecretQueryKey); n != 0 {
		t.Fatalf("the key appears %d times in the cassettes folder while recording", n)
	}

	c.Close()
	for deadline := time.Now().Add(10 * time.Second); rec.Stats().Recorded == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the connection was not kept after the client closed it")
		}
	}
	ended := size(journal)
	lives := openLive(t, path)
	if len(lives) != 1 || turnsEnded(lives[0]) != turns {
		t.Fatalf("after the connection ended: %d connections in the journal, want it once with its %d turns", len(lives), turns)
	}
	rec.stop(t)
	if _, err := os.Stat(journal); !os.IsNotExist(err) {
		t.Fatalf("the journal outlived the save: %v", err)
	}
	lives = openLive(t, path)
	if len(lives) != 1 || turnsEnded(lives[0]) != turns {
		t.Fatalf("saved: %d connections, want one with %d turns", len(lives), turns)
	}
	t.Logf("%d-turn session (%d frames): %d journal syncs while open; journal %d bytes with the connection open, %d once its last record is written, none after the save; cassette %d bytes",
		turns, len(lives[0].Live.Frames), syncs, open, ended, size(path))
}

// TestLiveSessionRejournalledAfterAFlush: a cassette saved while a Live
// connection is open drops the journal that held it; the connection is
// written again, from its start, to the journal that follows, which
// extends the saved cassette (record mode replaced the cassette the run
// started from, not what the run itself saved).
func TestLiveSessionRejournalledAfterAFlush(t *testing.T) {
	dir := testutil.OutDir(t)
	up := testutil.StartCounting(t, &fakegemini.Handler{}, nil)
	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL)})
	path := filepath.Join(dir, "default.yaml")
	// An HTTP exchange, so that the flush has a cassette to write.
	post(t, rec.URL, "/v1beta/models/gemini-2.5-flash:generateContent", nil, `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`).Body.Close()
	c := dialLive(t, rec.URL, jsLivePath, nil)
	c.send(setupFrame)
	c.turn("setupComplete")
	c.send(`{"clientContent":{"turns":[{"role":"user","parts":[{"text":"before the flush"}]}],"turnComplete":true}}`)
	c.turn("turnComplete")
	if err := rec.Flush(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		lives := openLive(t, path)
		if len(lives) == 1 && turnsEnded(lives[0]) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the flush the open connection is not on disk again (%d connections)", len(lives))
		}
	}
	c.send(`{"clientContent":{"turns":[{"role":"user","parts":[{"text":"after the flush"}]}],"turnComplete":true}}`)
	c.turn("turnComplete")
	if lives := openLive(t, path); len(lives) != 1 || turnsEnded(lives[0]) != 2 {
		t.Fatalf("after the second turn: %d connections on disk", len(lives))
	}
	// What the flush saved stays: the journal after it extends the
	// cassette, though the run replaces the cassette it started from.
	post(t, rec.URL, "/v1beta/models/gemini-2.5-flash:generateContent", nil, `{"contents":[{"role":"user","parts":[{"text":"after"}]}]}`).Body.Close()
	if got, err := cassettes.Load(path); err != nil || len(got.Exchanges) != 3 {
		t.Fatalf("a crash now would load %d exchanges (%v), want the one saved by the flush, the connection and the one after", len(got.Exchanges), err)
	}
	c.Close()
	rec.stop(t)
}

// TestLiveAudioJournalledInSideFiles: the media of frames journalled as
// they pass goes to side files, as a kept connection's does, so a
// connection recovered from the journal is saved naming them.
func TestLiveAudioJournalledInSideFiles(t *testing.T) {
	dir := testutil.OutDir(t)
	audio := base64Audio(96 << 10)
	up := testutil.StartCounting(t, &fakegemini.Handler{}, nil)
	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL)})
	c := dialLive(t, rec.URL, jsLivePath, nil)
	c.send(setupFrame)
	c.turn("setupComplete")
	c.send(`{"realtimeInput":{"audio":{"data":"` + audio + `","mimeType":"audio/pcm;rate=16000"}}}`)
	c.send(`{"realtimeInput":{"text":"Hello"}}`)
	c.turn("turnComplete")
	path := filepath.Join(dir, "default.yaml")
	lives := openLive(t, path)
	if len(lives) != 1 {
		t.Fatalf("%d connections in the journal", len(lives))
	}
	var blobs []cassettes.Blob
	for _, f := range lives[0].Live.Frames {
		blobs = append(blobs, f.Blobs...)
	}
	if len(blobs) != 1 {
		t.Fatalf("the journalled frames name %d side files, want the audio's", len(blobs))
	}
	if _, err := os.Stat(filepath.Join(sidefile.Dir(path), blobs[0].File)); err != nil {
		t.Fatalf("the side file the journal names: %v", err)
	}
	c.Close()
	rec.stop(t)
}
