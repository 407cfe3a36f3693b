// Live exchanges: one WebSocket connection to the Live API, its upgrade
// request and answer plus every frame in both directions, in order, and how
// they are written to and read from a cassette's `live:` list.

package cassettes

import (
	"fmt"
	"time"

	"gopkg.in/yaml.v3"
)

// Live is what passed over one Live API connection after its upgrade: every
// frame in both directions, in the order adkproxy saw them.
type Live struct {
	Frames []Frame
	// ID names the connection in its cassette's journal while it is
	// recorded, so that the connection's last record supersedes the
	// frames journalled as they passed (internal/engine/journal); never stored in
	// the cassette.
	ID string `json:"-"`
}

// FrameKind is what a WebSocket frame carried.
type FrameKind string

const (
	// FrameText is a text message (JSON from every SDK).
	FrameText FrameKind = "text"
	// FrameBinary is a binary message; the Live API sends its JSON as
	// binary messages too.
	FrameBinary FrameKind = "binary"
	// FrameClose is a close frame: Code and Data (the reason).
	FrameClose FrameKind = "close"
)

// Frame is one WebSocket message: who sent it, what kind, its payload and
// when, counted from the upgrade.
type Frame struct {
	FromClient bool
	Kind       FrameKind
	// Data is the message's payload; for a close frame, its reason.
	Data []byte
	// Code is a close frame's status code (1000 for a normal close).
	Code int `json:",omitempty"`
	// At is the time since the connection was upgraded.
	At time.Duration
	// Blobs are the large media in Data the cassette keeps in side files
	// (live_blobs.go); Data still holds every byte.
	Blobs []Blob `json:",omitempty"`
}

// From names the frame's sender as the cassette does: client or server.
func (f *Frame) From() string {
	if f.FromClient {
		return "client"
	}
	return "server"
}

// IsLive reports whether x is a Live API connection rather than an HTTP
// exchange.
func (x *Exchange) IsLive() bool { return x.Live != nil }

// liveFields are the keys of an entry of the `live:` list.
var liveFields = []string{"request", "response", "frames"}

// frameFields are the keys of a frame.
var frameFields = []string{"from", "at_ms", "text", "binary", "encoding", "blobs", "close", "reason"}

// checkLive refuses a connection Unmarshal would not read back.
func checkLive(l *Live) error {
	for i, f := range l.Frames {
		switch f.Kind {
		case FrameText, FrameBinary:
		case FrameClose:
			if f.Code < 0 || f.Code > 4999 {
				return fmt.Errorf("frame %d: close code %d is not a WebSocket close code (0-4999)", i+1, f.Code)
			}
		default:
			return fmt.Errorf("frame %d: kind %q is not text, binary or close", i+1, f.Kind)
		}
		if f.At < 0 {
			return fmt.Errorf("frame %d: negative time offset", i+1)
		}
	}
	return nil
}

// liveNode renders a connection: its upgrade as request and response,
// then its frames.
func liveNode(x *Exchange) (*yaml.Node, error) {
	if err := checkLive(x.Live); err != nil {
		return nil, err
	}
	n, err := exchangeNode(x)
	if err != nil {
		return nil, err
	}
	frames := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	for _, f := range x.Live.Frames {
		frames.Content = append(frames.Content, frameNode(f))
	}
	n.Content = append(n.Content, strNode("frames"), frames)
	return n, nil
}

// frameNode stores a frame's payload as a body is stored (text, indented
// JSON or base64) under the key that names its kind.
func frameNode(f Frame) *yaml.Node {
	n := mapping("from", strNode(f.From()))
	if f.At > 0 {
		n.Content = append(n.Content, strNode("at_ms"), floatNode(millis(f.At)))
	}
	if f.Kind == FrameClose {
		n.Content = append(n.Content, strNode("close"), intNode(f.Code))
		if len(f.Data) > 0 {
			reason, enc := bodyNode(f.Data)
			n.Content = append(n.Content, strNode("reason"), reason)
			if enc != encodingText {
				n.Content = append(n.Content, strNode("encoding"), strNode(enc))
			}
		}
		return n
	}
	payload, enc := bodyNode(storedPayload(&f))
	n.Content = append(n.Content, strNode(string(f.Kind)), payload)
	if enc != encodingText {
		n.Content = append(n.Content, strNode("encoding"), strNode(enc))
	}
	if len(f.Blobs) > 0 {
		list := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for _, b := range f.Blobs {
			list.Content = append(list.Content, flowMap("file", b.File, "bytes", b.Size))
		}
		n.Content = append(n.Content, strNode("blobs"), list)
	}
	return n
}

// live reads the `live:` list.
func (r reader) live(n *yaml.Node) ([]*Exchange, error) {
	items, err := r.list(n, "live")
	if err != nil {
		return nil, err
	}
	out := make([]*Exchange, 0, len(items))
	for i, item := range items {
		where := fmt.Sprintf("live connection %d", i+1)
		x, err := r.exchange(item, where, liveFields...)
		if err != nil {
			return nil, err
		}
		f, _ := r.fields(item, where, liveFields...) // checked by exchange
		frames, err := r.list(f["frames"], where+" frames")
		if err != nil {
			return nil, err
		}
		x.Live = &Live{Frames: make([]Frame, 0, len(frames))}
		for j, fn := range frames {
			fr, err := r.frame(fn, fmt.Sprintf("%s frame %d", where, j+1))
			if err != nil {
				return nil, err
			}
			x.Live.Frames = append(x.Live.Frames, fr)
		}
		out = append(out, x)
	}
	return out, nil
}

// frame reads one frame; its payload is under text, binary or reason.
func (r reader) frame(n *yaml.Node, where string) (Frame, error) {
	f, err := r.fields(n, where, frameFields...)
	if err != nil {
		return Frame{}, err
	}
	var fr Frame
	from, err := r.str(f["from"], where+" from")
	if err != nil {
		return Frame{}, err
	}
	switch from {
	case "client":
		fr.FromClient = true
	case "server":
	default:
		return Frame{}, r.errorf(n, "%s: from must be client or server, not %q", where, from)
	}
	ms, err := r.number(f["at_ms"], where+" at_ms")
	if err != nil {
		return Frame{}, err
	}
	fr.At = fromMillis(ms)
	var kinds []FrameKind
	for _, k := range []FrameKind{FrameText, FrameBinary, FrameClose} {
		if f[string(k)] != nil {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) != 1 {
		return Frame{}, r.errorf(n, "%s needs exactly one of text, binary or close (it has %d)", where, len(kinds))
	}
	fr.Kind = kinds[0]
	payload := f[string(fr.Kind)]
	if fr.Kind == FrameClose {
		if fr.Code, err = r.integer(payload, where+" close"); err != nil {
			return Frame{}, err
		}
		if fr.Code < 0 || fr.Code > 4999 {
			return Frame{}, r.errorf(payload, "%s close code must be from 0 to 4999, not %d", where, fr.Code)
		}
		payload = f["reason"]
	} else if f["reason"] != nil {
		return Frame{}, r.errorf(f["reason"], "%s: only a close frame has a reason", where)
	}
	if fr.Data, err = r.body(payload, f["encoding"], where); err != nil {
		return Frame{}, err
	}
	if f["blobs"] == nil {
		return fr, nil
	}
	if fr.Kind == FrameClose {
		return Frame{}, r.errorf(f["blobs"], "%s: a close frame has no blobs", where)
	}
	items, err := r.list(f["blobs"], where+" blobs")
	if err != nil {
		return Frame{}, err
	}
	for i, item := range items {
		bf, err := r.fields(item, fmt.Sprintf("%s blob %d", where, i+1), "file", "bytes")
		if err != nil {
			return Frame{}, err
		}
		var b Blob
		if b.File, err = r.str(bf["file"], where+" blob file"); err != nil {
			return Frame{}, err
		}
		if b.Size, err = r.integer(bf["bytes"], where+" blob bytes"); err != nil {
			return Frame{}, err
		}
		fr.Blobs = append(fr.Blobs, b)
	}
	if fr.Data, err = restoreBlobs(r.file, fr.Data, fr.Blobs); err != nil {
		return Frame{}, r.errorf(f["blobs"], "%s: %v", where, err)
	}
	return fr, nil
}
