package cassettes

import (
	"bytes"
	"encoding/base64"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/internal/base/sidefile"
)

// liveExchange is a Live connection as the proxy records one: a setup, its
// answer as a binary frame, a turn, a tool call and the close.
func liveExchange(payloads ...[]byte) *Exchange {
	x := &Exchange{
		Request: Request{Method: "GET", Path: "//ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent",
			Header: http.Header{"Sec-Websocket-Version": {"13"}}},
		Response: Response{Status: http.StatusSwitchingProtocols, Header: http.Header{"Upgrade": {"websocket"}}, End: EndComplete},
		Live: &Live{Frames: []Frame{
			{FromClient: true, Kind: FrameText, Data: []byte(`{"setup":{"model":"models/gemini-live-2.5-flash","systemInstruction":{"parts":[{"text":"You answer weather questions."}]},"tools":[{"functionDeclarations":[{"name":"get_weather"}]}]}}`), At: 1500 * time.Microsecond},
			{Kind: FrameBinary, Data: []byte(`{"setupComplete":{}}`), At: 30 * time.Millisecond},
			{FromClient: true, Kind: FrameText, Data: []byte(`{"clientContent":{"turns":[{"role":"user","parts":[{"text":"Weather in Paris?"}]}],"turnComplete":true}}`), At: 31 * time.Millisecond},
			{Kind: FrameBinary, Data: []byte{0x00, 0xff, 0x10}, At: 40 * time.Millisecond},
			{Kind: FrameClose, Code: 1000, Data: []byte("bye"), At: 50 * time.Millisecond},
		}},
	}
	for _, p := range payloads {
		x.Live.Frames = append(x.Live.Frames, Frame{FromClient: true, Kind: FrameText, Data: p})
	}
	return x
}

func TestLiveRoundTrip(t *testing.T) {
	c := &Cassette{Name: "live", Exchanges: []*Exchange{simpleExchange(`{"a":1}`, `{"b":2}`), liveExchange()}}
	got, data := roundTrip(t, c)
	if d := diffCassettes(c, got); d != "" {
		t.Fatalf("round trip changed the cassette: %s\n%s", d, data)
	}
	text := string(data)
	for _, want := range []string{"\nlive:\n", "from: client", "text: |", "encoding: json", "\"systemInstruction\": {", "binary: AP8Q", "encoding: base64", "close: 1000", "reason: bye", "at_ms: 1.5", "status: 101"} {
		if !strings.Contains(text, want) {
			t.Errorf("the cassette does not contain %q:\n%s", want, text)
		}
	}
}

func TestLiveBadFrames(t *testing.T) {
	head := "version: 2\nname: x\nlive:\n  - request: {method: GET, path: /ws/x}\n    response: {status: 101}\n    frames:\n"
	for name, frame := range map[string]string{
		"unknown sender":  "      - {from: proxy, text: hi}\n",
		"no payload kind": "      - {from: client}\n",
		"two kinds":       "      - {from: client, text: a, binary: b}\n",
		"bad close code":  "      - {from: server, close: 70000}\n",
		"bad encoding":    "      - {from: server, binary: '%%%', encoding: base64}\n",
		"reason on text":  "      - {from: server, text: a, reason: b}\n",
		"unknown field":   "      - {from: server, text: a, opcode: 1}\n",
		"negative time":   "      - {from: server, text: a, at_ms: -1}\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Unmarshal(testFile, []byte(head+frame))
			var fe *FormatError
			if !errors.As(err, &fe) || !errors.Is(err, ErrCorrupt) || fe.Line != 7 {
				t.Fatalf("got %v, want a format error at %s:7", err, testFile)
			}
			if !strings.Contains(err.Error(), "live connection 1 frame 1") {
				t.Errorf("the error does not name the frame: %v", err)
			}
		})
	}
}

// FuzzLiveFrames feeds the frame reader: whatever a live list loads as
// saves and loads the same, and a frame built from any bytes round-trips.
func FuzzLiveFrames(f *testing.F) {
	data, err := Marshal(&Cassette{Name: "f", Exchanges: []*Exchange{liveExchange()}})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data, []byte(`{"clientContent":{"turnComplete":true}}`))
	f.Add([]byte("version: 2\nlive:\n  - request: {method: GET, path: /}\n    response: {status: 101}\n    frames: [{from: server, close: 1008, reason: '/w==', encoding: base64}]\n"), []byte{0xff})
	for _, s := range trickyStrings[:20] {
		f.Add([]byte(s), []byte(s))
	}
	f.Fuzz(func(t *testing.T, file, payload []byte) {
		want := &Cassette{Name: "f", Exchanges: []*Exchange{liveExchange(payload)}}
		if got, data := roundTrip(t, want); diffCassettes(want, got) != "" {
			t.Fatalf("frame payload %q did not round-trip: %s\n%s", payload, diffCassettes(want, got), data)
		}
		c, err := Unmarshal(testFile, file)
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v is not a FormatError", err)
			}
			return
		}
		if again, _ := roundTrip(t, c); diffCassettes(c, again) != "" {
			t.Fatalf("re-marshalling changed the cassette: %s", diffCassettes(c, again))
		}
	})
}

// TestLiveBlobsInSideFiles: large audio in a frame goes to a side file,
// decoded; the cassette holds its name and size where the base64 was, and
// loading restores the frame byte for byte. A damaged side file fails the
// load naming it.
func TestLiveBlobsInSideFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audio.yaml")
	audio := bytes.Repeat([]byte{0, 1, 2, 250}, sidefile.Threshold/2)
	b64 := base64.StdEncoding.EncodeToString(audio)
	small := base64.StdEncoding.EncodeToString([]byte("tiny"))
	x := liveExchange(
		[]byte(`{"realtimeInput":{"audio":{"data":"`+b64+`","mimeType":"audio/pcm;rate=16000"}}}`),
		[]byte(`{"realtimeInput":{"audio":{"data":"`+small+`","mimeType":"audio/pcm;rate=16000"}}}`),
	)
	if err := StoreLiveBlobs(dir, path, x); err != nil {
		t.Fatal(err)
	}
	frames := x.Live.Frames
	big, tiny := frames[len(frames)-2], frames[len(frames)-1]
	if len(big.Blobs) != 1 || big.Blobs[0].Size != len(audio) || len(tiny.Blobs) != 0 {
		t.Fatalf("blobs %+v and %+v, want the large audio only", big.Blobs, tiny.Blobs)
	}
	side, err := os.ReadFile(filepath.Join(sidefile.Dir(path), big.Blobs[0].File))
	if err != nil || !bytes.Equal(side, audio) {
		t.Fatalf("side file: %v (holds the decoded audio: %v)", err, bytes.Equal(side, audio))
	}
	c := &Cassette{Name: "audio", Exchanges: []*Exchange{x}}
	if err := Save(path, c, nil); err != nil {
		t.Fatal(err)
	}
	text, _ := os.ReadFile(path)
	if bytes.Contains(text, []byte(b64[:100])) || !bytes.Contains(text, []byte("file: "+big.Blobs[0].File)) || !bytes.Contains(text, []byte(small)) {
		t.Fatalf("the cassette should name the side file instead of the large audio and keep the small one:\n%s", text)
	}
	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if d := diffCassettes(c, got); d != "" {
		t.Fatalf("load changed the cassette: %s", d)
	}
	if names := got.SideFiles(); len(names) != 1 || names[0] != big.Blobs[0].File {
		t.Fatalf("SideFiles() = %v, want the audio's file", names)
	}
	if err := os.WriteFile(filepath.Join(sidefile.Dir(path), big.Blobs[0].File), audio[1:], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), big.Blobs[0].File) || !strings.Contains(err.Error(), "changed after recording") {
		t.Fatalf("load with a damaged side file: %v, want a format error naming it", err)
	}
}
