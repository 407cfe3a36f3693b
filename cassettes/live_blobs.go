// Large media in Live frames: base64 audio, video and image data of at
// least sidefile.Threshold bytes is kept in a side file, decoded, and the
// stored frame names the file where the base64 text was.

package cassettes

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/adkproxy/adkproxy/internal/base/sidefile"
)

// Blob is one large base64 payload of a frame (the data of an inlineData,
// realtimeInput audio or video, or media chunk) that the cassette keeps in
// a side file: File is its content address, Size its decoded length.
type Blob struct {
	File string
	Size int
}

// blobString is a base64 string found in a frame, as written in it and
// decoded.
type blobString struct {
	text    string
	decoded []byte
}

// blobStrings finds the large media strings of a JSON frame: the "data" of
// every object that also has a "mimeType" (a Blob in the Live API), when it
// is canonical base64 of at least sidefile.Threshold bytes written without
// escapes, so that putting it back gives the frame's exact bytes.
func blobStrings(data []byte) []blobString {
	if len(data) < sidefile.Threshold {
		return nil
	}
	var v any
	if json.Unmarshal(data, &v) != nil {
		return nil
	}
	var out []blobString
	var walk func(any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			if s, ok := t["data"].(string); ok && len(s) >= sidefile.Threshold && t["mimeType"] != nil {
				if b, err := base64.StdEncoding.DecodeString(s); err == nil && base64.StdEncoding.EncodeToString(b) == s &&
					bytes.Contains(data, []byte(`"`+s+`"`)) {
					out = append(out, blobString{s, b})
				}
			}
			for _, c := range t {
				walk(c)
			}
		case []any:
			for _, c := range t {
				walk(c)
			}
		}
	}
	walk(v)
	return out
}

// StoreLiveBlobs writes the large media of x's frames to side files beside
// the cassette at cassettePath (below root, the cassettes folder) and notes
// them in each frame's Blobs; the frames' bytes stay as they are in memory.
// Client frames arrive in snake_case from Python (mime_type) and are
// stored inline.
func StoreLiveBlobs(root, cassettePath string, x *Exchange) error {
	if !x.IsLive() {
		return nil
	}
	for i := range x.Live.Frames {
		f := &x.Live.Frames[i]
		for _, s := range blobStrings(f.Data) {
			name, err := sidefile.Write(root, cassettePath, s.decoded)
			if err != nil {
				return err
			}
			if !slices.ContainsFunc(f.Blobs, func(b Blob) bool { return b.File == name }) {
				f.Blobs = append(f.Blobs, Blob{File: name, Size: len(s.decoded)})
			}
		}
	}
	return nil
}

// storedPayload is what a frame's payload looks like in the cassette: each
// of its Blobs' base64 text replaced by the side file's name.
func storedPayload(f *Frame) []byte {
	if len(f.Blobs) == 0 {
		return f.Data
	}
	data := f.Data
	for _, s := range blobStrings(f.Data) {
		name := sidefile.Name(s.decoded)
		if slices.ContainsFunc(f.Blobs, func(b Blob) bool { return b.File == name }) {
			data = bytes.ReplaceAll(data, []byte(`"`+s.text+`"`), []byte(`"`+name+`"`))
		}
	}
	return data
}

// restoreBlobs puts the side files' bytes back into a payload read from a
// cassette, as the base64 text the frame carried.
func restoreBlobs(cassettePath string, payload []byte, blobs []Blob) ([]byte, error) {
	for _, b := range blobs {
		data, err := sidefile.Read(cassettePath, b.File)
		if err != nil {
			return nil, err
		}
		if len(data) != b.Size {
			return nil, fmt.Errorf("%w: side file %s holds %d bytes, the frame says %d", sidefile.ErrDamaged, b.File, len(data), b.Size)
		}
		placeholder := []byte(`"` + b.File + `"`)
		if !bytes.Contains(payload, placeholder) {
			return nil, fmt.Errorf("the frame names side file %s in blobs but not in its payload", b.File)
		}
		payload = bytes.ReplaceAll(payload, placeholder, []byte(`"`+base64.StdEncoding.EncodeToString(data)+`"`))
	}
	return payload, nil
}
